"""Noticing that a folder of user-editable files changed (skills, chat-site adapters), however it
changed — the CLI, the side panel, an editor saving a file — by a cheap poll of its entries'
names, sizes and mtimes: no watcher thread, nothing platform-specific."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

Signature = tuple[tuple[str, int, int], ...]


def signature(root: Path) -> Signature:
    """The folder's entries as (name, size, mtime_ns); empty when it does not exist."""
    out = []
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for e in os.scandir(root):
            with contextlib.suppress(OSError):
                st = e.stat(follow_symlinks=False)
                out.append((e.name, st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


class DirWatch:
    """Calls `changed` when the folder `root()` gives differs from what `seen()` last noted.
    `what` names the files in the log."""

    def __init__(
        self, root: Callable[[], Path], changed: Callable[[], None], poll_s: float, what: str
    ) -> None:
        self.root = root
        self.changed = changed
        self.poll_s = poll_s
        self.what = what
        self._seen: Signature | None = None
        self.task: asyncio.Task[None] | None = None

    def seen(self) -> None:
        """What the folder holds now is what the listener has (call it before reading it)."""
        self._seen = signature(self.root())

    def start(self) -> None:
        """Polls from now on (once; without a running loop, as in a sync test, it does not)."""
        if self.task is None or self.task.done():
            with contextlib.suppress(RuntimeError):
                self.task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)
            try:
                if signature(self.root()) != self._seen:
                    self.changed()
            except Exception:
                log.exception("watching the %s failed", self.what)
