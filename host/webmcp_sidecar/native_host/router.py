"""The host's calls into the browser and their way back: one table, call id -> the reply that
takes its result (an entry's connection, or the host's own waiter), and one `route_result`
that every result passes, whichever way it came in (whole, by its head, or joined from chunks).

A call carries its way back: what waits for its result is the value in the table, not an id
looked up in another map. A call this host did not send (an entry's link carried it) can still
have its result come this way (a long one, in chunks on the native port): `way_of` finds its
entry by its id's prefix (the call-id grammar, wire/constants.py).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any, Protocol

from webmcp_sidecar.wire.codec import dumps, parse_payload
from webmcp_sidecar.wire.constants import CALL_ID_SEP, CALLER_AGENT


class Reply(Protocol):
    """The way back of one call: gets its result's frame, as the browser sent it."""

    def deliver(self, payload: bytes) -> None: ...


class Waiter:
    """The host's own call (the side panel's agent): its result, decoded, to a future."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def deliver(self, payload: bytes) -> None:
        if not self.future.done():
            self.future.set_result(parse_payload(payload))


class Router:
    def __init__(
        self, to_browser: Callable[[bytes], None], way_of: Callable[[str], Reply | None]
    ) -> None:
        """to_browser: a frame to the browser; way_of: the way back of a call that is not in
        the table (an entry link's call), or None."""
        self._to_browser = to_browser
        self._way_of = way_of
        self.pending: dict[str, Reply] = {}  # call id -> its way back
        self._own_ids = itertools.count(1)

    def send(self, call_id: str, payload: bytes, reply: Reply) -> None:
        """A call to the browser; its result goes to `reply`."""
        self.pending[call_id] = reply
        self._to_browser(payload)

    def send_cancel(self, call_id: str) -> None:
        self._to_browser(dumps({"type": "cancel", "id": call_id}))

    def route_result(self, call_id: str, payload: bytes) -> bool:
        """A result to its call's way back, untouched; False when nobody waits for it."""
        reply = self.pending.pop(call_id, None) or self._way_of(call_id)
        if reply is None:
            return False
        reply.deliver(payload)
        return True

    def on_result(self, raw: dict[str, Any], payload: bytes) -> None:
        """A `result` the pre-filter (`Host.result_by_head`) did not route: an id it could not
        read at the head, or nobody waits (then it is dropped here)."""
        self.route_result(str(raw.get("id")), payload)

    def abandon(self, reply: Reply) -> None:
        """Nobody reads `reply` any more (its entry went): its calls are forgotten and their
        pages told to stop."""
        gone = [call_id for call_id, r in self.pending.items() if r is reply]
        for call_id in gone:
            del self.pending[call_id]
            self.send_cancel(call_id)

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The host's own call into the browser (the side panel's agent uses it): fills in the
        id, waits for the result; cancelling the wait cancels the page's work."""
        call_id = message["id"] = f"{CALLER_AGENT}{CALL_ID_SEP}{next(self._own_ids)}"
        waiter = Waiter()
        try:
            self.send(call_id, dumps(message), waiter)
            async with asyncio.timeout(timeout):
                return await waiter.future
        except (asyncio.CancelledError, TimeoutError):
            self.send_cancel(call_id)
            raise
        finally:
            self.pending.pop(call_id, None)
