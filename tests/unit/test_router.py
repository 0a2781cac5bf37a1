"""The host's router (native_host/router.py): one table, call id -> the call's way back, for the
host's own calls and the entries' alike; every result passes `route_result`, however it came."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from webmcp_sidecar.native_host.app import Host
from webmcp_sidecar.wire.codec import dumps, split_message

pytestmark = pytest.mark.anyio


class Reply:
    """An entry's way back, in memory."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def deliver(self, payload: bytes) -> None:
        self.got.append(json.loads(payload))


class Sink:
    """The host's browser writer, in memory."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def host() -> tuple[Host, list[dict[str, Any]]]:
    sink = Sink()
    return Host("chrome-extension://x/", sink), sink.sent  # type: ignore[arg-type]


def result(call_id: str, value: str = "1") -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": True, "value": value}


async def test_the_hosts_own_call_and_an_entrys_take_their_own_way_back():
    h, sent = host()
    entry = Reply()
    h.router.send("c1.1", dumps({"type": "call", "id": "c1.1"}), entry)
    task = asyncio.create_task(h.request({"type": "call", "site": "a.test", "tool": "t", "args": {}}, 5))
    await asyncio.sleep(0)  # the request goes out
    own = sent[-1]["id"]
    assert own.startswith("h.") and set(h.router.pending) == {"c1.1", own}
    # A long result in chunks, then a whole one: each to its own call.
    for piece in split_message(json.dumps(result(own, "x" * 100_000)), "sw1", 64 * 1024):
        h.on_browser_frame(piece)
    h.on_browser_frame(dumps(result("c1.1")))
    assert (await task)["value"] == "x" * 100_000
    assert entry.got == [result("c1.1")] and h.router.pending == {}


async def test_a_call_nobody_waits_for_any_more_is_cancelled_and_its_result_dropped():
    h, sent = host()
    entry = Reply()
    h.router.send("c1.1", dumps({"type": "call", "id": "c1.1"}), entry)
    h.router.abandon(entry)
    assert sent[-1] == {"type": "cancel", "id": "c1.1"} and h.router.pending == {}
    h.on_browser_frame(dumps(result("c1.1")))
    assert entry.got == []
    with pytest.raises(TimeoutError):
        await h.request({"type": "call", "site": "a.test", "tool": "t", "args": {}}, 0.01)
    assert sent[-1]["type"] == "cancel" and h.router.pending == {}
