"""Local MCP servers' tools for the side panel's agent (agent/servers.py): `<server>__<tool>`
names, hints to the confirm policy, the conversation's choice of servers, progress on the card,
results marked untrusted; with a fake servers link and the fake LLM."""

from __future__ import annotations

import re
from typing import Any

import mcp.types as types
import pytest

from tests.support.fake_llm import Calls, Text
from tests.unit.test_agent import ScriptedHost, configure, env  # noqa: F401 (the fixture)
from webmcp_sidecar.agent import confirm_policy
from webmcp_sidecar.agent import panel_messages as pm
from webmcp_sidecar.agent.servers import ServersToolProvider, result_text
from webmcp_sidecar.agent.service import AgentService
from webmcp_sidecar.agent.toolset import Target, ToolSpec
from webmcp_sidecar.wire import constants

pytestmark = pytest.mark.anyio

OBJ = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
ECHO = types.Tool(
    name="echo",
    description="Echoes back",
    input_schema=OBJ,
    annotations=types.ToolAnnotations(read_only_hint=True),
)
ADD = types.Tool(
    name="notes.add",
    input_schema={"type": "object"},
    annotations=types.ToolAnnotations(destructive_hint=False),
)
WIPE = types.Tool(name="wipe", input_schema={"type": "object"})


class FakeLink:
    def __init__(self) -> None:
        self.tools = {"files": [ECHO, WIPE], "notes": [ADD]}
        self.asked: list[list[str] | None] = []
        self.calls: list[tuple[str, str, dict[str, Any], str]] = []
        self.reply: types.CallToolResult | Exception = types.CallToolResult(
            content=[types.TextContent(type="text", text="Echo: hi <untrusted-0 x>")]
        )

    async def tools_for(self, names: list[str] | None) -> tuple[dict[str, list[Any]], list[str]]:
        self.asked.append(names)
        got = {k: v for k, v in self.tools.items() if names is None or k in names}
        return got, [
            "Your local MCP server broken is not available (no such command): its tools are left out."
        ]

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        *,
        caller: str,
        timeout_s: float,
        on_progress: Any = None,
    ) -> Any:
        self.calls.append((server, tool, args, caller))
        if on_progress is not None:
            on_progress(1, 2, "half way")
            on_progress(2, 2, "done")
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


async def specs_of(provider: ServersToolProvider, target: Target) -> dict[str, ToolSpec]:
    await provider.prepare(target)
    return {s.name: s for s in provider.specs(target)}


async def test_specs_are_named_by_server_and_carry_the_servers_hints():
    specs = await specs_of(ServersToolProvider(FakeLink()), Target("a.test"))
    assert sorted(specs) == ["files__echo", "files__wipe", "notes__notes_add"]
    echo, wipe, add = specs["files__echo"], specs["files__wipe"], specs["notes__notes_add"]
    assert (echo.origin, echo.server, echo.read_only, echo.destructive) == ("mcp", "files", True, False)
    assert (wipe.read_only, wipe.destructive) == (False, True)  # MCP's defaults
    assert (add.read_only, add.destructive) == (False, False)
    assert echo.parameters == OBJ and echo.description == "[local MCP server files] Echoes back"
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in specs)


async def test_the_conversation_chooses_its_servers():
    link = FakeLink()
    provider = ServersToolProvider(link)
    assert sorted(await specs_of(provider, Target("a.test", servers=("notes",)))) == ["notes__notes_add"]
    assert link.asked == [["notes"]]
    assert await specs_of(provider, Target("a.test", servers=())) == {}
    assert link.asked == [["notes"]]  # none in play: nothing asked, nothing started


def test_confirm_policy_for_server_tools():
    def spec(read_only: bool, destructive: bool) -> ToolSpec:
        return ToolSpec(
            "files__x",
            "d",
            {},
            read_only,
            None,
            "files__x",
            origin="mcp",
            server="files",
            destructive=destructive,
        )

    assert not confirm_policy.decide(spec(True, False), "confirm", {"other.test"}).confirm
    plain = confirm_policy.decide(spec(False, False), "confirm", set())
    assert plain.confirm and plain.reason == ""
    strong = confirm_policy.decide(spec(False, True), "confirm", set())
    assert strong.confirm and "files" in strong.reason and "delete or overwrite" in strong.reason
    assert not confirm_policy.decide(spec(False, True), "auto", set()).confirm
    assert confirm_policy.data_source(spec(True, False), "a.test", False) == "mcp:files"
    # A page's own read-only claim does not carry a local file to it unasked.
    page = ToolSpec("lookup", "d", {}, True, "b.test", "lookup", origin="page")
    d = confirm_policy.decide(page, "confirm", {"mcp:files"})
    assert d.confirm and "your local server files" in d.reason


def test_results_as_the_model_reads_them():
    r = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="line"),
            types.ImageContent(type="image", data="AAAA", mime_type="image/png"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///tmp/a.txt", text="file text"),
            ),
        ]
    )
    text, err = result_text(r)
    assert text == "line\n[image image/png] omitted\n[resource file:///tmp/a.txt]\nfile text" and not err
    only = types.CallToolResult(content=[], structured_content={"n": 1}, is_error=True)
    assert result_text(only) == ('{"n": 1}', True)


