#!/usr/bin/env bash
# Builds a release into dist/: the Chrome extension (unpacked tree with the development id, and
# the Web Store zip), the Firefox .xpi, the host bundle tarball with install.sh, SHA256SUMS and
# the store's screenshots. installers/release.py does the work; docs/STORE.md says what is what.
#   ./scripts/release.sh [--bundle DIR] [--no-screenshots]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >&2
exec .venv/bin/python installers/release.py "$@"
