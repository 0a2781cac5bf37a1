"""Logging to a file in the user log dir: stdout belongs to native messaging."""

from __future__ import annotations

import logging
import logging.handlers
import os

from .paths import log_dir


def setup(name: str, level: str | None = None) -> logging.Logger:
    level = level or os.environ.get("WEBMCP_SIDECAR_LOG_LEVEL", "INFO")
    root = logging.getLogger()
    root.setLevel(level.upper())
    try:
        d = log_dir()
        d.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            d / f"{name}.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()  # never fall back to stdout: it is the native channel
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    root.handlers[:] = [handler]
    return logging.getLogger(f"webmcp_sidecar.{name}")
