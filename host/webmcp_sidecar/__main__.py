from webmcp_sidecar.cli import main

raise SystemExit(main())
