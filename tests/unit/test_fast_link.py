"""The fast link (native_host/fast_link.py): the real host process with a scripted browser on its
stdio, a bare socket entry, and the `websockets` client in the worker's place. Who may open the
link, what takes it, what a bad frame does, and what a drop answers."""

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.support.fake_browser import FakeBrowser
from tests.support.links import ORIGIN, cancelled, open_link, recv_json, result, start, stop, until
from tests.support.raw_entry import RawEntry
from webmcp_sidecar import GECKO_ID
from webmcp_sidecar.native_host.app import LINK_DROPPED, MAX_FAST_LINK_DROPS, Host
from webmcp_sidecar.native_host.fast_link import FAST_LINK_ENV
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.adrift import DROP_GRACE
from webmcp_sidecar.wire.codec import split_message
from webmcp_sidecar.wire.link_server import (
    MAX_CONNECTIONS,
    MAX_LINK_FRAME,
    MAX_SILENT,
    OPEN_TIMEOUT,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def browser(sock_env):
    b = await start(sock_env)
    yield b
    await stop(b)




def call(entry: RawEntry, n: int) -> dict:
    return {
        "type": "call",
        "id": f"{entry.welcome['conn']}.{n}",
        "site": "a.test",
        "tool": "add",
        "args": {"n": n},
    }



async def types_until(b: FakeBrowser, kind: str) -> list[str]:
    """The types of what the browser got on the native port, up to the first `kind`."""
    seen: list[str] = []
    async with asyncio.timeout(10):
        while not seen or seen[-1] != kind:
            seen.append((await b.inbox.get())["type"])
    return seen


def host_log(sock_env: dict[str, str]) -> str:
    return "\n".join(p.read_text() for p in Path(sock_env["WEBMCP_SIDECAR_LOG_DIR"]).glob("*.log*"))


async def test_the_offer_comes_after_the_hello_and_only_the_extension_gets_in(browser, sock_env):
    offer = await browser.expect("fast_link")
    m.FastLink.model_validate(offer)  # what the worker checks too (lib/messages.js)
    port, token = offer["port"], offer["token"]
    refused = {
        "a page's origin": (f"ws://127.0.0.1:{port}/link/{token}", "http://evil.test"),
        "no origin": (f"ws://127.0.0.1:{port}/link/{token}", None),
        "another extension": (f"ws://127.0.0.1:{port}/link/{token}", "chrome-extension://" + "b" * 32),
        "a wrong token": (f"ws://127.0.0.1:{port}/link/{'x' * len(token)}", ORIGIN),
        "no token": (f"ws://127.0.0.1:{port}/link/", ORIGIN),
        "another path": (f"ws://127.0.0.1:{port}/{token}", ORIGIN),
    }
    for why, (url, origin) in refused.items():
        with pytest.raises(InvalidStatus) as e:
            await connect(url, origin=origin)  # type: ignore[arg-type]
        assert e.value.response.status_code == 403, why
    ws = await open_link(offer)
    await ws.close()
    text = host_log(sock_env)
    assert "refused a connection to the fast link (Origin: http://evil.test)" in text
    assert token not in text  # the token is never logged
    assert text.count("refused a connection to the fast link") == 5  # then no more lines


async def test_site_calls_and_their_cancels_take_the_link_and_results_come_back_on_it(browser):
    ws = await open_link(await browser.expect("fast_link"))
    e = await RawEntry.connect()
    e.send(call(e, 1))
    got = await recv_json(ws, "call")
    assert got["id"] == f"{e.welcome['conn']}.1" and got["args"] == {"n": 1}
    await ws.send(json.dumps(result(got["id"], '{"sum":3}')))
    assert (await e.recv("result"))["value"] == '{"sum":3}'

    # A cancel goes the way its call went.
    e.send(call(e, 2))
    got = await recv_json(ws, "call")
    e.send({"type": "cancel", "id": got["id"]})
    assert (await recv_json(ws, "cancel"))["id"] == got["id"]
    # A long result's chunks take the native port (the worker never sends them on the link,
    # which carries results only, and refuses them there).
    long = json.dumps("é" * 200_000)
    pieces = split_message(json.dumps(result(got["id"], long)), "sw1", 64 * 1024)
    for piece in pieces:
        await ws.send(piece.decode())
    for piece in pieces:
        browser.send_raw(piece)
    assert (await e.recv("result"))["value"] == long

    # Browser tools stay on the native port (they follow `session`, which does too), and
    # nothing of the site calls above came that way.
    e.send({"type": "browser_call", "id": f"{e.welcome['conn']}.3", "tool": "tabs_list", "args": {}})
    seen = await types_until(browser, "browser_call")
    assert "call" not in seen and "cancel" not in seen
    await ws.close()


async def test_bad_frames_on_the_link_are_dropped_and_nothing_stops(browser, sock_env):
    ws = await open_link(await browser.expect("fast_link"))
    e = await RawEntry.connect()
    e.send(call(e, 1))
    got = await recv_json(ws, "call")
    for bad in ("not json", "[1,2]", '{"type":"result"}', "\ud7ff" * 3, b"\x00\xff binary"):
        await ws.send(bad)
    await ws.send(json.dumps({"type": "registry", "sites": {"a.test": "nope"}}))
    await ws.send(json.dumps(result(got["id"])))
    assert (await e.recv("result"))["value"] == '"ok"'
    assert browser.proc and browser.proc.returncode is None
    text = host_log(sock_env)
    assert "bad frame on the fast link dropped" in text  # not JSON
    assert "a registry message on the fast link dropped: it carries results only" in text


async def test_a_drop_answers_every_call_out_and_the_link_is_offered_again_a_few_times(browser):
    e = await RawEntry.connect()
    for n in range(1, MAX_FAST_LINK_DROPS + 3):
        offer = await browser.expect("fast_link", timeout=10)
        ws = await open_link(offer)
        e.send(call(e, n))
        await recv_json(ws, "call")
        await ws.close()
        # The browser is told to stop it, on the native port; the page's `cancelled` is the
        # drop's doing, so the entry hears of the drop.
        stopped = await browser.expect("cancel")
        assert stopped["id"] == f"{e.welcome['conn']}.{n}"
        browser.send(cancelled(stopped["id"]))
        answer = await e.recv("result")
        assert answer["id"] == stopped["id"] and not answer["ok"]
        assert answer["error"] == {"code": "internal", "message": LINK_DROPPED}
        if n > MAX_FAST_LINK_DROPS:
            break
    # Past the cap the native port carries everything: no offer, calls go that way, and the
    # host no longer listens.
    with pytest.raises(TimeoutError):
        await browser.expect("fast_link", timeout=1)
    e.send(call(e, 99))
    assert (await browser.expect("call"))["id"] == f"{e.welcome['conn']}.99"
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", offer["port"])


async def test_after_a_drop_a_result_that_comes_the_native_ports_way_is_not_lost(browser):
    """A long result takes the native port in chunks: one already on its way when the link drops
    (or a call that finished before the drop's cancel reached it) still gets to its entry."""
    ws = await open_link(await browser.expect("fast_link"))
    e = await RawEntry.connect()
    e.send(call(e, 1))
    e.send(call(e, 2))
    first, second = await recv_json(ws, "call"), await recv_json(ws, "call")
    await ws.close()
    assert {(await browser.expect("cancel"))["id"] for _ in range(2)} == {first["id"], second["id"]}
    text = json.dumps(result(first["id"], json.dumps("x" * 200_000)))
    for piece in split_message(text, "sw1", 64 * 1024):
        browser.send_raw(piece)
    browser.send(result(second["id"], '{"sum":3}'))
    got = {a["id"]: a for a in (await e.recv("result"), await e.recv("result"))}
    assert got[first["id"]]["ok"] and len(got[first["id"]]["value"]) == 200_002
    assert got[second["id"]]["ok"] and got[second["id"]]["value"] == '{"sum":3}'


async def test_a_token_opens_one_link_and_a_second_connection_gets_nothing(browser, sock_env):
    offer = await browser.expect("fast_link")
    ws = await open_link(offer)
    for origin in (ORIGIN, "http://evil.test"):  # the same URL again: the token is spent
        with pytest.raises(InvalidStatus) as refused:
            await open_link(offer, origin)
        assert refused.value.response.status_code == 403
    e = await RawEntry.connect()
    e.send(call(e, 1))
    got = await recv_json(ws, "call")  # the first link still has the calls
    await ws.send(json.dumps(result(got["id"])))
    assert (await e.recv("result"))["ok"] is True
    # After a drop the next offer has a new token; the old one still opens nothing.
    await ws.close()
    again = await browser.expect("fast_link", timeout=10)
    assert again["port"] == offer["port"] and again["token"] != offer["token"]
    with pytest.raises(InvalidStatus):
        await open_link(offer)
    await (await open_link(again)).close()
    assert offer["token"] not in host_log(sock_env) and again["token"] not in host_log(sock_env)


async def test_two_origins_are_refused_and_logged_without_a_traceback(browser, sock_env):
    offer = await browser.expect("fast_link")
    url = f"ws://127.0.0.1:{offer['port']}/link/{offer['token']}"
    for _ in range(20):
        with pytest.raises(InvalidStatus) as refused:
            await connect(url, additional_headers=[("Origin", ORIGIN), ("Origin", ORIGIN)])
        assert refused.value.response.status_code == 403
    text = host_log(sock_env)
    assert text.count("refused a connection to the fast link (Origin: several)") == 5
    assert "Traceback" not in text
    await (await open_link(offer)).close()  # the token was not spent by any of them


async def test_a_handshake_flood_is_cut_to_a_few_connections_for_a_short_while(browser):
    offer = await browser.expect("fast_link")
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
    e = await RawEntry.connect()
    e.send(call(e, 1))
    assert (await recv_json(ws, "call"))["id"] == f"{e.welcome['conn']}.1"
    assert browser.proc and browser.proc.returncode is None


async def test_connections_held_open_by_a_local_process_do_not_keep_the_worker_out(browser):
    """A local process fills the connection slots (request lines without the token, held) and
    opens many more that say nothing: the worker's connection, with the offer's token, still
    gets in."""
    offer = await browser.expect("fast_link")
    held = []
    for _ in range(MAX_CONNECTIONS):
        _, writer = await asyncio.open_connection("127.0.0.1", offer["port"])
        writer.write(b"GET /link/x HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await writer.drain()
        held.append(writer)
    for _ in range(MAX_SILENT + 10):
        held.append((await asyncio.open_connection("127.0.0.1", offer["port"]))[1])
    ws = await open_link(offer)
    e = await RawEntry.connect()
    e.send(call(e, 1))
    assert (await recv_json(ws, "call"))["id"] == f"{e.welcome['conn']}.1"
    for w in held:
        w.close()


async def test_a_frame_over_the_cap_closes_the_link_and_answers_its_calls(browser):
    ws = await open_link(await browser.expect("fast_link"))
    e = await RawEntry.connect()
    e.send(call(e, 1))
    got = await recv_json(ws, "call")
    await ws.send(json.dumps(result(got["id"], json.dumps("x" * (MAX_LINK_FRAME + 10)))))
    # Its answer was that frame: nothing else comes (the scripted page ignores the cancel), so
    # the call gets the drop's error once the grace is over (wire/adrift.py).
    assert (await browser.expect("cancel"))["id"] == got["id"]
    answer = await e.recv("result", timeout=DROP_GRACE + 5)
    assert answer["error"] == {"code": "internal", "message": LINK_DROPPED}
    assert (await browser.expect("fast_link", timeout=10))["port"]  # offered again


async def test_a_host_that_stops_makes_no_new_offer(browser):
    offer = await browser.expect("fast_link")
    ws = await open_link(offer)
    assert await browser.close() == 0
    async with asyncio.timeout(10):
        await ws.wait_closed()
    seen = []
    while not browser.inbox.empty():
        seen.append(browser.inbox.get_nowait()["type"])
    assert "fast_link" not in seen


async def test_with_the_link_off_there_is_no_offer(sock_env):
    b = await start({**sock_env, FAST_LINK_ENV: "0"})
    try:
        e = await RawEntry.connect()
        e.send(call(e, 1))
        assert "fast_link" not in await types_until(b, "call")
    finally:
        assert await b.close() == 0


def in_process_host() -> tuple[Host, Callable[[str], list[dict]]]:
    """A host in this process after the extension's hello, and what it sent the browser of a kind."""
    sent: list[bytes] = []
    host = Host(ORIGIN + "/", FrameWriter(sent.append))
    host.on_browser_frame(b'{"type":"hello","extension_version":"9","browser":"B","protocol":1}')

    def seen(kind: str) -> list[dict]:
        return [msg for frame in sent if (msg := json.loads(frame[4:]))["type"] == kind]

    return host, seen


async def test_an_offer_the_worker_does_not_take_is_made_again_and_never_given_up(monkeypatch):
    """In-process host: the worker does not open the link (a local process may hold its
    connection slots just then); each offer's token is withdrawn after OFFER_WAIT and a new
    offer made; past MAX_UNANSWERED, after a pause, but always: the link is never switched off
    for good, and the worker that opens a later offer gets in."""
    from webmcp_sidecar.wire import link_server as fast_link

    monkeypatch.setattr(fast_link, "OFFER_WAIT", 0.1)
    monkeypatch.setattr(fast_link, "MAX_BACKOFF", 0.2)
    host, seen = in_process_host()

    def offers() -> list[dict]:
        return seen("fast_link")

    await until(lambda: len(offers()) >= fast_link.MAX_UNANSWERED + 3)
    assert len({o["token"] for o in offers()}) == len(offers())
    with pytest.raises(InvalidStatus):  # a withdrawn token opens nothing
        await open_link(offers()[0])
    count = len(offers())
    await until(lambda: len(offers()) > count)
    await open_link(offers()[-1])
    await until(lambda: host.fast is not None and host.fast.is_open)
    assert host.fast.unanswered == 0


async def test_the_hosts_own_calls_out_at_a_drop_hear_of_it_too(monkeypatch):
    """In-process host: the side panel agent's calls (`Host.request`) out on the link when it
    drops: the page's `cancelled` is the drop's error, and so is silence once the grace is over."""
    from webmcp_sidecar.wire import adrift
    from webmcp_sidecar.wire.codec import dumps

    monkeypatch.setattr(adrift, "DROP_GRACE", 0.3)
    host, seen = in_process_host()
    await until(lambda: seen("fast_link"))
    ws = await open_link(seen("fast_link")[0])
    await until(lambda: host.fast is not None and host.fast.is_open)
    ask = {"type": "call", "site": "a.test", "tool": "add", "args": {}}
    tasks = [asyncio.create_task(host.request(dict(ask), 10)) for _ in range(2)]
    first, second = (await recv_json(ws, "call"))["id"], (await recv_json(ws, "call"))["id"]
    await ws.close()
    await until(lambda: {c["id"] for c in seen("cancel")} == {first, second})
    host.on_browser_frame(dumps(cancelled(first)))
    for answer in await asyncio.gather(*tasks):
        assert answer["ok"] is False
        assert answer["error"] == {"code": "internal", "message": LINK_DROPPED}
    assert len(host.adrift) == 0
    assert host.fast is not None
    await host.fast.close()



MOZ = "moz-extension://1dc79572-a92b-44ee-8188-f1ea72c6bad4"


async def test_a_host_firefox_started_learns_its_origin_from_the_hello(sock_env, tmp_path):
    """Firefox starts the host as `<manifest path> <add-on id>`, with no origin: the hello's
    (`moz-extension://<uuid>/`, per profile) is what the fast link then admits, and entries that
    came before it hear it in a `status`."""
    b = FakeBrowser(sock_env, [str(tmp_path / "io.webmcp.sidecar.json"), GECKO_ID])
    await b.start()
    try:
        e = await RawEntry.connect()
        assert e.welcome["extension_origin"] == ""
        b.send({"type": "hello", "extension_version": "0.1.0", "browser": "Firefox 153.0",
                "origin": MOZ + "/"})
        await b.expect("host_hello")
        assert (await e.recv("status"))["extension_origin"] == MOZ + "/"
        offer = await b.expect("fast_link")
        for other in (ORIGIN, "moz-extension://00000000-0000-0000-0000-000000000000"):
            with pytest.raises(InvalidStatus):
                await open_link(offer, other)
        ws = await open_link(offer, MOZ)
        await ws.close()
    finally:
        await stop(b)


@pytest.mark.parametrize("origin", [ORIGIN + "/", ""])
def test_only_a_host_firefox_started_takes_the_hellos_origin(origin):
    """Chrome's argument is the origin, whatever a hello says; a host started by hand learns
    none; and a hello's origin that is not exactly a Firefox extension's is not taken."""
    host = Host(origin, FrameWriter(lambda _: None))
    host.on_browser_frame(json.dumps({"type": "hello", "extension_version": "9",
                                      "origin": MOZ + "/"}).encode())
    assert host.origin == origin
    firefox = Host("", FrameWriter(lambda _: None))
    firefox.origin_from_hello = True
    firefox.on_browser_frame(json.dumps({"type": "hello", "extension_version": "9",
                                         "origin": "*"}).encode())
    assert firefox.origin == ""
