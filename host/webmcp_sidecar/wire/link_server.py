"""A loopback WebSocket server that only the extension's service worker can open: the MCP entry's
link (mcp_server/entry_link.py) is one.

Who may use it: only the extension. Its owner offers it to the worker (port and a random token
made for that offer, never written anywhere else, sent over native messaging), and a connection is
refused before the WebSocket upgrade unless its Origin is the extension's and its path carries
the token. A web page can reach a loopback port but can neither forge its Origin nor read the
token; a local process can forge an Origin but has no token. A token opens one connection: it is
spent when that connection is admitted (so a token Chromium printed in a console after a failed
attempt, or one a process read somewhere, opens nothing later), and while the link is open no
other connection is admitted. Before admission a connection gets little: `OPEN_TIMEOUT`
seconds, `MAX_HEADERS` header lines, and at most `MAX_CONNECTIONS` at once of those that have sent
a request line without the current offer's token; one whose request line shows that token is
never cut, and silent ones are cut oldest first past `MAX_SILENT`, so a local process holding
connections open cannot keep the worker out. Frames from the worker: at most `MAX_LINK_FRAME`
bytes. An offer the worker does not open in time is made again; past a few, after a growing pause
(never given up: a local process that held the slots for a while cannot switch the link off).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.asyncio.server import Server, ServerConnection
    from websockets.http11 import Request, Response

from webmcp_sidecar.wire.constants import LINK_HOST, LINK_PATH_PREFIX
from webmcp_sidecar.wire.constants import MAX_LINK_FRAME as MAX_LINK_FRAME  # (wire/constants.py says why)

log = logging.getLogger(__name__)

# The path a worker opens: PATH_PREFIX + the token.
PATH_PREFIX = LINK_PATH_PREFIX
# Refused connections logged at most this many times per host (a page may scan ports).
MAX_REFUSALS_LOGGED = 5
# Connections at once that have sent a request line without the current offer's token: a flood
# of half-open handshakes is cut here (the new one over the cap). A connection whose request line
# shows the token (the worker's) is not counted and never cut.
MAX_CONNECTIONS = 8
# Connections at once that have sent no request line yet: past this the *oldest* is cut, never the
# newest, so the worker's connection (which sends its request line at once) gets in.
MAX_SILENT = 56
# Seconds a connection has to finish its opening handshake.
OPEN_TIMEOUT = 2.0
# Header lines in a handshake (the library's default is 128 of up to 8 KiB each).
MAX_HEADERS = 64
# Frames buffered from the worker before the library stops reading (its default is 16).
MAX_QUEUE = 4
# Seconds the worker has to open an offer; then its token is withdrawn and `on_unanswered` asks
# for a new one (the worker tries an offer once, and a local process may hold the connection
# slots then); past MAX_UNANSWERED such offers in a row, the next comes after a pause that
# doubles each time, up to MAX_BACKOFF seconds. The link never stops for good on this.
OFFER_WAIT = 5.0
MAX_UNANSWERED = 3
MAX_BACKOFF = 300.0
# Bytes of a connection's head read for its request line.
MAX_REQUEST_LINE = 8192


class LinkServer:
    """The listening end: the server, the worker's connection when there is one, and `send`."""

    def __init__(
        self,
        origin: str,
        on_frame: Callable[[bytes], None],
        on_drop: Callable[[], None],
        name: str,
        on_unanswered: Callable[[], None] | None = None,
    ) -> None:
        """name: the link's, in log lines;
        on_unanswered: an offer was withdrawn, not taken within OFFER_WAIT: make a new one."""
        self.name = name
        self.on_unanswered = on_unanswered
        self.unanswered = 0
        self._wait: asyncio.TimerHandle | None = None
        # Chrome gives the host its caller's origin with a trailing slash; browsers send none.
        self.origin = origin.rstrip("/")
        # The token of the latest offer, until a connection spends it.
        self.token: str | None = None
        self.port: int | None = None
        self._on_frame = on_frame
        self._on_drop = on_drop
        self._server: Server | None = None
        self._conn: ServerConnection | None = None
        self._refusals = 0
        # Connections that sent a request line without the token (counted), and silent ones.
        self._counted = 0
        self._silent: dict[object, asyncio.Transport] = {}
        self._closing = False

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    def offer(self) -> dict[str, object]:
        """`port` and a new `token` for the worker's offer message (after `start` returned a
        port): an older offer's token opens nothing any more."""
        self.token = token = secrets.token_urlsafe(32)
        if self._wait is not None:
            self._wait.cancel()
        self._wait = asyncio.get_running_loop().call_later(OFFER_WAIT, self._expire, token)
        return {"port": self.port, "token": token}

    def _expire(self, token: str) -> None:
        self._wait = None
        if self._conn is not None or self.token != token:
            return  # taken (admission spends the token), or offered again since
        self.token = None
        self.unanswered += 1
        log.info("the %s was not opened in time: its offer is withdrawn", self.name)
        if self.on_unanswered is None:
            return
        if self.unanswered <= MAX_UNANSWERED:
            self.on_unanswered()
            return
        pause = min(OFFER_WAIT * 2 ** (self.unanswered - MAX_UNANSWERED), MAX_BACKOFF)
        log.warning(
            "the %s was not opened %d times in a row: the slower way for now, offered again in %.0f s",
            self.name,
            self.unanswered,
            pause,
        )
        self._wait = asyncio.get_running_loop().call_later(pause, self._offer_again)

    def _offer_again(self) -> None:
        self._wait = None
        if not self._closing and self._conn is None and self.on_unanswered is not None:
            self.on_unanswered()

    def _shows_token(self, line: bytes) -> bool:
        """Whether a request line (`GET /link/<token> HTTP/1.1`) carries the current token."""
        parts = line.split(b" ")
        prefix = PATH_PREFIX.encode()
        token = self.token
        return (
            token is not None
            and len(parts) == 3
            and parts[1].startswith(prefix)
            and hmac.compare_digest(parts[1][len(prefix) :], token.encode())
        )

    async def start(self) -> int | None:
        """Listen on 127.0.0.1 (a free port); the port, or None when it cannot (then the native
        port carries everything, as before)."""
        from websockets import http11
        from websockets.asyncio.server import ServerConnection, serve

        # The library logs each connection at INFO and a failed handshake with its traceback:
        # nothing of ours, and a scanning page or process would fill the log. Refusals are
        # logged here, capped.
        logging.getLogger("websockets").setLevel(logging.CRITICAL)
        # Read by the library's parser at each request; nothing else in the host uses it.
        http11.MAX_NUM_HEADERS = min(http11.MAX_NUM_HEADERS, MAX_HEADERS)
        link = self

        class Counted(ServerConnection):
            """Sorts this link's connections by their request line (see MAX_CONNECTIONS and
            MAX_SILENT) and cuts those over the caps."""

            head = b""
            kind = "silent"  # then "counted", "ours" (the token shown) or "cut"

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                if not isinstance(transport, asyncio.Transport):
                    return
                link._silent[self] = transport
                if len(link._silent) > MAX_SILENT:
                    oldest = next(iter(link._silent))
                    oldest.kind = "cut"  # type: ignore[attr-defined]
                    link._silent.pop(oldest).abort()

            def data_received(self, data: bytes) -> None:
                if self.kind == "silent":
                    self.head += data[: MAX_REQUEST_LINE - len(self.head)]
                    if b"\n" in self.head or len(self.head) >= MAX_REQUEST_LINE:
                        transport = link._silent.pop(self, None)
                        if link._shows_token(self.head.split(b"\n", 1)[0].rstrip(b"\r")):
                            self.kind = "ours"
                        else:
                            self.kind = "counted"
                            link._counted += 1
                            if link._counted > MAX_CONNECTIONS and transport is not None:
                                transport.abort()
                                return
                        self.head = b""
                if self.kind != "cut":
                    super().data_received(data)

            def connection_lost(self, exc: Exception | None) -> None:
                if self.kind == "silent":
                    link._silent.pop(self, None)
                elif self.kind == "counted":
                    link._counted -= 1
                self.kind = "gone"
                super().connection_lost(exc)

        try:
            self._server = await serve(
                self._serve,
                LINK_HOST,
                0,
                process_request=self._admit,
                create_connection=Counted,
                compression=None,
                open_timeout=OPEN_TIMEOUT,
                max_size=MAX_LINK_FRAME,
                max_queue=MAX_QUEUE,
            )
        except OSError as e:
            log.warning("no %s, its messages take the slower way: %s", self.name, e)
            return None
        if self._closing:  # stopped while it started: listen to nobody
            self._server.close()
            return None
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    def _admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """Before the upgrade: one Origin, the extension's, and the latest offer's token, which
        this spends; or 403. Nothing in the request can make this raise."""
        origins = request.headers.get_all("Origin")
        origin = origins[0] if len(origins) == 1 else ""
        path = request.path
        token = path[len(PATH_PREFIX) :] if path.startswith(PATH_PREFIX) else ""
        expected = self.token
        if (
            expected is not None
            and self._conn is None
            and origin == self.origin
            and hmac.compare_digest(token.encode("utf-8", "replace"), expected.encode())
        ):
            self.token = None
            self.unanswered = 0  # a later run of unanswered offers starts its pauses afresh
            return None
        if len(origins) > 1:
            origin = "several"
        self._refusals += 1
        if self._refusals <= MAX_REFUSALS_LOGGED:
            shown = origin[:100].encode("ascii", "replace").decode() or "none"
            log.warning("refused a connection to the %s (Origin: %s)", self.name, shown)
        return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")

    async def _serve(self, conn: ServerConnection) -> None:
        from websockets.exceptions import ConnectionClosed

        if self._conn is not None:  # admitted only while none is open; never two
            await conn.close()
            return
        self._conn = conn
        log.info("%s open", self.name)
        try:
            while True:
                # Bytes, text frames undecoded: the host reads a result's head as bytes.
                self._on_frame(await conn.recv(decode=False))
        except ConnectionClosed as e:
            log.info("%s closed: %s", self.name, e)
        finally:
            if self._conn is conn:
                self._conn = None
                if not self._closing:  # the host stopping is no drop to answer or re-offer
                    self._on_drop()

    def send(self, payload: bytes) -> bool:
        """One message to the worker over the link; False when it is not open (use the native
        port). Written at once, as the native port's writer does: a call's frame is small.
        (`protocol.send_text` + `send_data` is the library's own path under its async `send`,
        without a task per frame; pyproject.toml bounds the version, and every test that
        calls over the link would fail if it moved. Speed only (bench.entry, "MCP entry
        alone", link series): drop it when `await conn.send` is within the A/A noise.)"""
        conn = self._conn
        if conn is None:
            return False
        try:
            conn.protocol.send_text(payload)
            conn.send_data()
        except Exception as e:  # closing: the library raises InvalidState
            log.debug("%s send failed: %s", self.name, e)
            return False
        return True

    def stop(self) -> None:
        """Stops listening and starts closing the link (the library finishes in the background);
        no drop is reported for it."""
        self._closing = True
        self.token = None
        if self._wait is not None:
            self._wait.cancel()
        if self._server is not None:
            self._server.close()

    async def close(self) -> None:
        """`stop`, then waits until the link is closed."""
        self.stop()
        if self._server is not None:
            await self._server.wait_closed()
