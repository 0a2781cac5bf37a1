"""Logging to a file in the user log dir: stdout belongs to native messaging.

The dir is 0700 and the files 0600: logs name the sites and tools in use.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os

from webmcp_sidecar.paths import ensure_private_dir, log_dir


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Opens (and, on rotation, re-creates) its file readable by this user only."""

    def _open(self) -> io.TextIOWrapper:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.baseFilename, flags, 0o600)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # a file an older version made 0644
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)


def setup(name: str, level: str | None = None) -> logging.Logger:
    level = level or os.environ.get("WEBMCP_SIDECAR_LOG_LEVEL", "INFO")
    root = logging.getLogger()
    root.setLevel(level.upper())
    try:
        d = ensure_private_dir(log_dir())
        handler: logging.Handler = PrivateRotatingFileHandler(
            d / f"{name}.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()  # never fall back to stdout: it is the native channel
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root.handlers[:] = [handler]
    return logging.getLogger(f"webmcp_sidecar.{name}")
