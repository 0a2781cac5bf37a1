#!/usr/bin/env bash
# The inner loop, before every commit (about a minute): ruff, both tsc configs, mypy (its
# daemon), the extension's unit tests (node --test) and the Python tests that start no browser,
# no host or entry process and no bundle. The whole suite is ./scripts/test.sh.
# Assumes ./scripts/setup.sh has run once. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
.venv/bin/ruff check host tests bench
# node --test runs beside the type checks and pytest (two cores); its log is shown at the end.
node_log=$(mktemp)
node --test tests/js/ >"$node_log" 2>&1 & node_pid=$!
node_modules/.bin/tsc -p tsconfig.json --incremental --tsBuildInfoFile .cache/tsc-pages.tsbuildinfo
node_modules/.bin/tsc -p extension/background/tsconfig.json --incremental \
  --tsBuildInfoFile .cache/tsc-worker.tsbuildinfo
if ! out=$(.venv/bin/dmypy run -- 2>&1); then echo "$out"; echo "quick: mypy failed" >&2; exit 1; fi
echo "$out" | grep -v "^Daemon started" || true
WEBMCP_SIDECAR_QUICK=1 .venv/bin/python -m pytest -q -p no:cacheprovider \
  -m "not e2e and not servers and not bundle and not proc" "$@"
node_ok=0; wait "$node_pid" || node_ok=$?
grep -E "^# (tests|pass|fail)" "$node_log"
[ "$node_ok" -eq 0 ] || { cat "$node_log"; echo "quick: node --test failed" >&2; exit 1; }
rm -f "$node_log"
echo "quick: all passed in $((SECONDS - start)) s"
