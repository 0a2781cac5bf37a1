"""Where things live on disk, per platformdirs: logs, data, and the hosts' local sockets."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import platformdirs

APP = "webmcp-sidecar"


def log_dir() -> Path:
    return Path(os.environ.get("WEBMCP_SIDECAR_LOG_DIR") or platformdirs.user_log_dir(APP, False))


def data_dir() -> Path:
    return Path(os.environ.get("WEBMCP_SIDECAR_DATA_DIR") or platformdirs.user_data_dir(APP, False))


def socket_dir() -> Path:
    """The per-user directory where each live host puts its socket (mode 0700).

    `WEBMCP_SIDECAR_SOCKET_DIR` overrides it (tests run isolated sets of hosts this way).
    """
    override = os.environ.get("WEBMCP_SIDECAR_SOCKET_DIR")
    if override:
        return Path(override)
    if sys.platform.startswith("linux") and os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"]) / APP
    if sys.platform == "win32":
        return data_dir() / "hosts"
    # macOS and Linux without a runtime dir: a per-user folder in the temp dir.
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"{APP}-{uid}"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` readable by this user only; refuse one owned by somebody else."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid"):
        st = path.stat()
        if st.st_uid != os.getuid():
            raise PermissionError(f"{path} belongs to another user; refusing to use it")
        if st.st_mode & 0o077:
            path.chmod(0o700)
    return path
