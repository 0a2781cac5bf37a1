"""The host's side toward MCP entries: a local connection is admitted by its `entry_hello`, its
calls go to the browser under ids of its own (the connection is their way back, in the router's
table), and each entry's browser session is its connection's: `browser_call`s are stamped with
it, `session_tabs` reach it, `session_end` follows it out.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import os
from typing import TYPE_CHECKING, Any

from webmcp_sidecar.native_host import first_answer
from webmcp_sidecar.native_host.browser_link import BrowserLink
from webmcp_sidecar.native_host.router import Router
from webmcp_sidecar.texts import NO_EXTENSION
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import FrameError, dumps, parse_payload
from webmcp_sidecar.wire.constants import (
    CALL_ID_SEP,
    CONN_ID_PREFIX,
    ENTRY_MISMATCH,
    PANEL_SESSION,  # the side panel's own browser session: never an entry's
    PROTOCOL_VERSION,
    call_prefix,
)

if TYPE_CHECKING:
    # pydantic and the models load with the first message that needs one, not at host start
    # (issue 14): the functions that use them import them.
    from webmcp_sidecar.wire import messages as m

log = logging.getLogger("webmcp_sidecar.native_host.app")  # the logger these lines always had

# Entry messages that ask the browser for something; they carry an id and get one `result`.
ROUTED = frozenset({"call", "open_url", "browser_call"})
# How long a new connection has to introduce itself with `entry_hello`.
HELLO_TIMEOUT = 10.0

PANEL_REFUSED = (
    "Browser tools of MCP clients act in the client's own tabs; the side panel's session "
    "(`panel`) is not available to them."
)


class EntryConn:
    """One connected MCP entry; the way back of its calls (`deliver`)."""

    def __init__(self, conn_id: str, writer: asyncio.StreamWriter) -> None:
        self.id = conn_id
        self.prefix = conn_id + CALL_ID_SEP  # every call id of this entry begins so
        self.writer = writer
        self.client: str | None = None  # set by `session_info`
        self.mismatch: str | None = None  # the entry speaks another protocol: refuse its calls
        # The entry's link offer (`entry_link`), until it is passed on to the browser.
        self.link_offer: m.EntryLinkOffer | None = None

    def send_payload(self, payload: bytes) -> None:
        if not self.writer.is_closing():
            # writelines: no copy of a large payload just to prepend its 4-byte header.
            self.writer.writelines((localsock.header_of(payload), payload))

    deliver = send_payload


class EntryServer:
    def __init__(self, link: BrowserLink, router: Router) -> None:
        self.link = link
        self.router = router
        self.conns: dict[str, EntryConn] = {}
        self.host_id = f"{os.getpid()}"
        self.token = ""  # the endpoint's, which an entry's hello must show
        self._conn_ids = itertools.count(1)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = EntryConn(f"{CONN_ID_PREFIX}{next(self._conn_ids)}", writer)
        try:
            if not await self._admit(conn, reader):
                return
            while (payload := await localsock.read_frame(reader)) is not None:
                try:
                    raw = parse_payload(payload)
                    self.on_message(conn, raw, payload)
                except Exception as e:
                    if first_answer.is_bad_frame(e):
                        log.warning("bad frame from an MCP entry dropped: %s", short_error(e))
                    else:
                        log.exception("a frame from MCP entry %s failed and was skipped", conn.id)
        except ConnectionError as e:
            log.info("entry %s: %s", conn.id, e)
        finally:
            self.conns.pop(conn.id, None)
            self.router.abandon(conn)  # nobody waits for its calls any more: stop the pages' work
            if conn.client is not None and self.link.extension_connected:
                self.link.send(dumps({"type": "session_end", "session": conn.id}))
            writer.close()

    async def _admit(self, conn: EntryConn, reader: asyncio.StreamReader) -> bool:
        """Nothing a connection sends counts before its first frame, an `entry_hello` with this
        endpoint's token (loopback TCP: any local process can connect), proves it is an entry."""
        from pydantic import ValidationError

        from webmcp_sidecar.wire import messages as m

        hello: m.EntryHello | None = None
        try:
            async with asyncio.timeout(HELLO_TIMEOUT):
                payload = await localsock.read_frame(reader)
            if payload is not None:
                hello = m.EntryHello.model_validate(parse_payload(payload))
        except (TimeoutError, FrameError, ValidationError):
            hello = None
        if hello is None or not hmac.compare_digest(
            hello.token.encode("utf-8", "replace"), self.token.encode()
        ):
            log.warning("refused a local connection: it did not begin with a valid entry_hello")
            return False
        if hello.protocol != PROTOCOL_VERSION:
            # Kept open, so the entry does not reconnect in a loop; each call is told why.
            conn.mismatch = ENTRY_MISMATCH.format(entry=hello.protocol, host=PROTOCOL_VERSION)
            log.warning("MCP entry %s (pid %s) refused: %s", conn.id, hello.pid, conn.mismatch)
            welcome = m.Welcome(
                host_id=self.host_id, conn=conn.id, pid=os.getpid(), protocol=PROTOCOL_VERSION
            )
            conn.send_payload(dumps(welcome.model_dump(exclude_none=True)))
            return True
        self.conns[conn.id] = conn
        link = self.link
        welcome = m.Welcome(
            host_id=self.host_id,
            conn=conn.id,
            pid=os.getpid(),
            protocol=PROTOCOL_VERSION,
            browser=link.browser,
            extension_origin=link.origin,
            extension_version=link.extension_version,
            extension_connected=link.extension_connected,
            sites=link.sites,
            notices=link.notices,
        )
        conn.send_payload(dumps(welcome.model_dump(exclude_none=True)))
        log.info("MCP entry %s connected (%s, pid %s)", conn.id, hello.client[:100], hello.pid)
        return True

    def on_message(self, conn: EntryConn, raw: dict[str, Any], payload: bytes) -> None:
        """A frame of an admitted entry (after its hello)."""
        kind = raw.get("type")
        if conn.mismatch:
            if kind in ROUTED and isinstance(raw.get("id"), str):
                self._fail(conn, raw["id"], "bad_request", conn.mismatch)
            return
        if kind in ROUTED:
            call_id = raw.get("id")
            if not isinstance(call_id, str) or not call_id.startswith(conn.prefix):
                log.warning("entry %s sent a call with a foreign id %r", conn.id, call_id)
                return
            if kind == "browser_call":
                stamped = self._own_session(conn, call_id, raw)
                if stamped is None:
                    return
                payload = stamped
            if not self.link.extension_connected:
                self._fail(conn, call_id, "no_extension", self.link.mismatch or NO_EXTENSION)
                return
            self.router.send(call_id, payload, conn)
            return
        from webmcp_sidecar.wire import messages as m

        msg = m.entry_message.validate_python(raw)
        if isinstance(msg, m.Cancel):
            # Its own calls only (their ids begin with its prefix): those the host routed, and
            # those its entry link carried (the entry cancels these here when the link drops).
            if msg.id.startswith(conn.prefix):
                self.router.send_cancel(msg.id)
        elif isinstance(msg, m.EntryLinkOffer):
            conn.link_offer = msg
            self.pass_entry_link(conn)
        elif isinstance(msg, m.SessionInfo):
            # The MCP client introduced itself: the browser names the session's tab group after it.
            conn.client = msg.client
            if self.link.extension_connected:
                self.link.send(dumps(m.Session(session=conn.id, client=msg.client).model_dump()))
        elif isinstance(msg, m.Ping):
            conn.send_payload(dumps({"type": "pong", "id": msg.id}))

    def pass_entry_link(self, conn: EntryConn) -> None:
        """The entry's offer of its own link to the worker (mcp_server/entry_link.py), passed on
        with the connection id its calls' ids begin with; kept until the browser is there, not
        passed while the extension speaks another protocol."""
        offer = conn.link_offer
        if offer is None or not self.link.extension_connected or self.link.mismatch:
            return
        conn.link_offer = None
        self.link.send(
            dumps({"type": "entry_link", "conn": conn.id, "port": offer.port, "token": offer.token})
        )

    def on_hello(self) -> None:
        """The extension said hello: the links entries offered before are passed on, and every
        entry hears the browser's status."""
        for conn in self.conns.values():
            self.pass_entry_link(conn)
        if self.conns:  # no Status model built when nobody listens (at the first hello)
            self.broadcast(dumps(self.link.status().model_dump()))

    def way_of(self, call_id: str) -> EntryConn | None:
        """The entry a call's id names (the router's `way_of`)."""
        return self.conns.get(call_prefix(call_id))

    def to_session(self, raw: dict[str, Any], payload: bytes) -> None:
        """Addressed to one entry session (by its `session` = conn id)."""
        target = self.conns.get(str(raw.get("session")))
        if target is not None:
            target.send_payload(payload)

    def _own_session(self, conn: EntryConn, call_id: str, raw: dict[str, Any]) -> bytes | None:
        """A browser call runs in the session of the connection it came on, whatever it names;
        `panel` (the side panel's: the tab in view, any tab id) is refused, and so are local
        files outside the allowed upload folders. None: answered."""
        from pydantic import ValidationError

        from webmcp_sidecar.tools import uploads
        from webmcp_sidecar.tools.browser_tools import LOCAL_FILES
        from webmcp_sidecar.wire import messages as m

        if raw.get("session") == PANEL_SESSION:
            log.warning("entry %s asked for the side panel's browser session: refused", conn.id)
            self._fail(conn, call_id, "bad_request", PANEL_REFUSED)
            return None
        try:
            call = m.BrowserCall.model_validate({**raw, "session": conn.id, "tab_id": None})
        except ValidationError as e:
            self._fail(conn, call_id, "bad_request", f"Bad browser call: {short_error(e)}")
            return None
        if call.tool in LOCAL_FILES:
            # Our MCP server checks too, but any local process that passes the hello may send
            # this: the host hands no file to the browser without its own check. A few stats,
            # inline; the resolved paths go on (a link swapped after the check changes nothing).
            try:
                call.args = uploads.checked_args(call.args)
            except uploads.UploadRefused as e:
                self._fail(conn, call_id, "invalid_args", f"Not run. {e}")
                return None
        return dumps(call.model_dump(exclude_none=True))

    def _fail(self, conn: EntryConn, call_id: str, code: m.ErrorCode, message: str) -> None:
        from webmcp_sidecar.wire import messages as m

        res = m.Result(id=call_id, ok=False, error=m.CallError(code=code, message=message))
        conn.send_payload(dumps(res.model_dump(exclude_none=True)))

    def broadcast(self, payload: bytes) -> None:
        for conn in self.conns.values():
            conn.send_payload(payload)


def short_error(e: Exception) -> str:
    text = str(e)
    return text if len(text) < 300 else text[:300] + "..."
