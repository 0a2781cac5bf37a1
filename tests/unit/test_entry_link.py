"""The entry link (mcp_server/entry_link.py): the real host process with a scripted browser on
its stdio, the entry's real `HostPool`, and the `websockets` client in the worker's place. How an
offer reaches the browser, who may open the link, what takes it, and what a drop answers."""

import asyncio
import json
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from tests.support.fake_browser import FakeBrowser
from tests.support.links import (
    ORIGIN,
    assert_refused,
    cancelled,
    open_link,
    recv_json,
    result,
    start,
    stop,
    until,
)
from tests.support.raw_entry import RawEntry
from webmcp_sidecar.mcp_server import entry_link, hosts
from webmcp_sidecar.mcp_server.entry_link import ENTRY_LINK_ENV, LINK_DROPPED, MAX_DROPS
from webmcp_sidecar.wire import adrift, link_server
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.codec import split_message
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION
from webmcp_sidecar.wire.link_server import MAX_UNANSWERED

pytestmark = pytest.mark.anyio


@pytest.fixture
async def browser(sock_env):
    b = await start(sock_env)
    yield b
    await stop(b)


async def entry(tg: asyncio.TaskGroup) -> tuple[hosts.HostPool, hosts.HostLink]:
    """This process as an MCP entry, connected to the one host."""
    pool = hosts.HostPool("test")
    async with asyncio.timeout(10):
        while not pool.links:
            await pool.scan(tg)
            await asyncio.sleep(0.05)
    (link,) = pool.links.values()
    return pool, link




async def until_mark(browser: FakeBrowser) -> list[dict[str, Any]]:
    """Everything the browser got from the host until now (a ping's pong marks the end)."""
    browser.send({"type": "ping", "id": "mark"})
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(10):
        while (msg := await browser.inbox.get()) != {"type": "pong", "id": "mark"}:
            seen.append(msg)
    return seen


def call(n: int, max_bytes: int | None = None) -> dict[str, Any]:
    msg = {"type": "call", "site": "a.test", "tool": "add", "args": {"n": n}}
    return msg if max_bytes is None else {**msg, "max_bytes": max_bytes}


def pieces(cid: str, text: str, size: int = 64 * 1024) -> list[dict[str, Any]]:
    """`text` as the worker sends a long result on a link (entry-links.js): `chunk`s of `size`
    characters whose cid is the call's id."""
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    return [{"type": "chunk", "cid": cid, "seq": n, "last": n == len(parts) - 1, "data": p}
            for n, p in enumerate(parts)]


async def send_pieces(ws, cid: str, msg: dict[str, Any]) -> None:
    for piece in pieces(cid, json.dumps(msg)):
        await ws.send(json.dumps(piece))



async def test_the_offer_reaches_the_browser_and_only_the_extension_gets_in(browser, caplog):
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        offer = await browser.expect("entry_link")
        m.EntryLink.model_validate(offer)  # what the worker checks too (lib/messages.js)
        assert offer["conn"] == link.welcome.conn
        port, token = offer["port"], offer["token"]
        await assert_refused(port, token)
        ws = await open_link(offer)
        await until(lambda: link.direct is not None and link.direct.is_open)
        with pytest.raises(InvalidStatus):  # the token is spent: one connection per offer
            await open_link(offer)
        await ws.close()
        pool.close()
    assert "refused a connection to the entry link (Origin: http://evil.test)" in caplog.text
    assert token not in caplog.text  # never logged


async def test_site_calls_and_cancels_take_the_link_and_results_come_back_on_it(browser):
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        ws = await open_link(await browser.expect("entry_link"))
        await until(lambda: link.direct is not None and link.direct.is_open)

        task = asyncio.create_task(link.request(call(1)))
        got = await recv_json(ws, "call")
        assert got["id"] == f"{link.welcome.conn}.1" and got["args"] == {"n": 1}
        await ws.send(json.dumps(result(got["id"], '{"sum":3}')))
        res = await task
        assert res.ok and res.value == '{"sum":3}'

        # A cancel goes the way its call went.
        task = asyncio.create_task(link.request(call(2)))
        got = await recv_json(ws, "call")
        task.cancel()
        assert (await recv_json(ws, "cancel"))["id"] == got["id"]

        # A long result comes back the same way, in pieces named by its call's id.
        task = asyncio.create_task(link.request(call(3)))
        got = await recv_json(ws, "call")
        await send_pieces(ws, got["id"], result(got["id"], json.dumps("x" * 200_000)))
        assert len((await task).value) == 200_002

        # Nothing of it went through the host: the browser's native port saw no call or cancel.
        seen = await until_mark(browser)
        assert not [msg for msg in seen if msg.get("type") in ("call", "cancel")], seen
        assert link.direct is not None and link.direct.calls == set()
        await ws.close()
        pool.close()


