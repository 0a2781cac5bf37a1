"""The native host: one per browser profile, started by Chrome through connectNative.

It mirrors the extension's domain registry and serves it to MCP entries over the local socket.
Calls from entries go to the extension and results come back; both are routed by id and their
frame bytes forwarded as they are (the two links share the message shapes). This module is the
Host and its browser side; the entries' side is `entries.EntrySide`, its base class.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, ClassVar

from webmcp_sidecar.native_host import first_answer
from webmcp_sidecar.native_host.entries import EntryConn, EntrySide, short_error
from webmcp_sidecar.native_host.plugins import Handler, Plugin
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.wire.codec import (
    MAX_TO_BROWSER,
    FrameError,
    Reassembler,
    dumps,
    parse_payload,
    split_message,
)
from webmcp_sidecar.wire.constants import CALL_ID_SEP, CALLER_AGENT, PROTOCOL_VERSION, VERSION_MISMATCH
from webmcp_sidecar.wire.pending import PendingRequests

if TYPE_CHECKING:
    # pydantic and the models load with the first message that needs one, not at host start
    # (issue 14): the functions that use them import them.
    from webmcp_sidecar.wire import messages as m

log = logging.getLogger(__name__)



class Host(EntrySide):
    def __init__(self, origin: str, to_browser: FrameWriter) -> None:
        self.origin = origin
        # Started by Firefox: the origin comes with the first hello (native_host/launch.py).
        self.origin_from_hello = False
        self.to_browser = to_browser
        self.sites: dict[str, list[m.Tool]] = {}
        self.notices: dict[str, str] = {}  # site -> what the extension cut of it
        self.extension_version: str | None = None
        self.browser = ""
        # The extension speaks another protocol: what to say instead of serving it.
        self.mismatch: str | None = None
        self.conns: dict[str, EntryConn] = {}
        self.pending: dict[str, EntryConn] = {}  # call id -> the entry that made it
        self.own_pending: PendingRequests[dict[str, Any]] = PendingRequests()  # the host's own calls
        self.routes: dict[str, Handler] = {k: getattr(self, v) for k, v in self.ROUTES.items()}
        self._conn_ids = itertools.count(1)
        self._chunk_ids = itertools.count(1)
        self._chunks = Reassembler()
        self.host_id = f"{os.getpid()}"
        self.token = ""  # set when the link is loopback TCP (Windows)
        _read_buffers_from_the_heap()

    @property
    def extension_connected(self) -> bool:
        return self.extension_version is not None

    def send_to_browser(self, payload: bytes) -> None:
        if len(payload) + 4 <= MAX_TO_BROWSER:
            self.to_browser.write(payload)
            return
        cid = f"h{next(self._chunk_ids)}"
        for piece in split_message(payload.decode(), cid, MAX_TO_BROWSER - 4):
            self.to_browser.write(piece)

    def send_cancel(self, call_id: str) -> None:
        self.send_to_browser(dumps({"type": "cancel", "id": call_id}))

    # The browser's messages: type -> the Host's method for them; the plugins add theirs
    # (`add`). docs/ARCHITECTURE.md's "Routes in the host" is made from this and the plugins'
    # HANDLES by `python -m webmcp_sidecar.gen_js`. Before it, two pre-filters on the hot path:
    # `result_by_head` (a result routed by the id at its head, unparsed) and `_on_chunk` (a long
    # result's pieces checked by hand, not by the model).
    ROUTES: ClassVar[dict[str, str]] = {
        "result": "_on_result",
        "chunk": "_on_chunk",
        "session_tabs": "_to_session",
        "hello": "_on_hello_message",
        "ping": "_on_ping",
        "site_tools": "_on_site_tools",
        "registry": "_on_registry",
        "log": "_on_log",
    }

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
        """Hot path: a result for an entry routed by the id at its head, without parsing the
        whole frame (the worker writes `type` and `id` first); False: take the full parse.
        Speed only (bench.large, bench/README.md "Host hop alone": `json.loads` of a 5 MiB
        result is ~8 ms the entry pays anyway): drop it when that parse is under 1 ms."""
        if not payload.startswith(_RESULT_HEAD):
            return False
        end = payload.find(b'"', len(_RESULT_HEAD))
        call_id = payload[len(_RESULT_HEAD) : end].decode("utf-8", "replace")
        return end > 0 and "\\" not in call_id and self._route_result(call_id, payload)

    def _on_chunk(self, raw: dict[str, Any], payload: bytes) -> None:
        """A piece of a long message, mostly a long result (the worker sends one over 64 Ki
        characters in ~80 pieces a 5 MiB): checked by hand rather than by the model, for speed
        (80 model validations a 5 MiB result; bench.large); the whole message then goes through
        `on_browser_frame`, so a result is routed by its head."""
        cid, seq, last, data = raw.get("cid"), raw.get("seq"), raw.get("last"), raw.get("data")
        if not (
            isinstance(cid, str)
            and cid
            and type(seq) is int
            and isinstance(last, bool)
            and isinstance(data, str)
        ):
            raise FrameError(f"malformed chunk {str(seq)[:20]} of {str(cid)[:80]!r}")
        text = self._chunks.add(cid, seq, last, data)
        if text is not None:
            self.on_browser_frame(text.encode())

    def on_browser_message(self, raw: dict[str, Any], payload: bytes) -> None:
        kind = raw.get("type")
        if self.mismatch and kind not in _LINK_TYPES:
            return  # an extension of another protocol is refused (it was told, in `host_hello`)
        handler = self.routes.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(raw, payload)
            return
        from webmcp_sidecar.wire import messages as m

        m.extension_message.validate_python(raw)  # a type nobody routes: said if unknown

    def _on_result(self, raw: dict[str, Any], payload: bytes) -> None:
        call_id = str(raw.get("id"))
        if not self._route_result(call_id, payload):
            self.own_pending.resolve(call_id, raw)

    def _to_session(self, raw: dict[str, Any], payload: bytes) -> None:
        """Addressed to one entry session (by its `session` = conn id)."""
        target = self.conns.get(str(raw.get("session")))
        if target is not None:
            target.send_payload(payload)

    def _on_ping(self, raw: dict[str, Any], payload: bytes) -> None:
        ping_id = first_answer.plain_ping(raw)
        if ping_id is None:
            from webmcp_sidecar.wire import messages as m

            ping_id = m.Ping.model_validate(raw).id
        self.send_to_browser(dumps(first_answer.pong(ping_id)))

    def _on_hello_message(self, raw: dict[str, Any], payload: bytes) -> None:
        hello = first_answer.plain_hello(raw)
        if hello is None:
            from webmcp_sidecar.wire import messages as m

            msg = m.Hello.model_validate(raw)
            hello = (msg.extension_version, msg.browser, msg.protocol, msg.origin)
        self._on_hello(*hello)

    def _on_site_tools(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.SiteTools.model_validate(raw)
        known = msg.site in self.sites or msg.site in self.notices
        if not msg.tools and not msg.notice and not known:
            return  # a site nobody has went away (e.g. its only tool was dropped)
        if msg.tools:
            self.sites[msg.site] = msg.tools
        else:
            self.sites.pop(msg.site, None)
        if msg.notice:
            self.notices[msg.site] = msg.notice
        else:
            self.notices.pop(msg.site, None)
        self.broadcast(payload if _kept_all(raw, msg) else _encode(msg))

    def _on_registry(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.Registry.model_validate(raw)
        self.sites = {site: tools for site, tools in msg.sites.items() if tools}
        self.notices = dict(msg.notices)
        self.broadcast(payload if _kept_all(raw, msg) else _encode(msg))

    def _on_log(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.Log.model_validate(raw)
        log.log(logging.getLevelName(msg.level.upper()), "extension: %s", msg.message[:2000])

    def _on_hello(self, extension_version: str, browser: str, protocol: int,
                  origin: str = "") -> None:
        self.send_to_browser(dumps(first_answer.host_hello()))
        if self.origin_from_hello and not self.origin:
            from webmcp_sidecar.native_host.launch import moz_origin

            self.origin = moz_origin(origin)
        if protocol != PROTOCOL_VERSION:
            self.mismatch = VERSION_MISMATCH.format(extension=protocol, host=PROTOCOL_VERSION)
            log.error("extension %s refused: %s", extension_version[:50], self.mismatch)
            self.extension_version = None
            self.sites, self.notices = {}, {}
        else:
            self.mismatch = None
            self.extension_version = extension_version
            self.browser = browser
            log.info("extension %s connected (%s)", extension_version, browser)
            for conn in self.conns.values():  # entries that offered their links before
                self.pass_entry_link(conn)
        if self.conns:  # no Status model built when nobody listens (at the first hello)
            self.broadcast(dumps(self.status().model_dump()))

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The host's own call into the browser (the side panel's agent uses it).

        Fills in the id, waits for the result; cancelling the wait cancels the page's work.
        """
        call_id = message["id"] = self.own_pending.open(prefix=CALLER_AGENT + CALL_ID_SEP)
        self.send_to_browser(dumps(message))
        try:
            return await self.own_pending.wait(call_id, timeout)
        except (asyncio.CancelledError, TimeoutError):
            self.send_cancel(call_id)
            raise

    def status(self) -> m.Status:
        from webmcp_sidecar.wire import messages as m

        return m.Status(
            extension_connected=self.extension_connected,
            extension_version=self.extension_version,
            browser=self.browser,
            extension_origin=self.origin,
        )


_RESULT_HEAD = b'{"type":"result","id":"'
# What an extension of another protocol may still send: enough to be told, and to log; the
# answers to calls already out, and their pieces.
_LINK_TYPES = frozenset({"hello", "ping", "pong", "log", "chunk", "result", "session_tabs"})


def _kept_all(raw: dict[str, Any], msg: m.SiteTools | m.Registry) -> bool:
    """Whether the model kept every tool the message carried (then its bytes go on as they are;
    else the entries get the cleaned message, never the tools the host dropped)."""
    if msg.type == "site_tools":
        return len(msg.tools) == len(raw.get("tools") or ())
    sites = raw.get("sites") or {}
    return len(msg.sites) == len(sites) and all(
        len(tools) == len(sites.get(site) or ()) for site, tools in msg.sites.items()
    )


def _encode(msg: m.SiteTools | m.Registry) -> bytes:
    if msg.type == "registry":
        msg = msg.model_copy(update={"sites": {s: t for s, t in msg.sites.items() if t}})
    return dumps(msg.model_dump(exclude_none=True))


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
