#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite: lint, type checks (tsc over the
# extension's JSDoc, mypy over host/), the extension's unit tests (node --test), and the Python
# unit and end-to-end tests (headless Chromium, real host, real MCP client). Extra arguments go
# to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/ruff check host tests bench
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p extension/background/tsconfig.json
.venv/bin/mypy
node --test tests/js/
.venv/bin/python -m pytest "$@"
