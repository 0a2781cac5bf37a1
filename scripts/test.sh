#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite: lint, type checks (tsc over the
# extension's JSDoc, mypy over host/), the extension's unit tests (node --test), and the Python
# unit and end-to-end tests (headless Chromium, real host, real MCP client). Extra arguments go
# to pytest. Prints how long the suite took (after setup) and pytest's 30 slowest items.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
start=$SECONDS
.venv/bin/ruff check host tests bench
node_modules/.bin/tsc -p tsconfig.json
node_modules/.bin/tsc -p extension/background/tsconfig.json
.venv/bin/mypy
node --test tests/js/
status=0
.venv/bin/python -m pytest -n 2 --dist loadfile --durations=30 "$@" || status=$?
echo "test.sh: the suite took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s after setup"
exit "$status"
