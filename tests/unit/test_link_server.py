"""Who may open a loopback link (wire/link_server.py), through an MCP entry's link in this process
(mcp_server/entry_link.py) with the `websockets` client in the worker's place: the Origin and the
token, one connection per token, refusals logged a few times and never with the token, connection
floods cut before the worker's could be, and frames over the cap. (How the offer travels through
the real host, and what a drop answers: test_entry_link.py.)"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.support.links import ORIGIN, assert_refused, open_link, recv_json, result, until
from webmcp_sidecar.mcp_server.entry_link import LINK_DROPPED, EntryLink
from webmcp_sidecar.wire import adrift
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.link_server import MAX_CONNECTIONS, MAX_LINK_FRAME, MAX_SILENT, OPEN_TIMEOUT

pytestmark = pytest.mark.anyio

MOZ = "moz-extension://1dc79572-a92b-44ee-8188-f1ea72c6bad4"


@dataclass
class Linked:
    """An entry's link in this process: what it sent its host (offers, cancels) and the answers
    its calls got."""

    link: EntryLink
    to_host: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def offers(self) -> list[dict[str, Any]]:
        return [m for m in self.to_host if m["type"] == "entry_link_offer"]

    async def offer(self, after: int = 0) -> dict[str, Any]:
        """The first offer past the first `after`."""
        await until(lambda: len(self.offers()) > after)
        return self.offers()[after]

    def call(self, n: int) -> str:
        call_id = f"c1.{n}"
        msg = {"type": "call", "id": call_id, "site": "a.test", "tool": "add", "args": {"n": n}}
        assert self.link.send_call(call_id, dumps(msg))
        return call_id


@asynccontextmanager
async def entry_link(origin: str = ORIGIN + "/") -> AsyncIterator[Linked]:
    """An entry's link for an extension of `origin` (as the host's welcome gives it), listening."""
    linked: Linked
    link = EntryLink(origin, lambda msg: linked.to_host.append(msg),
                     lambda call_id, raw: bool(linked.answers.setdefault(call_id, raw)))
    linked = Linked(link)
    await link.start()
    try:
        yield linked
    finally:
        link.stop()


async def test_only_the_extension_gets_in_and_refusals_are_logged_a_few_times(caplog):
    caplog.set_level(logging.INFO)
    async with entry_link() as e:
        offer = await e.offer()
        port, token = offer["port"], offer["token"]
        await assert_refused(port, token, paths=True)
        ws = await open_link(offer)
        await until(lambda: e.link.is_open)
        await ws.close()
    assert "refused a connection to the entry link (Origin: http://evil.test)" in caplog.text
    assert token not in caplog.text  # the token is never logged
    assert caplog.text.count("refused a connection to the entry link") == 5  # then no more lines


async def test_a_token_opens_one_link_and_a_second_connection_gets_nothing():
    async with entry_link() as e:
        offer = await e.offer()
        ws = await open_link(offer)
        await until(lambda: e.link.is_open)
        for origin in (ORIGIN, "http://evil.test"):  # the same URL again: the token is spent
            with pytest.raises(InvalidStatus) as refused:
                await open_link(offer, origin)
            assert refused.value.response.status_code == 403
        call_id = e.call(1)  # the first link still has the calls
        got = await recv_json(ws, "call")
        assert got["id"] == call_id
        await ws.send(json.dumps(result(call_id)))
        await until(lambda: call_id in e.answers)
        assert e.answers[call_id]["ok"] is True
        # After a drop the next offer has a new token; the old one still opens nothing.
        await ws.close()
        again = await e.offer(after=1)
        assert again["port"] == offer["port"] and again["token"] != offer["token"]
        with pytest.raises(InvalidStatus):
            await open_link(offer)
        await (await open_link(again)).close()


async def test_two_origins_are_refused_and_logged_without_a_traceback(caplog):
    caplog.set_level(logging.INFO)
    async with entry_link() as e:
        offer = await e.offer()
        url = f"ws://127.0.0.1:{offer['port']}/link/{offer['token']}"
        for _ in range(20):
            with pytest.raises(InvalidStatus) as refused:
                await connect(url, additional_headers=[("Origin", ORIGIN), ("Origin", ORIGIN)])
            assert refused.value.response.status_code == 403
        assert caplog.text.count("refused a connection to the entry link (Origin: several)") == 5
        assert "Traceback" not in caplog.text
        await (await open_link(offer)).close()  # the token was not spent by any of them


async def test_a_handshake_flood_is_cut_to_a_few_connections_for_a_short_while():
    async with entry_link() as e:
        offer = await e.offer()
        held = []
        for _ in range(30):  # each starts a request and never finishes it
            reader, writer = await asyncio.open_connection("127.0.0.1", offer["port"])
            writer.write(b"GET /link/x HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Pad: " + b"a" * 4000 + b"\r\n")
            held.append((reader, writer))

        async def closed(reader: asyncio.StreamReader, within: float) -> bool:
            try:
                async with asyncio.timeout(within):
                    return await reader.read() == b""
            except ConnectionError:  # aborted: a reset
                return True
            except TimeoutError:
                return False

        # Those over the cap are dropped at once: well before the handshake timeout ends the rest.
        early = await asyncio.gather(*(closed(r, OPEN_TIMEOUT * 0.75) for r, _ in held))
        assert sum(early) == 30 - MAX_CONNECTIONS
        assert all(await asyncio.gather(*(closed(r, 5) for r, _ in held)))
        for _, w in held:
            w.close()
        ws = await open_link(offer)  # the worker gets in afterwards
        await until(lambda: e.link.is_open)
        call_id = e.call(1)
        assert (await recv_json(ws, "call"))["id"] == call_id
        await ws.close()


async def test_connections_held_open_by_a_local_process_do_not_keep_the_worker_out():
    """A local process fills the connection slots (request lines without the token, held) and
    opens many more that say nothing: the worker's connection, with the offer's token, still
    gets in."""
    async with entry_link() as e:
        offer = await e.offer()
        held = []
        for _ in range(MAX_CONNECTIONS):
            _, writer = await asyncio.open_connection("127.0.0.1", offer["port"])
            writer.write(b"GET /link/x HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            await writer.drain()
            held.append(writer)
        for _ in range(MAX_SILENT + 10):
            held.append((await asyncio.open_connection("127.0.0.1", offer["port"]))[1])
        ws = await open_link(offer)
        await until(lambda: e.link.is_open)
        call_id = e.call(1)
        assert (await recv_json(ws, "call"))["id"] == call_id
        for w in held:
            w.close()
        await ws.close()


async def test_a_frame_over_the_cap_closes_the_link_and_answers_its_calls(monkeypatch):
    monkeypatch.setattr(adrift, "DROP_GRACE", 0.3)
    async with entry_link() as e:
        ws = await open_link(await e.offer())
        await until(lambda: e.link.is_open)
        call_id = e.call(1)
        await recv_json(ws, "call")
        await ws.send(json.dumps(result(call_id, json.dumps("x" * (MAX_LINK_FRAME + 10)))))
        # Its answer was that frame: the call is cancelled through the host, nothing else comes,
        # so it gets the drop's error once the grace is over (wire/adrift.py); offered again.
        await until(lambda: {"type": "cancel", "id": call_id} in e.to_host)
        await until(lambda: call_id in e.answers)
        assert e.answers[call_id]["error"] == {"code": "internal", "message": LINK_DROPPED}
        assert (await e.offer(after=1))["port"]


async def test_a_firefox_extensions_origin_is_the_one_admitted():
    """Firefox: the origin is `moz-extension://<uuid>` (per profile), which the host learnt from
    the hello and the entry from the host; Chrome's and another profile's are refused."""
    async with entry_link(MOZ + "/") as e:
        offer = await e.offer()
        for other in (ORIGIN, "moz-extension://00000000-0000-0000-0000-000000000000"):
            with pytest.raises(InvalidStatus):
                await open_link(offer, other)
        await (await open_link(offer, MOZ)).close()
        await until(lambda: e.link.drops == 1)
