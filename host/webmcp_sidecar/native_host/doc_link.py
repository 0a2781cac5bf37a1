"""The host's side of the user's documents (documents/): for each kind, a `DocLink` that keeps
the worker's copy and does the side panel's operations, and one plugin that routes both
messages to them by kind, for every kind (`Documents`: `doc_get`, answered by `docs`;
`panel_doc`, answered by `doc_answer`; wire/doc_messages.py).

The worker asks for a kind's documents (`doc_get {kind}`, after `host_hello`: it has nothing
then) and gets the enabled ones (`docs {kind, docs}`), if the kind `feeds_worker`; again within
`poll_s` of any change to the folder (DirWatch: the CLI, an editor saving a file) or after the
side panel changed one; never twice the same bytes. The store (and pydantic's models) load on
first use, not at host start: the host's cold start must not grow.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from webmcp_sidecar.native_host.dir_watch import DirWatch
from webmcp_sidecar.native_host.panel_requests import answer_panel, need
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import DOC_KIND_PATTERN, DOCS_PANEL_TYPES

if TYPE_CHECKING:
    from webmcp_sidecar.documents.kind import DocKind
    from webmcp_sidecar.native_host.app import Host

log = logging.getLogger(__name__)

POLL_S = 1.0


class DocLink:
    """Host plugin (native_host/plugins.py) of one kind: the worker's copy of its documents. A
    subclass names its `KIND` (and adds what is the kind's own: its `HANDLES`); the documents'
    own messages come through `Documents`."""

    KIND: ClassVar[DocKind]
    HANDLES: ClassVar[dict[str, str]] = {}

    def __init__(self, host: Host, root: Path | None = None, poll_s: float = POLL_S) -> None:
        self.host = host
        self.kind = self.KIND
        self.root = root
        self.poll_s = poll_s
        self._store: Any = None
        self._sent: bytes | None = None
        self.watch = DirWatch(lambda: self.store().root, self.push, poll_s, self.kind.name)

    def store(self) -> Any:
        if self._store is None:
            self._store = self.kind.open(self.root)
        return self._store

    # --- the worker ----------------------------------------------------------------------------

    def on_get(self, raw: dict[str, Any], payload: bytes) -> None:
        """`doc_get` of this kind: the worker (re)connected and has nothing, so it gets the list
        even if unchanged."""
        self._sent = None
        self.push()
        self.watch.start()

    def push(self) -> None:
        """Sends the enabled documents if they differ from what the worker has."""
        if not self.kind.feeds_worker:
            return
        try:
            self.watch.seen()
            docs = self.store().effective()
        except Exception as e:  # a broken store must not take the host down
            log.error("%s could not be loaded: %s", self.kind.name, e)
            docs = []
        payload = dumps({"type": "docs", "kind": self.kind.name, "docs": docs})
        if payload == self._sent:
            return
        log.info("sending %d %s to the extension", len(docs), self.kind.name)
        if self._sent is not None and self.kind.push_to_panels:  # a change, not the worker's
            self._panel_push()  # first look: the side panels see it too
        self._sent = payload
        self.host.send_to_browser(payload)

    # --- the side panel (through Documents) ----------------------------------------------------

    def on_panel(self, raw: dict[str, Any], payload: bytes) -> None:
        """A `panel_doc` request of this kind: one `doc_answer` answers it, whatever happens."""
        from webmcp_sidecar.wire.doc_messages import DocAnswer, PanelDoc

        def answer(**kw: Any) -> DocAnswer:
            return DocAnswer(kind=self.kind.name, **kw)

        try:
            error = type(self.store()).Error.__name__  # the kind's own: its message is for the user
        except Exception:  # a store that cannot open: _do fails the same way, and is answered
            error = ""
        answer_panel(raw, PanelDoc, answer, self._do, self._send, error)

    def _do(self, req: Any) -> Any:
        from webmcp_sidecar.wire.doc_messages import DocAnswer

        def answer(**kw: Any) -> DocAnswer:
            return DocAnswer(kind=self.kind.name, id=req.id, **kw)

        store = self.store()
        if req.kind != self.kind.name:
            raise ValueError(f"this is the {self.kind.name} plugin, not {req.kind}'s")
        if req.op == "list":
            return answer(ok=True, docs=self._infos())
        if req.op == "get":
            return answer(ok=True, text=store.text(need(req, "name")))
        if req.op == "schema":
            return answer(ok=True, text=store.schema_text())
        if req.op in ("validate", "save"):
            problems = store.validate_text(need(req, "text"), self.kind.source)
            if req.op == "validate" or problems:
                return answer(ok=not problems, problems=problems)
            store.add_text(need(req, "text"), replace=True, source="the side panel")
        elif req.op == "remove":
            store.remove(need(req, "name"))
        elif req.op in ("enable", "disable"):
            store.set_enabled(need(req, "name"), req.op == "enable", req.tool)
        self.push()  # the worker hears of the change now, not at the next poll
        return answer(ok=True, docs=self._infos())

    def _infos(self) -> list[dict[str, Any]]:
        return [json.loads(i.model_dump_json()) for i in self.store().list()]

    def _panel_push(self) -> None:
        """The documents as `list` answers them, to every side panel: a `doc_answer` whose `id`
        is empty (no request's)."""
        from webmcp_sidecar.wire.doc_messages import DocAnswer

        try:
            infos = self._infos()
        except Exception as e:  # the worker's copy still goes out
            log.warning("%s not pushed to the side panel: %s", self.kind.name, str(e)[:200])
            return
        self._send(DocAnswer(kind=self.kind.name, id="", ok=True, docs=infos))

    def _send(self, msg: Any) -> None:
        self.host.send_to_browser(dumps(msg.model_dump(mode="json", exclude_none=True)))


def link_class(kind: DocKind) -> type[DocLink]:
    """The DocLink of a kind that needs nothing of its own (skills_link.py is one written out)."""
    return type(f"DocLink_{kind.name}", (DocLink,), {"KIND": kind, "__module__": __name__})


class Documents:
    """Host plugin (native_host/plugins.py): the documents' messages, for every kind, to that
    kind's DocLink: the worker's `doc_get` and the side panel's `panel_doc`."""

    HANDLES: ClassVar[dict[str, str]] = {"doc_get": "on_get", **dict.fromkeys(DOCS_PANEL_TYPES, "on_panel")}

    def __init__(self, host: Host, links: list[DocLink]) -> None:
        self.host = host
        self.links = {link.kind.name: link for link in links}

    def on_get(self, raw: dict[str, Any], payload: bytes) -> None:
        """The worker's word is data: a kind that is not a name, or that this host has not or
        does not feed, is logged and ignored (the worker asks for what it uses)."""
        kind = raw.get("kind")
        link = self.links.get(kind) if isinstance(kind, str) else None
        if link is not None and link.kind.feeds_worker:
            link.on_get(raw, payload)
            return
        if isinstance(kind, str) and re.match(DOC_KIND_PATTERN, kind):
            log.warning("doc_get ignored: no documents of the kind %r are fed to the worker", kind)
        else:
            log.warning("doc_get ignored: its kind is not a kind's name: %.80r", kind)

    def on_panel(self, raw: dict[str, Any], payload: bytes) -> None:
        kind = raw.get("kind")
        link = self.links.get(kind) if isinstance(kind, str) else None
        if link is not None:
            link.on_panel(raw, payload)
            return
        call_id = raw.get("id")
        if isinstance(call_id, str) and call_id:  # a kind this host has not: say so, once
            kind = str(kind)[:40]
            answer = {"type": "doc_answer", "kind": kind, "id": call_id[:100], "ok": False,
                      "error": f"bad request: no documents of the kind {kind!r} here"}  # fmt: skip
            self.host.send_to_browser(dumps(answer))
