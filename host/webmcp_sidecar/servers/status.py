"""A server's last known status, kept beside its logs for `servers list` (another process) to
show. Apart from runner.py and manager.py so that `servers list` does not import the MCP SDK
(about half a second of its start)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from webmcp_sidecar import paths
from webmcp_sidecar.textfiles import atomic_write

State = Literal["stopped", "starting", "running", "crashed", "failed"]
STATUS_FILE = "status.json"


class ServerStatus(BaseModel):
    name: str
    kind: Literal["stdio", "http", "sse"]
    enabled: bool
    state: State
    tools: int
    last_error: str | None = None
    pid: int | None = None


def save_status(log_dir: Path, statuses: list[ServerStatus]) -> None:
    """The last known status, beside the logs, for `servers list` (another process) to show.
    Merged by name: a manager writes only the servers it ran (last writer wins for those)."""
    merged = load_status(log_dir) | {s.name: s for s in statuses}
    data = json.dumps({"at": time.time(), "servers": [s.model_dump(mode="json") for s in merged.values()]})
    try:
        paths.ensure_private_dir(log_dir)
        atomic_write(log_dir / STATUS_FILE, data + "\n")
    except OSError:
        pass  # only informative


def load_status(log_dir: Path) -> dict[str, ServerStatus]:
    try:
        raw = json.loads((log_dir / STATUS_FILE).read_text(encoding="utf-8"))
        return {s["name"]: ServerStatus.model_validate(s) for s in raw["servers"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