async def test_a_long_result_on_the_link_is_joined_and_bad_pieces_fail_only_their_call(browser, caplog):
    """A 5 MiB result comes whole through its pieces on the link; pieces out of order, malformed,
    over the call's cap, of another message or of no call out end only their own call (or
    nothing), with a clear error, and the link carries on."""
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        ws = await open_link(await browser.expect("entry_link"))
        await until(lambda: link.direct is not None and link.direct.is_open)

        big = "é" * (5 * 1024 * 1024)
        task = asyncio.create_task(link.request(call(1)))
        got = await recv_json(ws, "call")
        await send_pieces(ws, got["id"], result(got["id"], json.dumps(big)))
        res = await task
        assert res.ok and res.value == json.dumps(big)

        async def fails(msgs, max_bytes: int | None = None) -> str:
            task = asyncio.create_task(link.request(call(2, max_bytes)))
            got = await recv_json(ws, "call")
            for msg in msgs(got["id"]):
                await ws.send(json.dumps(msg))
            res = await task
            assert not res.ok and res.error is not None and res.error.code == "internal"
            return res.error.message

        long = lambda cid: json.dumps(result(cid, json.dumps("x" * 200_000)))  # noqa: E731
        # Out of order (the second piece first), malformed, joined to another call's result,
        # not JSON at all, and over what the call's max_bytes allows.
        assert "out of order" in await fails(lambda cid: pieces(cid, long(cid))[0::2])
        assert "arrived before chunk 0" in await fails(lambda cid: pieces(cid, long(cid))[1:])
        assert "malformed" in await fails(lambda cid: [{**pieces(cid, long(cid))[0], "seq": "0"}])
        assert "other than this call's result" in await fails(lambda cid: pieces(cid, long("c1.99")))
        assert "not valid JSON" in await fails(lambda cid: pieces(cid, long(cid)[:-1]))
        message = await fails(lambda cid: pieces(cid, long(cid)), max_bytes=1000)
        assert message.startswith("The browser's long result for this call came in pieces")
        assert "exceeds" in message

        # Pieces of a call not out on the link, or of no call: dropped, nothing answered.
        for cid in ("c9.1", f"{link.welcome.conn}.77", 5):
            await ws.send(json.dumps({"type": "chunk", "cid": cid, "seq": 0, "last": True, "data": "{}"}))
        # The link still carries calls and their long results.
        task = asyncio.create_task(link.request(call(3)))
        got = await recv_json(ws, "call")
        await send_pieces(ws, got["id"], result(got["id"], json.dumps("y" * 300_000)))
        assert (await task).value == json.dumps("y" * 300_000)
        assert link.direct.calls == set() and len(link.direct._pieces) == 0
        assert "a piece of a result for no call out on the entry link dropped" in caplog.text
        # Nothing of it went through the host.
        seen = await until_mark(browser)
        assert not [msg for msg in seen if msg.get("type") in ("call", "cancel", "result")], seen
        await ws.close()
        pool.close()


