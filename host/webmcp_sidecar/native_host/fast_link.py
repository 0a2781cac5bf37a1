"""The fast link: a WebSocket on the loopback interface that the extension's service worker opens
to this host beside its native messaging port. Site calls and every result take it while it is
open; everything else, and everything while it is down, takes the native port.

Why: Chromium's native messaging delivers about one call in ten several milliseconds late both
ways, while a loopback WebSocket from the worker does not (bench/README.md, "The fast link").

Who may use it: only the extension. The host offers it over native messaging (`fast_link`: the
port and a random token made for this host process, never written anywhere else), and a
connection is refused before the WebSocket upgrade unless its Origin is the extension's and its
path carries the token. A web page can reach a loopback port but can neither forge its Origin
nor read the token; a local process can forge an Origin but has no token. One worker at a time:
a newer authenticated connection replaces the older.

What crosses it: the native port's own messages, one per text frame, taken in by the same
`Host.on_browser_frame` (the same checks), at most `MAX_FROM_BROWSER` bytes each like the native
port's. When the link drops, every call still out is answered with an error at once (its result
may have been on the link), and the link is offered again, a few times at most.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING

from webmcp_sidecar.wire.constants import MAX_FROM_BROWSER

if TYPE_CHECKING:
    from websockets.asyncio.server import Server, ServerConnection
    from websockets.http11 import Request, Response

log = logging.getLogger(__name__)

# Setting this to "0" in the host's environment keeps everything on the native port.
FAST_LINK_ENV = "WEBMCP_SIDECAR_FAST_LINK"
# The path a worker opens: PATH_PREFIX + the token.
PATH_PREFIX = "/link/"
# Refused connections logged at most this many times per host (a page may scan ports).
MAX_REFUSALS_LOGGED = 5


class FastLink:
    """The host's end: the server, the worker's connection when there is one, and `send`."""

    def __init__(self, origin: str, on_frame: Callable[[bytes], None], on_drop: Callable[[], None]) -> None:
        # Chrome gives the host its caller's origin with a trailing slash; browsers send none.
        self.origin = origin.rstrip("/")
        self.token = secrets.token_urlsafe(32)
        self.port: int | None = None
        self._on_frame = on_frame
        self._on_drop = on_drop
        self._server: Server | None = None
        self._conn: ServerConnection | None = None
        self._refusals = 0

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    def offer(self) -> dict[str, object]:
        """The `fast_link` message for the worker (after `start` returned a port)."""
        return {"type": "fast_link", "port": self.port, "token": self.token}

    async def start(self) -> int | None:
        """Listen on 127.0.0.1 (a free port); the port, or None when it cannot (then the native
        port carries everything, as before)."""
        from websockets.asyncio.server import serve

        # The library logs each connection at INFO: nothing of ours, and a scanning page would
        # fill the log. Refusals are logged here, capped.
        logging.getLogger("websockets").setLevel(logging.WARNING)
        try:
            self._server = await serve(
                self._serve,
                "127.0.0.1",
                0,
                process_request=self._admit,
                compression=None,
                max_size=MAX_FROM_BROWSER,
            )
        except OSError as e:
            log.warning("no fast link, native messaging carries everything: %s", e)
            return None
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    def _admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """Before the upgrade: the extension's Origin and this host's token, or 403."""
        origin = request.headers.get("Origin", "")
        path = request.path
        token = path[len(PATH_PREFIX) :] if path.startswith(PATH_PREFIX) else ""
        if origin == self.origin and hmac.compare_digest(
            token.encode("utf-8", "replace"), self.token.encode()
        ):
            return None
        self._refusals += 1
        if self._refusals <= MAX_REFUSALS_LOGGED:
            shown = origin[:100].encode("ascii", "replace").decode() or "none"
            log.warning("refused a connection to the fast link (Origin: %s)", shown)
        return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")

    async def _serve(self, conn: ServerConnection) -> None:
        from websockets.exceptions import ConnectionClosed

        old, self._conn = self._conn, conn
        if old is not None:
            await old.close()  # its _serve sees it is no longer current: no drop for it
        log.info("fast link open")
        try:
            while True:
                # Bytes, text frames undecoded: on_browser_frame reads a result's head as bytes.
                self._on_frame(await conn.recv(decode=False))
        except ConnectionClosed as e:
            log.info("fast link closed: %s", e)
        finally:
            if self._conn is conn:
                self._conn = None
                self._on_drop()

    def send(self, payload: bytes) -> bool:
        """One message to the worker over the link; False when it is not open (use the native
        port). Written at once, as the native port's writer does: a call's frame is small."""
        conn = self._conn
        if conn is None:
            return False
        try:
            conn.protocol.send_text(payload)
            conn.send_data()
        except Exception as e:  # closing: the library raises InvalidState
            log.debug("fast link send failed: %s", e)
            return False
        return True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
