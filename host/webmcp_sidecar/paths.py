"""Where things live on disk: logs, data, and the hosts' local sockets.

The socket dir must come out the same in the host (started by the browser, full environment) and
in the MCP entry (started by an MCP client, whose SDK passes only HOME, LOGNAME, PATH, SHELL, TERM
and USER). So it depends on nothing a client may strip: not XDG_RUNTIME_DIR, not TMPDIR.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

import platformdirs

APP = "webmcp-sidecar"
RUN_USER = Path("/run/user")  # Linux: systemd-logind's per-uid runtime dirs, /run/user/<uid>
# sun_path holds 104 bytes on macOS/BSD, 108 on Linux, both with the closing NUL.
MAX_SOCKET_PATH = 103 if sys.platform != "linux" else 107
_DARWIN_USER_TEMP_DIR = 65537  # confstr name _CS_DARWIN_USER_TEMP_DIR (<unistd.h>)


class PrivateDirError(PermissionError):
    """A directory WebMCP Sidecar will not use; str() says why and what to do, in plain words."""


def log_dir() -> Path:
    return Path(os.environ.get("WEBMCP_SIDECAR_LOG_DIR") or platformdirs.user_log_dir(APP, False))


def data_dir() -> Path:
    return Path(os.environ.get("WEBMCP_SIDECAR_DATA_DIR") or platformdirs.user_data_dir(APP, False))


def config_dir() -> Path:
    """User-editable settings (e.g. `servers.json`); `WEBMCP_SIDECAR_CONFIG_DIR` overrides it."""
    return Path(
        os.environ.get("WEBMCP_SIDECAR_CONFIG_DIR") or platformdirs.user_config_dir(APP, False)
    )


def socket_dir() -> Path:
    """The per-user directory where each live host puts its socket (private: 0700, ours).

    Linux: `/run/user/<uid>/webmcp-sidecar` when that runtime dir is a real 0700 dir of ours;
    macOS: the per-user temp dir the OS reports (not $TMPDIR); otherwise a dir in the home. The
    OS dirs are used only while HOME is the account's home: a process given a HOME of its own (a
    test, a sandbox) meets the hosts of that HOME. `WEBMCP_SIDECAR_SOCKET_DIR` overrides all
    this for tests that start only hosts (an MCP client would not pass it to the entry).
    """
    override = os.environ.get("WEBMCP_SIDECAR_SOCKET_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        # platformdirs asks the shell for the folder (not %LOCALAPPDATA%).
        return Path(platformdirs.user_data_dir(APP, False)) / "hosts"
    home = home_dir()
    if _is_account_home(home) and (base := _os_user_dir()) is not None:
        return base / APP
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / APP / "run"
    return home / ".local" / "state" / APP / "run"


def home_dir() -> Path:
    """HOME (MCP SDKs always pass it), else the account's home from the password database."""
    home = os.environ.get("HOME")
    if home and os.path.isabs(home):
        return Path(home)
    return _account_home() or Path.home()


def _account_home() -> Path | None:
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, OSError):
        return None


def _is_account_home(home: Path) -> bool:
    account = _account_home()
    if account is None:
        return True  # no password entry (some containers): HOME is all there is
    try:
        return os.path.samefile(home, account)
    except OSError:
        return os.path.normpath(home) == os.path.normpath(account)


def _os_user_dir() -> Path | None:
    """The OS's private per-user dir, if it is there and safe; None to use the home instead."""
    if sys.platform.startswith("linux"):
        d: Path | None = RUN_USER / str(os.getuid())
    elif sys.platform == "darwin":
        d = _darwin_user_temp_dir()
    else:
        d = None
    if d is None:
        return None
    try:
        check_private_dir(d)
    except OSError:
        return None
    return d


def _darwin_user_temp_dir() -> Path | None:
    """`confstr(_CS_DARWIN_USER_TEMP_DIR)`: /var/folders/.../T/, 0700, whatever $TMPDIR says."""
    with contextlib.suppress(ValueError, OSError):
        if "CS_DARWIN_USER_TEMP_DIR" in os.confstr_names:
            value = os.confstr("CS_DARWIN_USER_TEMP_DIR")
            return Path(value) if value else None
    try:
        import ctypes

        confstr = ctypes.CDLL(None).confstr
        confstr.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
        confstr.restype = ctypes.c_size_t
        buf = ctypes.create_string_buffer(1024)
        n = confstr(_DARWIN_USER_TEMP_DIR, buf, len(buf))
    except (OSError, AttributeError, TypeError):
        return None
    return Path(os.fsdecode(buf.value)) if 0 < n <= len(buf) else None


def check_private_dir(path: Path) -> None:
    """Raise PrivateDirError unless `path` is a real dir (not a symlink) of ours, mode 0700.

    FileNotFoundError when it does not exist. lstat, so a link planted in its place is refused.
    """
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise PrivateDirError(
            f"WebMCP Sidecar will not use {path}: it is a symbolic link, not a folder of yours, so "
            "someone may be trying to listen in between your browser and your MCP clients. "
            "Delete the link and restart the browser; a private folder is made in its place."
        )
    if not stat.S_ISDIR(st.st_mode):
        raise PrivateDirError(
            f"WebMCP Sidecar will not use {path}: it is a file, not a folder. Delete it and "
            "restart the browser."
        )
    if not hasattr(os, "getuid"):
        return  # Windows: the folder is in the user's own profile
    if st.st_uid != os.getuid():
        raise PrivateDirError(
            f"WebMCP Sidecar will not use {path}: it belongs to another user (uid {st.st_uid}), "
            "who could listen in between your browser and your MCP clients. Ask an administrator "
            "to delete it, then restart the browser."
        )
    if st.st_mode & 0o077:
        raise PrivateDirError(
            f"WebMCP Sidecar will not use {path}: other users can open it (permissions "
            f"{stat.S_IMODE(st.st_mode):o}). Run `chmod 700 '{path}'` or delete the folder, then "
            "restart the browser."
        )


def ensure_socket_dir() -> Path:
    """The socket dir, created private if missing; PrivateDirError if it is not ours alone."""
    d = socket_dir()
    try:
        check_private_dir(d)
        return d
    except FileNotFoundError:
        pass
    d.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(d, 0o700)
        os.chmod(d, 0o700)  # whatever the umask
    except FileExistsError:
        pass  # made meanwhile (another host starting): checked below like any other
    check_private_dir(d)
    return d


def ensure_private_dir(path: Path) -> Path:
    """Create `path` readable by this user only (e.g. the log dir); tighten it if it is ours and
    looser; refuse one that is a symlink or somebody else's."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        check_private_dir(path)
    except PrivateDirError:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise
        path.chmod(0o700)
    return path
