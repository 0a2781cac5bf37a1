"""`wire/pending.py`: the one request-by-id helper of the host, the MCP server and the agent."""

import asyncio

import pytest

from webmcp_sidecar.wire.pending import PendingRequests

pytestmark = pytest.mark.anyio


async def test_an_answer_reaches_its_waiter_by_id():
    pending: PendingRequests[str] = PendingRequests()
    a, b = pending.open(prefix="c1."), pending.open(prefix="c1.")
    assert (a, b) == ("c1.1", "c1.2")
    waiter = asyncio.create_task(pending.wait(b))
    # Answered before the waiting task ran: the answer is kept for it.
    assert pending.resolve(b, "B") and not pending.resolve("c1.9", "nobody")
    assert not pending.resolve(b, "twice")
    assert await waiter == "B"
    assert b not in pending and a in pending and len(pending) == 1
    assert not pending.resolve(b, "twice")


async def test_a_timeout_forgets_the_id_and_a_late_answer_is_ignored():
    pending: PendingRequests[str] = PendingRequests()
    call_id = pending.open("model-call-7")
    with pytest.raises(TimeoutError):
        await pending.wait(call_id, timeout=0.01)
    assert call_id not in pending
    assert not pending.resolve(call_id, "late")


async def test_cancelling_the_waiter_forgets_the_id():
    pending: PendingRequests[str] = PendingRequests()
    call_id = pending.open()
    waiter = asyncio.create_task(pending.wait(call_id))
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert len(pending) == 0


async def test_a_disconnect_fails_every_waiter_and_cancel_all_cancels_them():
    class Gone(Exception):
        pass

    pending: PendingRequests[str] = PendingRequests()
    waiters = [asyncio.create_task(pending.wait(pending.open())) for _ in range(3)]
    await asyncio.sleep(0)
    pending.fail_all(Gone)
    for w in waiters:
        with pytest.raises(Gone):
            await w
    waiter = asyncio.create_task(pending.wait(pending.open()))
    await asyncio.sleep(0)
    pending.cancel_all()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert len(pending) == 0


async def test_discard_drops_a_request_that_was_never_sent():
    pending: PendingRequests[str] = PendingRequests()
    call_id = pending.open()
    pending.discard(call_id)
    assert call_id not in pending and not pending.resolve(call_id, "x")
