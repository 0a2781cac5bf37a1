#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the demo: the flight-search site in Chromium with our
# extension, our host started by the browser, and an MCP client calling the site's tools.
# Arguments go to `webmcp-sidecar demo` (--headed, --keep-open, --no-webmcp-flag, and
# --browser firefox: Firefox ESR, which setup.sh installs with apt, our extension as a temporary
# add-on).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/webmcp-sidecar demo "$@"
