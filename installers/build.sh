#!/usr/bin/env bash
# Builds the onedir bundle with PyInstaller: dist/webmcp-sidecar/webmcp-sidecar (Linux, macOS).
# Installs the `package` extra (pyinstaller) into the venv when missing. The last line printed
# is the bundle's executable. Set CLEAN=1 to rebuild from scratch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
if [ ! -x "$PY" ]; then
  echo "build: no $PY; run ./scripts/setup.sh first or set PYTHON" >&2
  exit 1
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "build: installing pyinstaller (the 'package' extra)" >&2
  "$PY" -m pip install -q --disable-pip-version-check -e ".[package]" >&2
fi
mkdir -p build
log=build/pyinstaller.log
start=$(date +%s)
# shellcheck disable=SC2046
if ! "$PY" -m PyInstaller --noconfirm $([ "${CLEAN:-}" = 1 ] && echo --clean) \
    --distpath dist --workpath build/pyinstaller installers/webmcp-sidecar.spec >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "build: PyInstaller failed (full log: $log)" >&2
  exit 1
fi
exe=$(pwd)/dist/webmcp-sidecar/webmcp-sidecar
[ -x "$exe" ] || { echo "build: $exe missing after the build" >&2; exit 1; }
echo "build: done in $(( $(date +%s) - start )) s, $(du -sh dist/webmcp-sidecar | cut -f1) on disk" >&2
echo "$exe"
