"""The native host: one per browser profile, started by the browser (`connectNative`).

It is composed of three parts, each of which knows only those below it:
- `link` (browser_link.py): the native port, its chunks, the handshake, the mirror of the
  browser's sites;
- `router` (router.py): the calls into the browser, each with its way back, in one table, and
  the one `route_result` every result passes;
- `entries` (entry_server.py): the MCP entries' connections, their admission and sessions.
The Host joins them: it dispatches the browser's messages through one table (`ROUTES`, plus the
plugins' `HANDLES`), and is what the plugins see (agent/port.py's `HostPort`).
"""

from __future__ import annotations

import logging
import sys
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from webmcp_sidecar.native_host import first_answer
from webmcp_sidecar.native_host.browser_link import BrowserLink
from webmcp_sidecar.native_host.entry_server import EntryServer, short_error
from webmcp_sidecar.native_host.plugins import Handler, Plugin
from webmcp_sidecar.native_host.router import Router
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.wire.codec import parse_payload

if TYPE_CHECKING:
    from collections.abc import Mapping

    from webmcp_sidecar.wire import messages as m

log = logging.getLogger(__name__)


class Host:
    # The parts, by the attribute that holds each (ROUTES names their methods; gen_js reads it).
    PARTS: ClassVar[dict[str, type]] = {"link": BrowserLink, "router": Router, "entries": EntryServer}

    # The browser's messages: type -> the part's method for them; the plugins add theirs (`add`).
    # docs/PROTOCOL.md's "Routes in the host" is made from this and the plugins' HANDLES by
    # `python -m webmcp_sidecar.gen_js`. Before the table, two pre-filters on the hot path:
    # `result_by_head` (a result routed by the id at its head, unparsed) and `link.on_chunk` (a
    # long result's pieces checked by hand, not by the model).
    ROUTES: ClassVar[dict[str, str]] = {
        "result": "router.on_result",
        "chunk": "link.on_chunk",
        "session_tabs": "entries.to_session",
        "hello": "link.on_hello",
        "ping": "link.on_ping",
        "site_tools": "link.on_site_tools",
        "registry": "link.on_registry",
        "log": "link.on_log",
    }

    def __init__(self, origin: str, to_browser: FrameWriter, *, origin_from_hello: bool = False) -> None:
        """origin_from_hello: Firefox started us; the origin comes with the first hello."""
        self.link = BrowserLink(
            origin,
            to_browser,
            origin_from_hello=origin_from_hello,
            on_frame=self.on_browser_frame,
            on_hello=lambda: self.entries.on_hello(),
            on_sites=lambda payload: self.entries.broadcast(payload),
        )
        self.router = Router(self.link.send, lambda call_id: self.entries.way_of(call_id))
        self.entries = EntryServer(self.link, self.router)
        self.routes: dict[str, Handler] = {k: attrgetter(v)(self) for k, v in self.ROUTES.items()}
        _read_buffers_from_the_heap()

    def add(self, plugin: Plugin) -> None:
        """A plugin's message types routed to it; a type routed twice is a mistake of ours."""
        for kind, method in plugin.HANDLES.items():
            if kind in self.routes:
                raise ValueError(f"browser message type {kind!r} is routed twice")
            self.routes[kind] = getattr(plugin, method)

    def on_browser_frame(self, payload: bytes) -> None:
        if self.result_by_head(payload):
            return
        try:
            raw = parse_payload(payload)
            self.on_browser_message(raw, payload)
        except Exception as e:
            if first_answer.is_bad_frame(e):
                log.warning("bad frame from the browser dropped: %s", short_error(e))
            else:
                # One frame must never end the browser pump: the host would stay alive but deaf.
                log.exception("a frame from the browser failed and was skipped")

    def result_by_head(self, payload: bytes) -> bool:
        """Hot path: a result routed by the id at its head, without parsing the whole frame (the
        worker writes `type` and `id` first); False: take the full parse. Speed only
        (bench.large, bench/README.md "Host hop alone": `json.loads` of a 5 MiB result is ~8 ms
        the entry pays anyway): drop it when that parse is under 1 ms."""
        if not payload.startswith(_RESULT_HEAD):
            return False
        end = payload.find(b'"', len(_RESULT_HEAD))
        call_id = payload[len(_RESULT_HEAD) : end].decode("utf-8", "replace")
        return end > 0 and "\\" not in call_id and self.router.route_result(call_id, payload)

    def on_browser_message(self, raw: dict[str, Any], payload: bytes) -> None:
        kind = raw.get("type")
        if self.link.mismatch and kind not in _LINK_TYPES:
            return  # an extension of another protocol is refused (it was told, in `host_hello`)
        handler = self.routes.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(raw, payload)
            return
        from webmcp_sidecar.wire import messages as m

        m.extension_message.validate_python(raw)  # a type nobody routes: said if unknown

    # What the plugins see of the host (agent/port.py `HostPort`).

    @property
    def sites(self) -> Mapping[str, list[m.Tool]]:
        return self.link.sites

    @property
    def extension_connected(self) -> bool:
        return self.link.extension_connected

    def send_to_browser(self, payload: bytes) -> None:
        self.link.send(payload)

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        return await self.router.request(message, timeout)

    # The link's, as the Host showed them before it had parts (tests read them).

    @property
    def origin(self) -> str:
        return self.link.origin

    @property
    def to_browser(self) -> FrameWriter:
        return self.link.to_browser


_RESULT_HEAD = b'{"type":"result","id":"'
# What an extension of another protocol may still send: enough to be told, and to log; the
# answers to calls already out, and their pieces.
_LINK_TYPES = frozenset({"hello", "ping", "pong", "log", "chunk", "result", "session_tabs"})


def _read_buffers_from_the_heap() -> None:
    """asyncio reads each socket and pipe into a fresh 256 KiB buffer, cut to what arrived. On
    glibc a block that big comes from mmap (and goes back with mremap + munmap) while malloc's
    mmap threshold is at its 128 KiB start: three syscalls per read, two reads per routed call.
    Freeing a larger mmap'd block raises the threshold for good (mallopt(3), "dynamic mmap
    threshold"); whether the imports happened to do so varied with the environment (bench.host:
    0.17 against 0.09 ms host CPU per call). So do it once, on purpose: 1 MiB, freed at once.
    Speed only (bench.host, "Host hop alone"): drop it when an A/B shows under 0.01 ms a call."""
    if sys.platform.startswith("linux"):
        bytes(1 << 20)
