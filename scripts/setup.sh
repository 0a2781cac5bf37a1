#!/usr/bin/env bash
# Installs what the demo and the tests need on a fresh Debian machine: Debian's Chromium and
# Firefox ESR (the Firefox tests and `demo.sh --browser firefox`), gnome-keyring and dbus (real Secret Service for keyring tests), Node.js with npm (the
# extension's unit tests and type checks), a virtualenv in .venv with the project and its test
# extras, and node_modules with the type checker. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -x /usr/lib/chromium/chromium ] || need_apt+=(chromium)
command -v firefox-esr >/dev/null || need_apt+=(firefox-esr)
command -v gnome-keyring-daemon >/dev/null || need_apt+=(gnome-keyring)
command -v dbus-run-session >/dev/null || need_apt+=(dbus dbus-x11)
command -v secret-tool >/dev/null || need_apt+=(libsecret-tools)  # tests read the keyring with it
command -v npm >/dev/null || need_apt+=(npm)  # brings nodejs along
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${need_apt[*]} with apt" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -e ".[test]"
  rm -f .venv/.installed-*; touch "$stamp"
fi

# The extension's type checker (TypeScript and Chrome's types, dev tools only: the extension
# itself has no build step), at the versions package-lock.json pins.
npm_stamp=node_modules/.installed-$(sha256sum package-lock.json | cut -c1-16)
if [ ! -f "$npm_stamp" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  touch "$npm_stamp"
fi
# Cline's CLI (tests/clients): its package names platform packages this registry does not have,
# which a lock file cannot record (npm ci refuses the lock), so it goes in beside the locked
# tree, at its pinned version.
CLINE_VERSION=3.0.65
if [ ! -x node_modules/.bin/cline ]; then
  npm install --no-save --no-audit --no-fund --loglevel=error "cline@$CLINE_VERSION"
fi
