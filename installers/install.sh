#!/usr/bin/env bash
# WebMCP Sidecar: one-click install for Linux and macOS, no Python knowledge needed.
#
#   ./install.sh [install options]     e.g. --browser chrome, --clients cursor, --dry-run
#   ./install.sh --uninstall           undo everything, and remove the program
#
# Uses the bundle next to this script (a release download) or dist/ of a source checkout, and
# builds it from the checkout when there is none. The bundle is copied to the user's app dir,
# so the download can be deleted, and `webmcp-sidecar install` runs from there: it registers the
# host with every browser and MCP client found and prints what is left to do.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "$(uname -s)" in
  Darwin) app_root="$HOME/Library/Application Support/webmcp-sidecar" ;;
  *) app_root="${XDG_DATA_HOME:-$HOME/.local/share}/webmcp-sidecar" ;;
esac
app="$app_root/app"
link="$HOME/.local/bin/webmcp-sidecar"

if [ "${1:-}" = "--uninstall" ]; then
  shift
  if [ -x "$app/webmcp-sidecar" ]; then
    "$app/webmcp-sidecar" uninstall "$@"
  fi
  [ -L "$link" ] && [ "$(readlink "$link")" = "$app/webmcp-sidecar" ] && rm -f "$link"
  # The folders install made for the link (e.g. ~/.local/bin on a fresh account), when empty.
  made=$(cat "$app_root/created-dirs" 2>/dev/null || true)
  rm -rf "$app" "$app_root/created-dirs"
  rmdir "$app_root" 2>/dev/null || true
  # Children sort after their parents: reversed, each goes before the folder holding it.
  while IFS= read -r d; do
    [ -n "$d" ] && rmdir "$d" 2>/dev/null || true
  done < <(printf '%s\n' "$made" | sort -ru)
  echo "WebMCP Sidecar removed. Remove the extension from your browser's extensions page."
  echo "Its logs stay in its log folder (Linux: ~/.local/state/webmcp-sidecar, macOS:"
  echo "~/Library/Logs/webmcp-sidecar); delete it if you do not need them."
  exit 0
fi

bundle=""
for d in "${WEBMCP_SIDECAR_BUNDLE_DIR:-}" "$here/webmcp-sidecar" "$here/../dist/webmcp-sidecar"; do
  if [ -n "$d" ] && [ -x "$d/webmcp-sidecar" ]; then
    bundle=$(cd "$d" && pwd)
    break
  fi
done

if [ -z "$bundle" ]; then
  root=$(cd "$here/.." && pwd)
  if [ ! -f "$root/pyproject.toml" ]; then
    echo "install: no webmcp-sidecar bundle next to this script, and no source to build it." >&2
    exit 1
  fi
  if [ ! -x "$root/.venv/bin/python" ]; then
    py=""
    for c in python3.13 python3.12 python3.11 python3; do
      if command -v "$c" >/dev/null &&
         "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        py=$c
        break
      fi
    done
    [ -n "$py" ] || { echo "install: building needs Python 3.11 or newer" >&2; exit 1; }
    echo "install: creating $root/.venv" >&2
    "$py" -m venv "$root/.venv"
  fi
  echo "install: building the bundle (about a minute)" >&2
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check -e "$root[package]" >&2
  bundle=$(dirname "$("$root/installers/build.sh" | tail -1)")
fi

# The folders this install makes (a fresh account has no ~/.local): --uninstall removes them
# again when they are empty.
missing_dirs() { local d=$1; while [ ! -d "$d" ]; do echo "$d"; d=$(dirname "$d"); done; }
new_dirs=$({ missing_dirs "$(dirname "$app_root")"; missing_dirs "$(dirname "$link")"; })

if [ "$bundle" != "$app" ]; then
  # New inodes, not overwrites: a host the browser is running keeps its files.
  mkdir -p "$app_root"
  rm -rf "$app.new"
  cp -R "$bundle" "$app.new"
  rm -rf "$app"
  mv "$app.new" "$app"
fi
if [ "$(uname -s)" = Darwin ]; then
  # A downloaded, unsigned bundle is quarantined: the browser could not start it.
  xattr -dr com.apple.quarantine "$app" 2>/dev/null || true
fi
mkdir -p "$(dirname "$link")"
if [ -n "$new_dirs" ]; then
  printf '%s\n' "$new_dirs" >> "$app_root/created-dirs"
fi
ln -sf "$app/webmcp-sidecar" "$link"

status=0
"$app/webmcp-sidecar" install "$@" || status=$?
echo
echo "The webmcp-sidecar command: $link (program files in $app)."
case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) echo "Add $HOME/.local/bin to your PATH to run 'webmcp-sidecar doctor' by name." ;;
esac
exit "$status"
