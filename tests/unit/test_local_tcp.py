"""The loopback-TCP link (the Windows transport), forced on here: any local process can connect,
so nothing may count before an `entry_hello` with the endpoint's token."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from webmcp_sidecar.native_host import entry_server
from webmcp_sidecar.native_host.app import Host
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio


class Sink:
    """The browser side of the host: what reaches it."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def write(self, payload: bytes) -> None:
        self.frames.append(json.loads(payload))


@dataclass
class TcpHost:
    host: Host
    browser: Sink
    endpoint: localsock.Endpoint

    async def link(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        port = json.loads(self.endpoint.path.read_text())["port"]
        return await asyncio.open_connection("127.0.0.1", port)


@pytest.fixture
async def tcp(sock_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[TcpHost]:
    monkeypatch.setattr(localsock, "USE_UNIX", False)
    sink = Sink()
    host = Host("chrome-extension://test/", sink)  # type: ignore[arg-type]
    host.link.extension_version = "0.1.0"  # the extension has said hello
    server, endpoint = await localsock.serve(host.entries.serve)
    host.entries.token = endpoint.token
    try:
        yield TcpHost(host, sink, endpoint)
    finally:
        server.close()


def send(writer: asyncio.StreamWriter, msg: dict[str, Any]) -> None:
    writer.write(localsock.frame(dumps(msg)))


async def closed(reader: asyncio.StreamReader) -> bool:
    async with asyncio.timeout(10):
        return await localsock.read_frame(reader) is None


BEFORE_HELLO = [
    {"type": "call", "id": "c1.1", "site": "a.test", "tool": "add", "args": {}},
    {"type": "open_url", "id": "c1.2", "url": "https://evil.test/"},
    {"type": "browser_call", "id": "c1.3", "session": "panel", "tool": "click",
     "args": {"ref": "e1"}, "tab_id": 1},
]


@pytest.mark.parametrize("msg", BEFORE_HELLO, ids=lambda m: m["type"])
async def test_calls_before_the_hello_are_refused(tcp: TcpHost, msg: dict[str, Any]) -> None:
    reader, writer = await tcp.link()
    send(writer, msg)
    send(writer, {"type": "entry_hello", "protocol": PROTOCOL_VERSION,
                  "client": "x", "pid": 1, "token": tcp.endpoint.token})
    assert await closed(reader)  # no welcome: the connection is dropped
    assert tcp.browser.frames == []


@pytest.mark.parametrize("token", ["", "wrong", "ü" * 32])
async def test_a_hello_with_a_wrong_token_is_refused(tcp: TcpHost, token: str) -> None:
    reader, writer = await tcp.link()
    send(writer, {"type": "entry_hello", "protocol": PROTOCOL_VERSION,
                  "client": "x", "pid": 1, "token": token})
    send(writer, BEFORE_HELLO[0])
    assert await closed(reader)
    assert tcp.browser.frames == [] and tcp.host.entries.conns == {}


async def test_a_silent_connection_is_dropped(tcp: TcpHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entry_server, "HELLO_TIMEOUT", 0.2)
    reader, _writer = await tcp.link()
    assert await closed(reader)


async def test_with_the_token_an_entry_works_in_its_own_session(tcp: TcpHost) -> None:
    (ep,) = localsock.list_endpoints()
    assert stat.S_IMODE(ep.path.stat().st_mode) == 0o600  # the token is for this user only
    reader, writer = await localsock.connect(ep)
    send(writer, {"type": "entry_hello", "protocol": PROTOCOL_VERSION,
                  "client": "x", "pid": 1, "token": ep.token})
    welcome = json.loads(await localsock.read_frame(reader) or b"{}")
    conn = welcome["conn"]
    send(writer, {"type": "browser_call", "id": conn + ".1", "session": "panel", "tool": "click",
                  "args": {"ref": "e1"}, "tab_id": 3})
    result = json.loads(await localsock.read_frame(reader) or b"{}")
    assert result["id"] == conn + ".1" and result["error"]["code"] == "bad_request"
    send(writer, {"type": "browser_call", "id": conn + ".2", "session": "c77", "tool": "click",
                  "args": {"ref": "e1"}, "tab_id": 3})
    send(writer, {"type": "call", "id": conn + ".3", "site": "a.test", "tool": "add", "args": {}})
    send(writer, {"type": "ping", "id": "p"})
    assert json.loads(await localsock.read_frame(reader) or b"{}")["type"] == "pong"
    calls = tcp.browser.frames
    assert [c["id"] for c in calls] == [conn + ".2", conn + ".3"]
    assert calls[0]["session"] == conn and "tab_id" not in calls[0]
    writer.close()
