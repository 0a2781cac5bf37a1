"""Which local files `browser_upload_file` may hand to a page.

A prompt injection can ask for any path (`~/.ssh/id_rsa`), so a file is uploaded only when it is
a regular file inside a folder the user allowed (`webmcp-sidecar uploads allow DIR`; none by
default), judged after symlinks are resolved; and never a dotfile, nothing inside a dot folder,
key store, password manager or browser profile, nor our own data, whatever folder was allowed.
The MCP entry, the host's agent and the host itself (for every entry's `browser_call`) check
here (`checked_args`), and send the browser the resolved paths (a link swapped after the check
changes nothing).

The list lives in a file found from the home folder alone (not `$XDG_CONFIG_HOME`, which MCP
clients strip from the entry's environment): the entry, the host and the CLI read the same file.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import stat
import sys
from pathlib import Path, PurePath
from typing import Any

from webmcp_sidecar import paths as app_paths

log = logging.getLogger(__name__)

FILE = "uploads.json"
MAX_FILES = 32
MAX_PATH_CHARS = 4096
MAX_FOLDERS = 100

# Folder names (any case) where keys, passwords, cookies or browser profiles live: refused at
# any depth. Dot folders (.ssh, .gnupg, .aws, .mozilla, .config...) are refused anyway.
_KEY_DIRS = frozenset({
    "keychains", "keyrings", "gnupg", "ssh", "user data", "google-chrome", "google-chrome-beta",
    "google-chrome-unstable", "chromium", "bravesoftware", "vivaldi", "microsoft-edge",
    "microsoft-edge-beta", "microsoft-edge-dev", "opera", "mozilla", "firefox", "thunderbird",
    "1password", "bitwarden", "keepassxc", "password-store",
})
# Folders directly in the home that hold every app's private data (macOS, Windows).
_HOME_PRIVATE = frozenset({"library", "appdata"})
# File names (any case) of keys and browser secrets, wherever they are.
_KEY_FILES = re.compile(
    r"^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?(\.pub)?|.*\.(kdbx|keychain|keychain-db|p12|pfx)"
    r"|login data|cookies|web data|local state|key[34]\.db|logins\.json)$",
    re.IGNORECASE,
)

HOW_TO_ALLOW = ("In a terminal: `webmcp-sidecar uploads allow <folder>` (files in it and its "
                "subfolders), `webmcp-sidecar uploads list` shows the allowed folders.")


class UploadRefused(ValueError):
    """str() says why, in words for the model and the user."""


def config_file() -> Path:
    if sys.platform == "win32":
        import platformdirs

        base = Path(platformdirs.user_config_dir(app_paths.APP, False))
    elif sys.platform == "darwin":
        base = app_paths.home_dir() / "Library" / "Application Support" / app_paths.APP
    else:
        base = app_paths.home_dir() / ".config" / app_paths.APP
    return base / FILE


# --- the allowed folders ------------------------------------------------------------------------

def load() -> list[Path]:
    """The allowed folders. Anything wrong with the file (unreadable, not ours, writable by
    others) means none: uploads fail closed."""
    path = config_file()
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
                log.warning("%s ignored: it is another user's or writable by others", path)
                return []
            data = json.loads(f.read(1_000_000))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError) as e:
        log.warning("%s unreadable (%s): no folder is allowed for uploads", path, type(e).__name__)
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, list):
        return []
    return [Path(f) for f in folders[:MAX_FOLDERS] if isinstance(f, str) and os.path.isabs(f)]


def save(folders: list[Path]) -> None:
    """Written whole (temp file + rename), readable by this user only."""
    path = config_file()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"version": 1, "folders": [str(p) for p in folders]}, f, indent=2)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def allow(folder: str) -> Path:
    """Adds a folder (resolved); returns it. Raises UploadRefused for one that cannot be."""
    real = Path(os.path.realpath(os.path.expanduser(folder)))
    if not real.is_dir():
        raise UploadRefused(f"{folder} is not a folder.")
    if real == Path(real.anchor) or real in app_paths.home_dir().resolve().parents:
        raise UploadRefused(f"{real} is too wide: allow a folder that holds only what may be "
                            "uploaded, e.g. ~/Documents/uploads.")
    why = _refused(real, is_dir=True)
    if why:
        raise UploadRefused(f"{real} cannot be allowed: {why}")
    folders = load()
    if real not in folders:
        save([*folders, real][-MAX_FOLDERS:])
    return real


def remove(folder: str) -> Path | None:
    """Removes a folder (as given, or resolved); the one removed, or None if it was not there."""
    folders = load()
    for cand in (Path(folder), Path(os.path.realpath(os.path.expanduser(folder)))):
        if cand in folders:
            save([f for f in folders if f != cand])
            return cand
    return None


# --- the check ----------------------------------------------------------------------------------

def checked_args(args: dict[str, Any]) -> dict[str, Any]:
    """A local-files browser tool's `args` with `paths` checked and resolved (see `check`)."""
    paths = args.get("paths")
    if not isinstance(paths, list):
        raise UploadRefused("Give the files to upload in `paths` (a list).")
    return {**args, "paths": check(paths)}