async def test_a_drop_answers_the_calls_cancels_them_through_the_host_and_offers_again(browser, monkeypatch):
    monkeypatch.setattr(adrift, "DROP_GRACE", 0.3)
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        offer = await browser.expect("entry_link")
        ws = await open_link(offer)
        await until(lambda: link.direct is not None and link.direct.is_open)
        task = asyncio.create_task(link.request(call(1)))
        got = await recv_json(ws, "call")
        await ws.close()
        # The page may still run it: stopped through the host, and its `cancelled` is the drop's.
        assert (await browser.expect("cancel"))["id"] == got["id"]
        browser.send(cancelled(got["id"]))
        res = await task
        assert not res.ok and res.error is not None
        assert (res.error.code, res.error.message) == ("internal", LINK_DROPPED)
        again = await browser.expect("entry_link")
        assert again["token"] != offer["token"] and again["conn"] == offer["conn"]
        with pytest.raises(InvalidStatus):
            await open_link(offer)
        ws = await open_link(again)
        await until(lambda: link.direct is not None and link.direct.is_open)
        task = asyncio.create_task(link.request(call(2)))
        got = await recv_json(ws, "call")
        await ws.send(json.dumps(result(got["id"])))
        assert (await task).ok

        # Past MAX_DROPS no more offers, and calls take the host. A call out on the link at each
        # drop, the last one (which stops the link) too, gets the drop's error (here nothing
        # comes through the host: after the grace).
        for n in range(MAX_DROPS):
            task = asyncio.create_task(link.request(call(10 + n)))
            got = await recv_json(ws, "call")
            await ws.close()
            assert (await browser.expect("cancel"))["id"] == got["id"]
            async with asyncio.timeout(10):
                res = await task
            assert res.error is not None and (res.error.code, res.error.message) == ("internal", LINK_DROPPED)
            await until(lambda: link.direct is not None and not link.direct.is_open)
            if link.direct is not None and link.direct.drops <= MAX_DROPS:
                ws = await open_link(await browser.expect("entry_link"))
                await until(lambda: link.direct is not None and link.direct.is_open)
        assert link.direct is not None and link.direct.drops == MAX_DROPS + 1
        task = asyncio.create_task(link.request(call(3)))
        got = await browser.expect("call")
        browser.send(result(got["id"]))
        assert (await task).ok
        pool.close()


async def test_after_a_drop_answers_that_come_through_the_host_are_not_lost(browser, monkeypatch):
    """A long result already on the native port when the link drops, or a call that finished
    before the drop's cancel reached the page, still reaches its client; a call whose answer was
    on the link gets the drop's error after the grace."""
    monkeypatch.setattr(adrift, "DROP_GRACE", 0.3)
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        ws = await open_link(await browser.expect("entry_link"))
        await until(lambda: link.direct is not None and link.direct.is_open)
        tasks = [asyncio.create_task(link.request(call(n))) for n in (1, 2, 3)]
        ids = [(await recv_json(ws, "call"))["id"] for _ in tasks]
        await ws.close()
        assert {(await browser.expect("cancel"))["id"] for _ in tasks} == set(ids)
        text = json.dumps(result(ids[0], json.dumps("x" * 200_000)))
        for piece in split_message(text, "sw1", 64 * 1024):
            browser.send_raw(piece)
        browser.send(result(ids[1], '{"sum":3}'))
        long, short, lost = await asyncio.gather(*tasks)
        assert long.ok and len(long.value) == 200_002
        assert short.ok and short.value == '{"sum":3}'
        assert lost.error is not None and (lost.error.code, lost.error.message) == ("internal", LINK_DROPPED)
        assert link.direct is not None and len(link.direct.adrift) == 0
        pool.close()


async def test_the_host_passes_on_only_good_offers_and_an_entrys_own_cancels(browser):
    e = await RawEntry.connect()
    other = await RawEntry.connect()
    conn = e.welcome["conn"]
    token = "t" * 43
    for bad in ({"port": 0}, {"token": "short"}, {"token": "../" * 20}, {"port": "x"}):
        e.send({"type": "entry_link_offer", "port": 40000, "token": token, **bad})
    e.send({"type": "entry_link_offer", "port": 40000, "token": token, "conn": other.welcome["conn"]})
    offer = await browser.expect("entry_link")
    # The host names the connection itself: an entry cannot pass itself off as another.
    assert offer == {"type": "entry_link", "conn": conn, "port": 40000, "token": token}
    # Cancels of its own calls' ids are passed on, whether or not the host routed them; another
    # entry's are not.
    e.send({"type": "cancel", "id": f"{other.welcome['conn']}.5"})
    e.send({"type": "cancel", "id": f"{conn}.9"})
    assert (await browser.expect("cancel"))["id"] == f"{conn}.9"
    # A result for a call the host never routed goes to the entry its id names.
    browser.send(result(f"{conn}.9"))
    assert (await e.recv("result"))["id"] == f"{conn}.9"
    e.close()
    other.close()


