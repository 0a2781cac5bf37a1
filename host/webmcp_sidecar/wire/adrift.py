"""Calls whose link dropped while they ran: the one place that decides what they are answered.

An entry's link (mcp_server/entry_link.py) carries calls and their results beside the native
port. When it drops, a call still out on it is not lost yet: a result the worker sends once its
end is closed takes the native port, and the page answers the cancel the drop sends (its real
result if it finished first). So each such call waits up to `DROP_GRACE` s for an answer the other
way; the page's `cancelled` (the drop's own cancel) and silence both end as the drop's error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

# Long enough for a cancel to reach the page and its answer to come back over the native port
# (milliseconds when the browser is there); short, because a result lost on the link never comes.
DROP_GRACE = 3.0


def dropped_result(call_id: str, message: str) -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": False, "error": {"code": "internal", "message": message}}


class Adrift:
    """The calls a drop left without their way back, each with its deadline."""

    def __init__(self, message: str, lost: Callable[[str, dict[str, Any]], object]) -> None:
        """message: what a call the drop cost is answered (`internal`); lost: gives a call that
        answer when nothing came in time (a call already answered otherwise is the caller's to
        ignore)."""
        self._message = message
        self._lost = lost
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def __contains__(self, call_id: str) -> bool:
        return call_id in self._timers

    def __len__(self) -> int:
        return len(self._timers)

    def add(self, call_id: str) -> None:
        if call_id in self._timers:
            return
        self._timers[call_id] = asyncio.get_running_loop().call_later(DROP_GRACE, self._expire, call_id)

    def landed(self, call_id: str, raw: dict[str, Any]) -> dict[str, Any]:
        """A result that came another way: the answer to give. For a call adrift, the page's
        `cancelled` is the drop's cancel, so it is said as the drop's error; anything else is the
        call's real answer."""
        if not self._timers:  # the hot path: nothing adrift
            return raw
        timer = self._timers.pop(call_id, None)
        if timer is None:
            return raw
        timer.cancel()
        error = raw.get("error")
        if raw.get("ok") is not True and isinstance(error, dict) and error.get("code") == "cancelled":
            return dropped_result(call_id, self._message)
        return raw

    def discard(self, call_id: str) -> None:
        """The call ended another way (its waiter gave up, its connection went)."""
        if (timer := self._timers.pop(call_id, None)) is not None:
            timer.cancel()

    def clear(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _expire(self, call_id: str) -> None:
        if self._timers.pop(call_id, None) is not None:
            self._lost(call_id, dropped_result(call_id, self._message))
