"""A folder of user documents the worker keeps a copy of (skills, chat-site adapters): sent on
the worker's `*_get` (it has nothing then), and again within `poll_s` of any change to the folder
(DirWatch) or after the side panel changed one; never twice the same bytes.

The store (and pydantic's models) load on first use, not at host start: the host's cold start
must not grow. Subclasses say which store, which message carries its `effective()` list, and what
else a change should do."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from webmcp_sidecar.native_host.dir_watch import DirWatch

if TYPE_CHECKING:
    from webmcp_sidecar.native_host.app import Host

log = logging.getLogger(__name__)

POLL_S = 1.0


class _Store(Protocol):
    root: Path

    def effective(self) -> list[dict[str, Any]]: ...


StoreT = TypeVar("StoreT", bound=_Store)


class DocFeed(Generic[StoreT]):
    what = "documents"  # for the log: "skills", "chat-site adapters"

    def __init__(self, host: Host, root: Path | None = None, poll_s: float = POLL_S) -> None:
        self.host = host
        self.root = root
        self.poll_s = poll_s
        self._store: StoreT | None = None
        self._sent: bytes | None = None
        self.watch = DirWatch(lambda: self.store().root, self.push, poll_s, self.what)

    def open_store(self, root: Path | None) -> StoreT:
        raise NotImplementedError

    def payload(self, docs: list[dict[str, Any]]) -> bytes:
        """The worker's message holding `docs`, encoded."""
        raise NotImplementedError

    def changed(self, docs: list[dict[str, Any]], first: bool) -> None:
        """Called with a new list before it goes to the worker; `first`: the worker's first look."""

    def store(self) -> StoreT:
        if self._store is None:
            self._store = self.open_store(self.root)
        return self._store

    def on_get(self, raw: dict[str, Any], payload: bytes) -> None:
        """The worker (re)connected: it has nothing, so it gets the list even if unchanged."""
        self._sent = None
        self.push()
        self.watch.start()

    def push(self) -> None:
        """Sends the enabled documents if they differ from what the worker has."""
        try:
            self.watch.seen()
            docs = self.store().effective()
        except Exception as e:  # a broken store must not take the host down
            log.error("%s could not be loaded: %s", self.what, e)
            docs = []
        payload = self.payload(docs)
        if payload == self._sent:
            return
        self.changed(docs, first=self._sent is None)
        self._sent = payload
        self.host.send_to_browser(payload)