def check(paths: list[str], allowed: list[Path] | None = None) -> list[str]:
    """The resolved paths to hand to the browser; raises UploadRefused naming the first path that
    may not be uploaded and why. `allowed`: the allowed folders (default: the user's list)."""
    if not paths:
        raise UploadRefused("Give the files to upload in `paths`.")
    if len(paths) > MAX_FILES:
        raise UploadRefused(f"At most {MAX_FILES} files can be uploaded at once.")
    roots = load() if allowed is None else allowed
    real_roots = [Path(os.path.realpath(r)) for r in roots]
    return [str(_check_one(p, real_roots)) for p in paths]


def _check_one(p: str, roots: list[Path]) -> Path:
    if not isinstance(p, str) or not p or len(p) > MAX_PATH_CHARS or "\0" in p:
        raise UploadRefused("Each path must be a file's full path on this computer.")
    shown = p[:300]
    if not os.path.isabs(p):
        raise UploadRefused(f"`{shown}` is not an absolute path; give each file's full path on "
                            "this computer.")
    why = _refused(Path(os.path.normpath(p)))
    if why:
        raise UploadRefused(f"`{shown}` is refused: {why}")
    if not roots:
        raise UploadRefused("Uploads are off: the user has not allowed any folder for uploads "
                            f"yet. {HOW_TO_ALLOW}")
    real = Path(os.path.realpath(p))
    why = _refused(real)
    if why:
        raise UploadRefused(f"`{shown}` is refused (it leads to {real}): {why}")
    if not any(real == r or r in real.parents for r in roots):
        folders = ", ".join(str(r) for r in roots[:5])
        raise UploadRefused(f"`{shown}` is not in a folder the user allowed for uploads "
                            f"({folders}). {HOW_TO_ALLOW}")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        raise UploadRefused(f"There is no file at `{shown}` on this computer.") from None
    except OSError as e:
        raise UploadRefused(f"`{shown}` cannot be read: {e.strerror or e}.") from None
    if not stat.S_ISREG(st.st_mode):
        raise UploadRefused(f"`{shown}` is not a regular file (a folder, device or pipe): only "
                            "files can be uploaded.")
    return real


def _refused(path: PurePath, *, is_dir: bool = False) -> str | None:
    """Why nothing at `path` may ever be uploaded, or None."""
    parts = path.parts[1:]  # not the root or drive
    for part in parts:
        if part.startswith("."):
            return ("dotfiles and anything in a hidden (dot) folder are never uploaded: keys and "
                    "settings live there.")
        if part.casefold() in _KEY_DIRS:
            return (f"it is inside {part}, where keys, passwords or browser data live; never "
                    "uploaded.")
    home = app_paths.home_dir()
    for h in {home, Path(os.path.realpath(home))}:
        try:
            first = path.relative_to(h).parts[:1]
        except ValueError:
            continue
        if first and first[0].casefold() in _HOME_PRIVATE:
            return f"it is inside {h / first[0]}, where apps keep private data."
    for own in (app_paths.data_dir(), app_paths.log_dir()):
        if _under(path, own):
            return "it is WebMCP Sidecar's own data."
    if not is_dir and parts and _KEY_FILES.match(parts[-1]):
        return "it looks like a key, password store or browser secret; never uploaded."
    return None


def _under(path: PurePath, folder: Path) -> bool:
    for cand in {folder, Path(os.path.realpath(folder))}:
        if path == cand or cand in path.parents:
            return True
    return False
