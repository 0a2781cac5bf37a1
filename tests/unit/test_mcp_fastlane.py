"""The entry's fast lane (mcp_server/fastlane.py) answers byte for byte as the SDK's path does.

The entry is spoken to in raw JSON-RPC lines on its stdio. A tools/call without `_meta` takes the
lane; the same call with a `_meta` progress token takes the SDK's path: both answers must be the
same bytes apart from the id."""

import asyncio
import json
import os
import sys
from typing import Any

import pytest

from tests.support.fake_browser import FakeBrowser
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

ADD = {
    "name": "add",
    "description": "Adds",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
}


class RawStdio:
    """`webmcp-sidecar mcp` driven line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seq = 100

    @classmethod
    async def start(cls, home: str) -> "RawStdio":
        env = {k: os.environ[k] for k in ("PATH", "USER", "LOGNAME") if k in os.environ}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "webmcp_sidecar",
            "mcp",
            env={**env, "HOME": home},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 24,
        )
        return cls(proc)

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")

    async def line(self) -> bytes:
        assert self.proc.stdout
        return await asyncio.wait_for(self.proc.stdout.readline(), 20)

    async def answer(self, rid: Any) -> bytes:
        """The next line answering `rid` (notifications in between are skipped)."""
        while True:
            raw = await self.line()
            msg = json.loads(raw)
            if "method" not in msg:
                assert msg.get("id") == rid, raw
                return raw

    async def request(self, method: str, params: dict[str, Any] | None = None) -> bytes:
        self.seq += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.seq, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return await self.answer(self.seq)

    async def handshake(self, version: str = "2025-11-25") -> None:
        await self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), 20)


def same_but_id(a: bytes, b: bytes) -> bool:
    """The same bytes after the id (`{"jsonrpc":"2.0","id":N,` comes first in both)."""
    ja, jb = json.loads(a), json.loads(b)
    return (
        a.split(b'"id":' + json.dumps(ja["id"]).encode() + b",", 1)[1]
        == b.split(b'"id":' + json.dumps(jb["id"]).encode() + b",", 1)[1]
    )


async def answering(browser: FakeBrowser, value: dict[str, Any]) -> None:
    while True:
        call = await browser.expect("call", timeout=30)
        browser.send({"type": "result", "id": call["id"], **value})


async def site_tool_name(entry: RawStdio) -> str:
    for _ in range(100):
        tools = json.loads(await entry.request("tools/list"))["result"]["tools"]
        names = [t["name"] for t in tools if t["name"].endswith("__add")]
        if names:
            return names[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the site tool never showed up")


@pytest.mark.parametrize(
    "value",
    [
        {"ok": True, "value": '{"sum":3}'},  # structured content
        {"ok": True, "value": '"plain text \\u00e9"'},
        {"ok": True, "value": "[1,2]"},
        {"ok": False, "error": {"code": "page_error", "message": "the page says no"}},
        {"ok": False, "error": {"name": "Error"}},  # a malformed frame: the same JSON-RPC error
    ],
)
async def test_lane_and_sdk_answer_a_site_tool_call_with_the_same_bytes(sock_env, value):
    browser = FakeBrowser(sock_env)
    await browser.start()
    browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                  "extension_version": "0.1.0", "browser": "Fake"})
    browser.send({"type": "registry", "sites": {"a.test": [ADD]}})
    responder = asyncio.ensure_future(answering(browser, value))
    entry = await RawStdio.start(sock_env["HOME"])
    try:
        await entry.handshake()
        name = await site_tool_name(entry)
        lane = await entry.request("tools/call", {"name": name, "arguments": {"a": 1}})
        sdk = await entry.request(
            "tools/call", {"name": name, "arguments": {"a": 1}, "_meta": {"progressToken": "p"}}
        )
        assert same_but_id(lane, sdk), (lane, sdk)
        if "message" in value.get("error", {"message": ""}):
            assert json.loads(lane)["result"]["isError"] is (not value["ok"])
        # Invalid arguments: the entry's own error result, the same both ways.
        lane = await entry.request("tools/call", {"name": name, "arguments": {"a": "x"}})
        sdk = await entry.request(
            "tools/call", {"name": name, "arguments": {"a": "x"}, "_meta": {"progressToken": "q"}}
        )
        assert same_but_id(lane, sdk) and json.loads(lane)["result"]["isError"] is True
        # ping, both ways.
        assert same_but_id(
            await entry.request("ping"), await entry.request("ping", {"_meta": {"progressToken": 1}})
        )
    finally:
        responder.cancel()
        await entry.close()
        await browser.close()


RICH = {
    "name": "rich",
    "title": "Rich \u00e9 tool",
    "description": "Has everything: a title, an output schema, annotations, non-ASCII \u2713",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "default": 1.5}}},
    "outputSchema": {"type": "object", "properties": {"n": {"type": "number"}}},
    "annotations": {"readOnlyHint": True, "untrustedContentHint": True},
}


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
async def test_lane_and_sdk_list_the_tools_with_the_same_bytes(sock_env, version):
    """tools/list from the kept bytes (the lane) and through the SDK (`_meta` sends it there):
    the same answer for each protocol version, before and after the list changes."""
    browser = FakeBrowser(sock_env)
    await browser.start()
    browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                  "extension_version": "0.1.0", "browser": "Fake"})
    browser.send({"type": "registry", "sites": {"a.test": [ADD, RICH], "b.test": [ADD]}})
    entry = await RawStdio.start(sock_env["HOME"])
    try:
        await entry.handshake(version)
        await site_tool_name(entry)
        for _ in range(2):
            lane = await entry.request("tools/list")
            sdk = await entry.request("tools/list", {"_meta": {"progressToken": "t"}})
            assert same_but_id(lane, sdk), (lane, sdk)
        names = {t["name"] for t in json.loads(lane)["result"]["tools"]}
        assert {"a_test__add", "a_test__rich", "b_test__add"} <= names
        # One site changes: the kept bytes are not served stale.
        browser.send({"type": "site_tools", "site": "b.test", "tools": [RICH]})
        for _ in range(100):
            lane = await entry.request("tools/list")
            names = {t["name"] for t in json.loads(lane)["result"]["tools"]}
            if "b_test__rich" in names:
                break
            await asyncio.sleep(0.05)
        assert "b_test__rich" in names and "b_test__add" not in names and "a_test__add" in names
        sdk = await entry.request("tools/list", {"_meta": {"progressToken": "u"}})
        assert same_but_id(lane, sdk), (lane, sdk)
    finally:
        await entry.close()
        await browser.close()


async def test_before_the_handshake_and_for_other_shapes_the_sdk_answers(sock_env):
    browser = FakeBrowser(sock_env)
    await browser.start()
    browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                  "extension_version": "0.1.0", "browser": "Fake"})
    browser.send({"type": "registry", "sites": {"a.test": [ADD]}})
    responder = asyncio.ensure_future(answering(browser, {"ok": True, "value": '{"sum":3}'}))
    entry = await RawStdio.start(sock_env["HOME"])
    try:
        # Before initialize: the SDK's refusal, not a tool's answer.
        early = json.loads(await entry.request("tools/call", {"name": "a_test__add", "arguments": {"a": 1}}))
        assert "error" in early and "result" not in early
        await entry.handshake()
        name = await site_tool_name(entry)
        # Arguments that are not an object: the SDK's invalid-params error.
        bad = json.loads(await entry.request("tools/call", {"name": name, "arguments": [1]}))
        assert bad["error"]["code"] == -32602
        # An unknown tool: the entry's own explanation (through the SDK's path).
        unknown = json.loads(await entry.request("tools/call", {"name": "nope__x"}))
        assert unknown["result"]["isError"] is True
        assert "no tool named `nope__x`" in unknown["result"]["content"][0]["text"]
    finally:
        responder.cancel()
        await entry.close()
        await browser.close()


async def test_a_cancelled_lane_call_tells_the_browser_and_is_never_answered(sock_env):
    browser = FakeBrowser(sock_env)
    await browser.start()
    browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                  "extension_version": "0.1.0", "browser": "Fake"})
    browser.send({"type": "registry", "sites": {"a.test": [ADD]}})
    entry = await RawStdio.start(sock_env["HOME"])
    try:
        await entry.handshake()
        name = await site_tool_name(entry)
        entry.send(
            {
                "jsonrpc": "2.0",
                "id": "c1",
                "method": "tools/call",
                "params": {"name": name, "arguments": {"a": 1}},
            }
        )
        call = await browser.expect("call")
        entry.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "c1", "reason": "user"},
            }
        )
        cancel = await browser.expect("cancel")
        assert cancel["id"] == call["id"]
        # The next answer on the wire is the ping's: the cancelled call got none.
        pong = json.loads(await entry.request("ping"))
        assert pong["id"] == entry.seq and pong["result"] == {}
    finally:
        await entry.close()
        await browser.close()


async def test_pipelined_lane_requests_are_all_answered_whole(sock_env):
    browser = FakeBrowser(sock_env)
    await browser.start()
    browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                  "extension_version": "0.1.0", "browser": "Fake"})
    browser.send({"type": "registry", "sites": {"a.test": [ADD]}})
    responder = asyncio.ensure_future(answering(browser, {"ok": True, "value": '{"sum":3}'}))
    entry = await RawStdio.start(sock_env["HOME"])
    try:
        await entry.handshake()
        name = await site_tool_name(entry)
        for i in range(200):  # written at once, before any answer is read
            params = {"name": name, "arguments": {"a": i}} if i % 2 else None
            msg = {"jsonrpc": "2.0", "id": f"p{i}", "method": "tools/call" if i % 2 else "ping"}
            entry.send(msg if params is None else {**msg, "params": params})
        answers = {}
        while len(answers) < 200:
            msg = json.loads(await entry.line())  # each line is one whole message
            if "method" not in msg:
                answers[msg["id"]] = msg
        for i in range(200):
            got = answers[f"p{i}"]
            assert got["result"] == (
                {
                    "content": [{"text": '{"sum":3}', "type": "text"}],
                    "isError": False,
                    "structuredContent": {"sum": 3},
                }
                if i % 2
                else {}
            )
    finally:
        responder.cancel()
        await entry.close()
        await browser.close()
