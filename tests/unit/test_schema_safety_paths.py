"""Hostile page schemas through the real processes: the MCP entry (a client's tools/call) and the
host (the side panel's agent). The schema crosses page -> host -> entry as data; neither process
may fetch its `$ref`, hang on its `pattern`, or stop answering while a check runs."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.fake_llm import Calls, FakeLLM, Text
from tests.support.mcp_session import McpSession, text
from tests.support.schema_attacks import (
    HOSTILE_INPUT,
    CountingServer,
    backtracking_pattern,
    exploding,
    with_ref,
)
from webmcp_sidecar.tools.validation import TOO_SLOW
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

FINE = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def tools(srv: CountingServer) -> list[dict[str, Any]]:
    schemas = {"remote": with_ref(srv.url), "local_file": with_ref("file:///etc/passwd"),
               "pattern": backtracking_pattern(), "explode": exploding(), "fine": FINE}
    return [{"name": n, "description": n, "inputSchema": s, "annotations": {"readOnlyHint": True}}
            for n, s in schemas.items()]


CALLS = [("remote", {"q": "x"}), ("local_file", {"q": "x"}), ("pattern", {"s": HOSTILE_INPUT}),
         ("explode", {"x": 5})]


def assert_refusals(srv: CountingServer, texts: list[str]) -> None:
    remote, local_file, pattern, explode = texts
    assert srv.url in remote and "outside itself" in remote
    assert "file:///etc/passwd" in local_file and "outside itself" in local_file
    assert "does not match '^(a+)+$'" in pattern
    assert TOO_SLOW in explode
    assert srv.hits == []


async def test_the_entry_refuses_without_fetching_hanging_or_blocking(sock_env):
    with CountingServer() as srv:
        b = FakeBrowser(sock_env)
        await b.start()
        b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                "extension_version": "0.1.0", "browser": "Fake"})
        b.send({"type": "registry", "sites": {"a.test": tools(srv)}})
        async with McpSession(sock_env) as mcp:
            await mcp.wait_tools(lambda n: "a_test__fine" in n)
            texts: list[str] = []
            with anyio.fail_after(60):  # the old entry never answers the pattern or explode calls
                for name, args in CALLS[:3]:
                    r = await mcp.call(f"a_test__{name}", args)
                    assert r.is_error
                    texts.append(text(r))
                listed: set[str] = set()
                async with anyio.create_task_group() as tg:
                    async def slow() -> None:
                        r = await mcp.call("a_test__explode", CALLS[3][1])
                        texts.append(text(r))
                    tg.start_soon(slow)
                    listed = await mcp.names()  # the entry still answers another request
                assert "a_test__explode" in listed
            assert_refusals(srv, texts)

            async def answer() -> None:
                call = await b.expect("call")  # the first call that reached the browser
                assert call["tool"] == "fine"
                b.send({"type": "result", "id": call["id"], "ok": True, "value": '"ok"'})

            async with anyio.create_task_group() as tg:
                tg.start_soon(answer)
                assert text(await mcp.call("a_test__fine", {"q": "x"})) == "ok"
        await b.close()


async def test_the_panel_agent_in_the_host_refuses_the_same(tmp_path):
    env = {"WEBMCP_SIDECAR_SOCKET_DIR": str(tmp_path / "sock"),
           "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
           "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data"),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    with CountingServer() as srv, FakeLLM() as llm:
        llm.script(Calls(CALLS), Text("Those tools cannot be used."))
        b = FakeBrowser(env)
        await b.start()
        try:
            b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                    "extension_version": "0.1.0", "browser": "Fake"})
            b.send({"type": "registry", "sites": {"a.test": tools(srv)}})
            b.send({"type": "panel_settings", "settings": {
                "provider": "ollama", "mode": "auto",
                "providers": {"ollama": {"model": "fake-1", "base_url": llm.openai_url}}}})
            b.send({"type": "panel_chat", "text": "go", "site": "a.test",
                    "tab": {"url": "http://a.test/", "title": "A"}})
            seen: list[dict[str, Any]] = []
            results: list[dict[str, Any]] = []
            pinged = False
            async with asyncio.timeout(60):  # the old host never gets past the pattern call
                while True:
                    msg = await b.inbox.get()
                    seen.append(msg)
                    event = msg.get("event") or {}
                    if msg["type"] == "agent_event" and event.get("kind") == "tool_result":
                        results.append(event)
                        if len(results) == 3 and not pinged:  # now checking `explode`
                            b.send({"type": "ping", "id": "while-checking"})
                            pinged = True
                    if msg["type"] == "agent_event" and event.get("kind") == "turn_end":
                        break
            assert [e["ok"] for e in results] == [False] * 4
            assert_refusals(srv, [e["error"] for e in results])
            assert any(m["type"] == "pong" for m in seen)  # the host kept answering
            assert not [m for m in seen if m["type"] == "call"]  # nothing reached the page
            tool_msgs = [m for m in llm.requests[1].body["messages"] if m["role"] == "tool"]
            assert all(m["content"].startswith("Not run.") for m in tool_msgs)
            assert json.dumps(tool_msgs).count("outside itself") == 2
        finally:
            assert b.proc is not None
            b.proc.kill()
            await b.proc.wait()
