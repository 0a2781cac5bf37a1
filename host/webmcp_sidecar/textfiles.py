"""The user-editable text files we keep (skills, chat-site adapters, servers.json, state files):
written whole or not at all, and read with a size cap before they are read whole."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from webmcp_sidecar import paths

if TYPE_CHECKING:  # pydantic is imported where a state is read: not at the host's start
    from pydantic import BaseModel


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


# --- a folder of documents, one `<name><suffix>` file each, with `state.json` beside them ------
# (the skills and the chat-site adapters: what is switched off, what was verified)

STATE_FILE = "state.json"
_S = TypeVar("_S", bound="BaseModel")


def listed(root: Path | None, suffix: str) -> list[Path]:
    """The folder's `*<suffix>` files, sorted; none when it does not exist. Dot files (an editor's
    or atomic_write's temporaries) are not documents."""
    if root is None:
        return []
    try:
        entries = sorted(root.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [p for p in entries if p.name.endswith(suffix) and not p.name.startswith(".")]


def check_named(path: Path, suffix: str, name: str, kind: str, error: type[Exception]) -> None:
    """`error` unless the document in `path` is named as its file is (`kind`: "skill")."""
    expected = path.name.removesuffix(suffix)
    if name != expected:
        raise error(
            f"{path}: the file is named {expected!r} but its {kind} is {name!r}: "
            f"rename the file to {name}{suffix}."
        )


def read_state(root: Path, model: type[_S]) -> _S:
    """The folder's state; the model's defaults when there is none or it cannot be read (all
    on: better than a crash, and the next change writes a good one)."""
    from pydantic import ValidationError

    try:
        return model.model_validate_json((root / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return model()


def save_state(root: Path, state: BaseModel) -> None:
    paths.ensure_private_dir(root)
    atomic_write(root / STATE_FILE, state.model_dump_json(indent=2) + "\n")
