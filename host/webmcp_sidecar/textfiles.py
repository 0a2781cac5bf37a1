"""The user-editable text files we keep (skills, chat-site adapters, servers.json, state files):
written whole or not at all, and read with a size cap before they are read whole."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    """Temp file (0600 from mkstemp) then os.replace: a reader (the host, another process) never
    sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_capped(path: Path, max_bytes: int, what: str, error: type[Exception]) -> str:
    """The file's UTF-8 text; `error` with a plain message when it cannot be read, is larger than
    `max_bytes` (checked before it is read whole, so a huge file costs nothing) or is not UTF-8.
    `what`: the kind of file, for the message ("a skill file")."""
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise error(f"{path}: cannot be read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise error(f"{path}: too large: {what} is at most {max_bytes // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text (byte {e.start})") from None