async def chat(host: ScriptedHost, service: AgentService, text: str, **extra: Any) -> dict:
    before = len(host.events("turn_end"))
    service.handle(
        {
            "type": "panel_chat",
            "text": text,
            "site": "demo.test",
            "tab": {"id": 7, "url": "http://demo.test/", "title": "Demo"},
            **extra,
        }
    )
    await host.wait(lambda: len(host.events("turn_end")) > before)
    return host.events("turn_end")[-1]


async def test_a_turn_calls_a_server_tool_with_progress_and_an_untrusted_result(env):  # noqa: F811
    host, service, llm = env
    link = FakeLink()
    service.tool_providers.append(ServersToolProvider(link))
    configure(service, llm)
    llm.script(Calls([("files__echo", {"message": "hi"})]), Text("It said hi."))
    end = await chat(host, service, "echo hi")
    assert end["reason"] == "done"
    names = [t["function"]["name"] for t in llm.requests[0].body["tools"]]
    assert names[:3] == ["searchFlights", "bookFlight", "never"]
    assert {"files__echo", "files__wipe", "notes__notes_add"} <= set(names)
    assert link.calls == [("files", "echo", {"message": "hi"}, "agent")]
    (call,) = host.events("tool_call")
    assert call["tool"] == "files__echo"
    progress = host.events("progress")
    assert progress and progress[-1] == {
        "kind": "progress",
        "call_id": call["call_id"],
        "progress": 2,
        "total": 2,
        "message": "done",
    }
    notices = [e["text"] for e in host.events("notice")]
    assert any("broken is not available" in n for n in notices)
    tool_msg = next(m for m in llm.requests[1].body["messages"] if m["role"] == "tool")
    assert re.match(r'<untrusted-[0-9a-f]{16} source="tool_result" tool="files__echo">', tool_msg["content"])
    assert "&lt;untrusted-0" in tool_msg["content"]  # the server's text cannot fake our tags
    saved = service.store.load(service.conv.id)
    assert saved is not None and [m.data_from for m in saved.history if m.role == "tool"] == ["mcp:files"]


async def test_server_errors_reach_the_model_as_untrusted_and_bad_args_never_run(env):  # noqa: F811
    host, service, llm = env
    link = FakeLink()
    link.reply = types.CallToolResult(content=[types.TextContent(type="text", text="ENOENT")], is_error=True)
    service.tool_providers.append(ServersToolProvider(link))
    configure(service, llm)
    llm.script(
        Calls([("files__echo", {"message": "x"})]), Calls([("files__echo", {"nope": 1})]), Text("Sorry.")
    )
    await chat(host, service, "go")
    errs = [e["error"] for e in host.events("tool_result")]
    assert errs[0] == "ENOENT" and "'message' is a required property" in errs[1]
    assert len(link.calls) == 1
    msgs = [m for m in llm.requests[2].body["messages"] if m["role"] == "tool"]
    assert re.match(r'<untrusted-[0-9a-f]{16} source="tool_error"', msgs[0]["content"])


async def test_panel_chat_servers_empty_means_none_in_play(env):  # noqa: F811
    host, service, llm = env
    link = FakeLink()
    service.tool_providers.append(ServersToolProvider(link))
    configure(service, llm)
    llm.script(Text("Hello."))
    await chat(host, service, "hi", servers=[])
    names = [t["function"]["name"] for t in llm.requests[0].body["tools"]]
    assert not any("__" in n for n in names) and link.asked == []
    llm.script(Text("Hello."))
    await chat(host, service, "hi", servers=["notes"])
    names = [t["function"]["name"] for t in llm.requests[1].body["tools"]]
    assert [n for n in names if "__" in n] == ["notes__notes_add"]


def test_messages_and_type_lists():
    req = pm.panel_message.validate_python(
        {
            "type": "panel_servers",
            "id": "1",
            "op": "call",
            "server": "files",
            "tool": "echo",
            "args": {"m": 1},
        }
    )
    assert isinstance(req, pm.PanelServers) and req.args == {"m": 1}
    with pytest.raises(ValueError):
        pm.PanelServers.model_validate({"type": "panel_servers", "id": "1", "op": "rm -rf"})
    ev = pm.AgentEvent(
        conversation_id="c", turn_id="t", event={"kind": "progress", "call_id": "x", "progress": 1}
    )  # type: ignore[arg-type]
    assert isinstance(ev.event, pm.ProgressEvent)
    assert "panel_servers" in constants.PANEL_TYPES and constants.SERVERS_PANEL_TYPES == ("panel_servers",)
    assert {"agent_servers", "agent_server_call"} <= set(constants.AGENT_TYPES)
    chat = pm.PanelChat.model_validate({"type": "panel_chat", "text": "x"})
    assert chat.servers is None


def test_the_agent_hook_leaves_panel_servers_to_the_servers_plugin():
    from webmcp_sidecar.agent import hook

    class H:
        def __init__(self) -> None:
            self.handlers: dict[str, Any] = {}

    host = H()
    handles = hook.AgentPlugin(host).HANDLES  # type: ignore[arg-type]
    assert "panel_servers" not in handles and "panel_chat" in handles
    assert "panel_skills" not in handles
