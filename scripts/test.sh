#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite: lint, type checks (tsc over the
# extension's JSDoc, mypy over host/), the extension's unit tests (node --test), and the Python
# unit and end-to-end tests (headless Chromium, real host, real MCP client). Extra arguments go
# to pytest. Prints how long the suite took (after setup) and pytest's 30 slowest items.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
start=$SECONDS
# The static checks and the node tests run beside pytest: its browser tests spend much of their
# time waiting, so on two cores this takes about a minute off the wall time. Their log is shown
# after pytest's.
checks_log=$(mktemp)
(
  set -e
  .venv/bin/ruff check host tests bench
  node_modules/.bin/tsc -p tsconfig.json
  node_modules/.bin/tsc -p extension/background/tsconfig.json
  .venv/bin/mypy
  node --test tests/js/
) >"$checks_log" 2>&1 & checks_pid=$!
status=0
.venv/bin/python -m pytest -n 2 --dist loadfile --durations=30 "$@" || status=$?
checks=0; wait "$checks_pid" || checks=$?
if [ "$checks" -ne 0 ]; then
  cat "$checks_log"
  echo "test.sh: ruff, tsc, mypy or node --test failed (above)" >&2
  status=1
else
  grep -E "^(Success|All checks|# (tests|pass|fail))" "$checks_log" || true
fi
rm -f "$checks_log"
echo "test.sh: the suite took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s after setup"
exit "$status"
