"""The protocol version at the handshakes: extension <-> host (`hello` / `host_hello`) and MCP
entry <-> host (`entry_hello` / `welcome`). A mismatch is said plainly and no call is routed."""

import asyncio
from pathlib import Path

import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.raw_entry import RawEntry, open_link
from webmcp_sidecar.mcp_server import hosts
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import ENTRY_MISMATCH, PROTOCOL_VERSION, VERSION_MISMATCH

pytestmark = pytest.mark.anyio

OTHER = PROTOCOL_VERSION + 1
TOOLS = [{"name": "add", "description": "Add"}]


def host_log(tmp_path: Path) -> str:
    return (tmp_path / "log" / "host.log").read_text(encoding="utf-8")


async def test_host_refuses_an_extension_of_another_protocol(sock_env, tmp_path):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "extension_version": "9.0.0", "browser": "B", "protocol": OTHER})
    assert (await b.expect("host_hello"))["protocol"] == PROTOCOL_VERSION  # so the worker can say it
    b.send({"type": "registry", "sites": {"a.test": TOOLS}})
    e = await RawEntry.connect()
    assert e.welcome["extension_connected"] is False and e.welcome.get("sites", {}) == {}
    e.send({"type": "call", "id": e.welcome["conn"] + ".1", "site": "a.test", "tool": "add"})
    r = await e.recv("result")
    text = VERSION_MISMATCH.format(extension=OTHER, host=PROTOCOL_VERSION)
    assert r["ok"] is False and r["error"]["message"] == text
    assert "webmcp-sidecar install" in text
    # Nor passes it an entry's link (the worker would open it and route calls on it).
    e.send({"type": "entry_link_offer", "port": 40000, "token": "t" * 43})
    e.send({"type": "ping", "id": "after"})
    assert (await e.recv("pong"))["id"] == "after"  # the offer was taken in before this
    e.close()
    assert await b.close() == 0
    assert text in host_log(tmp_path)
    assert "entry_link" not in {m.get("type") for m in _drain(b)}


async def test_host_refuses_the_calls_of_an_entry_of_another_protocol(sock_env, tmp_path):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "B"})
    b.send({"type": "registry", "sites": {"a.test": TOOLS}})
    await b.expect("host_hello")
    _, reader, writer = await open_link()
    hello = {"type": "entry_hello", "client": "old", "pid": 7, "protocol": OTHER}
    writer.write(localsock.frame(dumps(hello)))
    welcome = RawEntry()
    welcome.reader, welcome.writer = reader, writer
    w = await welcome.recv("welcome")
    assert w["protocol"] == PROTOCOL_VERSION and w.get("sites", {}) == {}
    welcome.send({"type": "call", "id": w["conn"] + ".1", "site": "a.test", "tool": "add"})
    r = await welcome.recv("result")
    text = ENTRY_MISMATCH.format(entry=OTHER, host=PROTOCOL_VERSION)
    assert r["ok"] is False and r["error"] == {"code": "bad_request", "message": text}
    welcome.close()
    assert await b.close() == 0
    assert text in host_log(tmp_path)
    assert "call" not in {m.get("type") for m in _drain(b)}  # nothing reached the browser


def _drain(b: FakeBrowser) -> list[dict]:
    out = []
    while not b.inbox.empty():
        out.append(b.inbox.get_nowait())
    return out


async def test_entry_says_plainly_when_a_host_speaks_another_protocol(private_home, caplog):
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await localsock.read_frame(reader)
        welcome = {"type": "welcome", "host_id": "h", "conn": "c1", "pid": 1, "protocol": OTHER,
                   "extension_connected": True, "sites": {"a.test": TOOLS}}
        writer.write(localsock.frame(dumps(welcome)))
        await localsock.read_frame(reader)

    server, endpoint = await localsock.serve(serve)
    pool = hosts.HostPool("test")
    text = ENTRY_MISMATCH.format(entry=PROTOCOL_VERSION, host=OTHER)
    try:
        async with asyncio.TaskGroup() as tg:
            await pool.scan(tg)
            # Kept as a link (no reconnect loop), with no browser and no sites: only the reason.
            assert pool.problem == text
            assert pool.connected_browsers() == [] and pool.merged() == {}
            pool.close()
    finally:
        server.close()
        endpoint.path.unlink(missing_ok=True)
    assert text in caplog.text