async def test_the_entry_link_off_in_the_entry_keeps_calls_on_the_socket(browser, monkeypatch):
    """`WEBMCP_SIDECAR_ENTRY_LINK=0` in the entry's environment alone turns its link off (the
    host has no switch of its own): no link, and its calls take the host."""
    monkeypatch.setenv(ENTRY_LINK_ENV, "0")
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        assert link.direct is None
        task = asyncio.create_task(link.request(call(1)))
        got = await browser.expect("call")
        browser.send(result(got["id"]))
        assert (await task).ok
        pool.close()


async def test_an_offer_nobody_takes_is_made_again_after_a_pause_and_never_given_up(browser, monkeypatch):
    monkeypatch.setattr(link_server, "OFFER_WAIT", 0.2)
    monkeypatch.setattr(link_server, "MAX_BACKOFF", 0.4)
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        offers = [await browser.expect("entry_link") for _ in range(MAX_UNANSWERED + 1)]
        assert len({o["token"] for o in offers}) == MAX_UNANSWERED + 1
        await until(lambda: link.direct is not None and link.direct.unanswered == MAX_UNANSWERED + 1)
        for offer in offers:  # every one withdrawn
            with pytest.raises(InvalidStatus):
                await open_link(offer)
        # Meanwhile the host carries the calls.
        task = asyncio.create_task(link.request(call(1)))
        got = await browser.expect("call")
        browser.send(result(got["id"]))
        assert (await task).ok
        # After a pause, offered again (a local process that held the slots has not switched
        # the link off for good): the worker that opens it gets in.
        later = await browser.expect("entry_link")
        await open_link(later)
        await until(lambda: link.direct is not None and link.direct.is_open)
        assert link.direct.unanswered == 0
        pool.close()


async def test_a_link_taken_in_time_is_not_withdrawn(browser, monkeypatch):
    monkeypatch.setattr(link_server, "OFFER_WAIT", 0.3)
    async with asyncio.TaskGroup() as tg:
        pool, link = await entry(tg)
        ws = await open_link(await browser.expect("entry_link"))
        await asyncio.sleep(0.6)
        assert link.direct is not None and link.direct.is_open and link.direct.unanswered == 0
        await ws.close()
        pool.close()


async def test_a_link_stopped_before_it_listens_never_listens():
    """A host that goes away right after its welcome: the entry's server must not stay up."""
    offers: list[dict[str, Any]] = []
    link = entry_link.EntryLink(ORIGIN, offers.append, lambda _id, _raw: True)
    start = asyncio.create_task(link.start())
    link.stop()
    await start
    assert offers == [] and not link.is_open
    assert link._link.port is None  # never listened


async def test_an_entry_that_came_before_firefoxs_hello_gets_its_link_once_the_origin_is_known(
        sock_env, tmp_path):
    """A host Firefox started knows its extension's origin only from the hello: an entry that
    connected before it (welcome without an origin) offers its link when the `status` brings it,
    and the link admits that origin."""
    from webmcp_sidecar import GECKO_ID

    moz = "moz-extension://1dc79572-a92b-44ee-8188-f1ea72c6bad4"
    b = FakeBrowser(sock_env, [str(tmp_path / "io.webmcp.sidecar.json"), GECKO_ID])
    await b.start()
    try:
        async with asyncio.TaskGroup() as tg:
            pool, link = await entry(tg)
            assert link.welcome is not None and link.welcome.extension_origin == ""
            assert link.direct is None
            b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                    "extension_version": "0.1.0", "browser": "Firefox 153.0",
                    "origin": moz + "/"})
            offer = await b.expect("entry_link")
            assert offer["conn"] == link.welcome.conn
            ws = await open_link(offer, moz)
            await until(lambda: link.direct is not None and link.direct.is_open)
            await ws.close()
            pool.close()
    finally:
        await stop(b)
