"""Requests waiting for their answer by id: the one helper behind every "send with an id, wait
for the reply with that id, stop waiting on cancel or timeout" in the host, the MCP server and
the agent.

Answers arrive in plain callbacks (a frame pump, a panel message), so `resolve` is synchronous;
an id nobody waits for any more (cancelled, timed out, answered twice) is ignored there. An id is
forgotten when its `wait` ends (or by `discard`), so an answer that comes before `wait` runs is
kept for it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PendingRequests(Generic[T]):
    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[T]] = {}
        self._ids = itertools.count(1)

    def open(self, call_id: str | None = None, *, prefix: str = "") -> str:
        """Start waiting for `call_id` (or a new id, `prefix` + a number); returns the id. Open
        it before the request leaves, so an answer can never come before anyone waits."""
        if call_id is None:
            call_id = f"{prefix}{next(self._ids)}"
        self._waiting[call_id] = asyncio.get_running_loop().create_future()
        return call_id

    async def wait(self, call_id: str, timeout: float | None = None) -> T:
        """The answer to `call_id`. Raises TimeoutError after `timeout` s, the exception of
        `fail_all`, or CancelledError (`cancel_all`, or the waiting task was cancelled); the id
        is forgotten however the wait ends."""
        fut = self._waiting[call_id]
        try:
            if timeout is None:
                return await fut
            async with asyncio.timeout(timeout):
                return await fut
        finally:
            self._waiting.pop(call_id, None)
            fut.cancel()  # no-op when answered; else nobody is left to read its outcome

    def resolve(self, call_id: str, value: T) -> bool:
        """Hand `value` to whoever waits for `call_id`; False when nobody does."""
        fut = self._waiting.get(call_id)
        if fut is None or fut.done():
            return False
        fut.set_result(value)
        return True

    def discard(self, call_id: str) -> None:
        """Stop waiting for `call_id` without an answer (e.g. the request could not be sent)."""
        fut = self._waiting.pop(call_id, None)
        if fut is not None:
            fut.cancel()

    def fail_all(self, error: Callable[[], BaseException]) -> None:
        """Every waiter gets `error()` (e.g. the link closed)."""
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(error())

    def ids(self) -> list[str]:
        """The ids still waiting for their answer."""
        return [call_id for call_id, fut in self._waiting.items() if not fut.done()]

    def cancel_all(self) -> None:
        """Every waiter gets CancelledError (e.g. the turn that asked was stopped)."""
        for fut in self._waiting.values():
            fut.cancel()

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._waiting

    def __len__(self) -> int:
        return len(self._waiting)
