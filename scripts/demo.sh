#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the demo: the flight-search site in Chromium with our
# extension, our host started by the browser, and an MCP client calling the site's tools.
# Arguments go to `webmcp-sidecar demo` (--headed, --keep-open, --no-webmcp-flag).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/webmcp-sidecar demo "$@"
