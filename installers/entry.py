"""The bundle's one executable: the same dispatch as the `webmcp-sidecar` console script
(host mode when the browser passes `chrome-extension://...`, else a subcommand)."""

from webmcp_sidecar.cli import main

raise SystemExit(main())
