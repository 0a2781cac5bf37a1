"""The host's servers plugin with a fake ServerManager: `panel_servers` answered (one
`agent_servers` each, errors in plain words), state pushed on change, every call logged for the
worker with its caller, the manager made on first use only and closed with the host."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from webmcp_sidecar.native_host.servers_link import ServersLink
from webmcp_sidecar.servers.config import ServersConfig
from webmcp_sidecar.servers.runner import ServerError
from webmcp_sidecar.servers.status import ServerStatus

pytestmark = pytest.mark.anyio

ECHO = types.Tool(
    name="echo",
    description="Echoes",
    input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    annotations=types.ToolAnnotations(read_only_hint=True),
)
WIPE = types.Tool(name="wipe.all", input_schema={"type": "object"})


class FakeManager:
    def __init__(self, config_path: Path) -> None:
        self.config = ServersConfig(config_path)
        self.on_change: Any = None
        self.tools_of = {"files": [ECHO, WIPE], "off": [ECHO]}
        self.calls: list[tuple[str, str, dict[str, Any], float]] = []
        self.started: set[str] = set()
        self.closed = False
        self.block = asyncio.Event()
        self.config_error = None

    def _enabled(self) -> list[str]:
        return [n for n, e in self.config.load().servers.items() if not e.disabled]

    async def tools(self, name: str | None = None) -> dict[str, list[types.Tool]]:
        names = [name] if name else self._enabled()
        for n in names:
            if n == "broken":
                if name:
                    raise ServerError("The server 'broken' could not start: no such command")
                continue
            self.started.add(n)
        off = {n: set(e.disabled_tools) for n, e in self.config.load().servers.items()}
        return {
            n: [t for t in self.tools_of.get(n, []) if t.name not in off.get(n, set())]
            for n in names
            if n != "broken"
        }

    async def call(
        self, server: str, tool: str, args: dict[str, Any], *, timeout_s: float = 60, on_progress: Any = None
    ) -> types.CallToolResult:
        self.calls.append((server, tool, args, timeout_s))
        if tool == "crash":
            raise ServerError(f"The server {server!r} stopped during the call.")
        if tool == "hang":
            await self.block.wait()
        if on_progress:
            on_progress(1, 2, "half")
        if tool == "fail":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="no such file")], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"Echo: {args}")])

    def status(self) -> list[ServerStatus]:
        out = []
        for n, e in self.config.load().servers.items():
            state = "failed" if n == "broken" else "running" if n in self.started else "stopped"
            out.append(
                ServerStatus(
                    name=n,
                    kind=e.kind,
                    enabled=not e.disabled,
                    state=state,
                    tools=len(self.tools_of.get(n, [])),
                    last_error="no such command" if n == "broken" else None,
                )
            )
        return out

    async def restart(self, name: str) -> None:
        self.started.add(name)
        if self.on_change:
            self.on_change(name)

    async def stop(self, name: str) -> None:
        self.started.discard(name)

    async def aclose(self) -> None:
        self.closed = True


class FakeHost:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.handlers: dict[str, Any] = {}

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))

    def take(self, kind: str | None = None) -> list[dict[str, Any]]:
        out, self.sent = self.sent, []
        return [m for m in out if kind is None or m["type"] == kind]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": "fake-files"},
                    "off": {"command": "fake-off", "disabled": True},
                    "broken": {"command": "nope"},
                }
            }
        )
    )
    return path


@pytest.fixture
def made(config: Path) -> list[FakeManager]:
    return []


@pytest.fixture
def link(config: Path, made: list[FakeManager]) -> tuple[ServersLink, FakeHost]:
    host = FakeHost()

    def factory() -> FakeManager:
        made.append(FakeManager(config))
        return made[-1]

    return ServersLink(host, factory=factory), host  # type: ignore[arg-type]


async def ask(sl: ServersLink, host: FakeHost, **req: Any) -> dict[str, Any]:
    sl.on_panel({"type": "panel_servers", "id": "r1", **req}, b"")
    for _ in range(200):
        answers = [m for m in host.sent if m["type"] == "agent_servers" and m.get("id") == "r1"]
        if answers:
            host.sent = [m for m in host.sent if m not in answers]
            return answers[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no answer; sent: {host.sent}")


async def test_the_manager_is_made_on_first_use_only(link, made):
    sl, host = link
    assert made == []  # installing the link costs nothing
    r = await ask(sl, host, op="list")
    assert len(made) == 1 and r["ok"]
    assert [(s["name"], s["enabled"], s["state"]) for s in r["servers"]] == [
        ("files", True, "stopped"),
        ("off", False, "stopped"),
        ("broken", True, "failed"),
    ]
    assert made[0].started == set()  # listing starts nothing
    await ask(sl, host, op="list")
    assert len(made) == 1


async def test_tools_start_the_servers_and_come_as_mcp_json(link, made):
    sl, host = link
    r = await ask(sl, host, op="tools")
    assert made[0].started == {"files"}
    echo = r["tools"]["files"][0]
    assert echo["name"] == "echo" and echo["inputSchema"]["required"] == ["message"]
    assert echo["annotations"]["readOnlyHint"] is True
    r = await ask(sl, host, op="tools", server="broken")
    assert r["ok"] is False and "could not start: no such command" in r["error"]


async def test_enable_and_disable_a_server_or_one_tool_edit_servers_json(link, config):
    sl, host = link
    r = await ask(sl, host, op="disable", server="files", tool="wipe.all")
    assert r["ok"] and r["servers"][0]["disabled_tools"] == ["wipe.all"]
    assert json.loads(config.read_text())["mcpServers"]["files"]["disabledTools"] == ["wipe.all"]
    r = await ask(sl, host, op="tools", server="files")
    assert [t["name"] for t in r["tools"]["files"]] == ["echo"]
    await ask(sl, host, op="enable", server="files", tool="wipe.all")
    assert "disabledTools" not in json.loads(config.read_text())["mcpServers"]["files"]
    r = await ask(sl, host, op="enable", server="off")
    assert [s["enabled"] for s in r["servers"]] == [True, True, True]
    r = await ask(sl, host, op="disable", server="nobody")
    assert r["ok"] is False and "no server named 'nobody'" in r["error"]


async def test_bad_requests_get_plain_answers_and_the_host_lives(link):
    sl, host = link
    r = await ask(sl, host, op="call", server="files")
    assert r["ok"] is False and "`tool` is required" in r["error"]
    sl.on_panel({"type": "panel_servers", "id": "r1", "op": "explode"}, b"")
    [bad] = host.take("agent_servers")
    assert bad["ok"] is False and "op" in bad["error"]
    sl.on_panel({"type": "panel_servers", "op": "list"}, b"")  # no id: nobody to answer
    assert host.take() == []


async def test_an_inspector_call_is_answered_and_logged_with_its_caller(link, made):
    sl, host = link
    r = await ask(sl, host, op="call", server="files", tool="echo", args={"message": "hi", "api_key": "k"})
    assert r["result"]["ok"] is True
    assert json.loads(r["result"]["value"])["content"][0]["text"].startswith("Echo:")
    start, end = host.take("agent_server_call")
    assert start["phase"] == "start" and start["caller"] == "inspector" and start["id"].startswith("s.")
    assert (start["server"], start["tool"], start["args"]["message"]) == ("files", "echo", "hi")
    assert end["id"] == start["id"] and end["ok"] is True and "Echo:" in end["value"]
    assert isinstance(end["ms"], float)
    # A tool's own failure, and a crash: errors for the Inspector and the log, not exceptions.
    r = await ask(sl, host, op="call", server="files", tool="fail")
    assert r["result"]["ok"] is False and r["result"]["error"] == {
        "code": "tool_error",
        "message": "no such file",
    }
    assert host.take("agent_server_call")[1]["error"]["code"] == "tool_error"
    r = await ask(sl, host, op="call", server="files", tool="crash")
    assert r["ok"] and r["result"]["error"]["code"] == "server_error"
    assert "stopped during the call" in r["result"]["error"]["message"]


async def test_an_agent_call_that_is_cancelled_is_logged_as_cancelled(link, made):
    sl, host = link
    task = asyncio.create_task(sl.call("files", "hang", {}, caller="agent", timeout_s=5))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    start, end = host.take("agent_server_call")
    assert start["caller"] == "agent" and end["error"]["code"] == "cancelled"


async def test_changes_are_pushed_once_per_burst(link, made):
    sl, host = link
    await ask(sl, host, op="list")
    made[0].on_change("files")
    made[0].on_change("files")
    made[0].on_change("broken")
    await asyncio.sleep(0.02)
    pushes = host.take("agent_servers")
    assert len(pushes) == 1 and "id" not in pushes[0] and len(pushes[0]["servers"]) == 3


async def test_tools_for_the_agent_say_which_servers_are_missing(link, made):
    sl, _host = link
    tools, problems = await sl.tools_for(None)
    assert list(tools) == ["files"]
    assert problems == [
        "Your local MCP server broken is not available (no such command): its tools are left out."
    ]
    tools, problems = await sl.tools_for(["files", "off", "ghost"])  # only the enabled ones
    assert list(tools) == ["files"] and problems == []


async def test_closing_an_unused_link_makes_nothing(link, made):
    sl, _host = link
    await sl.aclose()
    assert made == []


async def test_close_closes_the_manager_and_refuses_later_use(link, made):
    sl, host = link
    await ask(sl, host, op="list")
    await sl.aclose()
    assert made[0].closed
    r = await ask(sl, host, op="list")
    assert r["ok"] is False and "shut down" in r["error"]
