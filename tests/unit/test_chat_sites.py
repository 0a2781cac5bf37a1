"""Chat-site adapters (docs/CHAT_SITES.md): the model and its path syntax, the shipped adapters,
the store (the user's files over shipped ones, on/off, verified kept beside the text it worked
with), the CLI in a private data dir, and the host plugin (native_host/chat_link.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from webmcp_sidecar.chat_sites.model import ChatSite
from webmcp_sidecar.chat_sites.paths import PathError, parse
from webmcp_sidecar.chat_sites.store import BUILTIN, ChatSiteError, ChatSiteStore
from webmcp_sidecar.native_host import chat_link

pytestmark = pytest.mark.anyio

SHIPPED = {"chatgpt", "claude", "deepseek", "doubao", "doubao-samantha", "gemini", "kimi", "qwen", "tongyi"}


def adapter(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": "replica",
        "title": "Replica",
        "version": "1.0.0",
        "source": "tests/support/chat_replica.py",
        "hostnames": ["127.0.0.1:8123"],
        "request": {"url": "/api/chat*", "message_path": "messages[-1].content"},
        "response": {"kind": "sse", "text_paths": ["choices[0].delta.content"]},
        "selectors": {"input": "#input", "send": "#send", "last_answer": ".answer"},
    }
    doc.update(over)
    return doc


def text_of(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"


def test_paths_parse_keys_indexes_and_json_steps():
    assert parse("messages[-1].content") == ["messages", -1, "content"]
    assert parse("event_data.@json.text") == ["event_data", "@json", "text"]
    assert parse('["a.b"][0]') == ["a.b", 0]
    for bad in ("", ".a", "a..b", "a b", "a.[0]", "a[x]"):
        with pytest.raises(PathError):
            parse(bad)


def test_paths_many_steps_read_only():
    from webmcp_sidecar.chat_sites.paths import Many, single

    assert parse("a[*].b") == ["a", Many(), "b"]
    assert parse("f[?type=RESPONSE].content") == ["f", Many("type", "RESPONSE"), "content"]
    assert single(parse("a[0].b")) and not single(parse("a[*].b"))
    for bad in ("a[?t]", "a[?=x]", "a[**]", 'a[?t="x"]'):
        with pytest.raises(PathError):
            parse(bad)


def test_stream_formats_ops_events_connect():
    site = ChatSite.model_validate(
        adapter(
            request={
                "url": "/apiv2/x.ChatService/Chat",
                "envelope": "connect",
                "message_path": "message.blocks[0].text.content",
            },
            response={"kind": "connect", "text_paths": ["block.text.content"]},
        )
    )
    assert site.request.envelope == "connect"
    ops = ChatSite.model_validate(
        adapter(
            response={
                "kind": "sse",
                "events": ["delta"],
                "patch": {},
                "text_paths": ["r.f[?type=RESPONSE].c"],
            }
        )
    )
    assert ops.dump()["response"]["patch"] == {"path": "p", "op": "o", "value": "v"}
    bad = [
        {"request": {"url": "/x", "message_path": "messages[*].content"}},  # written back: one place
        {"request": {"url": "/x", "envelope": "grpc"}},
        {"response": {"kind": "sse", "events": [""], "text_paths": ["a"]}},
        {"response": {"kind": "sse", "patch": {"op": "a..b"}, "text_paths": ["a"]}},
    ]
    for over in bad:
        with pytest.raises(ValidationError):
            ChatSite.model_validate(adapter(**over))


def test_every_shipped_adapter_is_valid_names_its_source_and_says_unverified():
    names = set()
    for f in sorted(BUILTIN.glob("*.chat.json")):
        site = ChatSite.model_validate_json(f.read_text())
        assert f.name == f"{site.name}.chat.json"
        assert len(site.source) > 40 and ("GitHub" in site.source or "docs." in site.source)
        assert site.description.startswith("Unverified")
        names.add(site.name)
    assert names == SHIPPED


def test_problems_say_line_and_field(tmp_path: Path):
    store = ChatSiteStore(tmp_path, builtin=None)
    doc = adapter(hostnames=["*"], response={"kind": "sse"})
    doc["request"]["message_path"] = "messages..content"
    problems = store.validate_text(text_of(doc), "x.chat.json")
    joined = "\n".join(problems)
    assert "hostnames[0]: Value error" not in joined and "hostnames[0]: not a hostname" in joined
    assert "request.message_path: not a path step at character 9" in joined
    assert "response: a `sse` response needs `text_paths`" in joined
    assert all(p.startswith("x.chat.json:") for p in problems)
    assert store.validate_text(text_of(adapter(extra=1))) == [
        "<text>:24:3: extra: not a field here (misspelt?)"
    ]


def test_store_user_file_replaces_shipped_and_remove_brings_it_back(tmp_path: Path):
    store = ChatSiteStore(tmp_path / "user")
    assert {i.name for i in store.list()} == SHIPPED
    assert {i.origin for i in store.list()} == {"shipped"}
    mine = adapter(name="kimi", hostnames=["kimi.com"])
    store.add_text(text_of(mine))
    info = {i.name: i for i in store.list()}["kimi"]
    assert info.origin == "user (replaces shipped)" and info.hostnames == ["kimi.com"]
    with pytest.raises(ChatSiteError, match="shipped"):
        store.remove("deepseek")
    assert store.remove("kimi") == "the shipped adapter of that name is used again"
    assert {i.name: i for i in store.list()}["kimi"].hostnames != ["kimi.com"]


def test_enabled_and_verified_live_beside_the_text(tmp_path: Path):
    store = ChatSiteStore(tmp_path, builtin=None)
    store.add_text(text_of(adapter()))
    assert store.effective()[0]["verified"] is False
    assert store.mark_verified("replica", "evil.example") is False  # not a host it names
    assert store.mark_verified("replica", "127.0.0.1:9999") is False  # another port
    assert store.mark_verified("replica", "127.0.0.1:8123") is True
    assert store.effective()[0]["verified"] is True
    assert store.list()[0].verified is not None
    store.add_text(text_of(adapter(version="1.0.1")))  # a new text: not verified any more
    assert store.effective()[0]["verified"] is False
    store.set_enabled("replica", False)
    assert store.effective() == [] and store.list()[0].enabled is False


def test_a_broken_file_is_listed_with_its_error_and_not_offered(tmp_path: Path):
    store = ChatSiteStore(tmp_path, builtin=None)
    (tmp_path / "bad.chat.json").write_text("{")
    (tmp_path / "other.chat.json").write_text(text_of(adapter()))
    infos = {i.name: i for i in store.list()}
    assert "not valid JSON" in (infos["bad"].error or "")
    assert "rename the file to replica.chat.json" in (infos["other"].error or "")
    assert store.effective() == []


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "chat-sites", *args],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_cli_list_add_validate_remove(tmp_path: Path):
    env = {"WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data")}
    good, bad = tmp_path / "replica.chat.json", tmp_path / "bad.chat.json"
    good.write_text(text_of(adapter()))
    bad.write_text(text_of(adapter(hostnames=[])))
    out = cli(env, "validate", str(good))
    assert out.returncode == 0 and "a valid chat-site adapter" in out.stdout
    out = cli(env, "validate", str(bad))
    assert out.returncode == 1 and "hostnames: List should have at least 1 item" in out.stderr
    out = cli(env, "add", str(good))
    assert out.returncode == 0 and "unverified" in out.stdout
    listed = json.loads(cli(env, "list", "--json").stdout)
    assert {i["name"] for i in listed} == SHIPPED | {"replica"}
    assert "deepseek  DeepSeek 0.2.0  [on, unverified, shipped]" in cli(env, "list").stdout
    assert cli(env, "remove", "replica").returncode == 0
    out = cli(env, "remove", "replica")
    assert out.returncode == 2 and "No chat-site adapter named 'replica'" in out.stderr


class FakeHost:
    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}
        self.sent: list[dict[str, Any]] = []

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def test_doc_get_of_chat_sites_is_answered_and_of_skills_left_to_the_skills_link(tmp_path: Path):
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.native_host.doc_link import Documents
    from webmcp_sidecar.native_host.skills_link import SkillsLink
    from webmcp_sidecar.native_host.stdio import FrameWriter

    sent: list[bytes] = []
    host = Host("chrome-extension://x/", FrameWriter(sent.append))
    asked: list[str] = []
    skills = SkillsLink(host, tmp_path / "skills")
    skills.on_get = lambda raw, payload: asked.append("skills")  # type: ignore[method-assign]
    chat = chat_link.ChatLink(host, tmp_path)
    host.add(chat)
    host.add(Documents(host, [skills, chat]))
    host.on_browser_frame(b'{"type":"doc_get","kind":"chat_sites"}')
    assert json.loads(sent[-1][4:])["type"] == "docs"
    host.on_browser_frame(b'{"type":"doc_get","kind":"skills"}')
    assert asked == ["skills"]


def test_link_sends_adapters_once_and_again_after_a_change(tmp_path: Path):
    host = FakeHost()
    link = chat_link.ChatLink(host, tmp_path)  # type: ignore[arg-type]
    link.on_get({}, b"")
    assert host.sent[-1]["type"] == "docs"
    assert {s["name"] for s in host.sent[-1]["docs"]} == SHIPPED
    link.push()
    assert len(host.sent) == 1  # nothing changed: nothing sent
    link.on_panel(
        {"type": "panel_doc", "kind": "chat_sites", "id": "1", "op": "save", "text": text_of(adapter())}, b""
    )
    pushed, answer = host.sent[-2:]
    assert pushed["type"] == "docs" and "replica" in {s["name"] for s in pushed["docs"]}
    assert answer == {**answer, "type": "doc_answer", "id": "1", "ok": True}
    link.on_verified({"type": "chat_site_verified", "name": "replica", "host": "127.0.0.1:8123"}, b"")
    assert next(s for s in host.sent[-1]["docs"] if s["name"] == "replica")["verified"] is True
    link.on_panel({"type": "panel_doc", "kind": "chat_sites", "id": "2", "op": "validate", "text": "{"}, b"")
    assert host.sent[-1]["ok"] is False and "not valid JSON" in host.sent[-1]["problems"][0]
    link.on_panel(
        {"type": "panel_doc", "kind": "chat_sites", "id": "3", "op": "remove", "name": "gemini"}, b""
    )
    assert host.sent[-1]["ok"] is False and "shipped" in host.sent[-1]["error"]


class FakeResult:
    def __init__(self, text: str, is_error: bool = False) -> None:
        self.content = [type("C", (), {"type": "text", "text": text})()]
        self.is_error = is_error


class FakeTool:
    def model_dump(self, **_: Any) -> dict[str, Any]:
        return {"name": "add", "inputSchema": {"type": "object"}}


class FakeManager:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any], float]] = []

    async def call(self, server: str, tool: str, args: dict[str, Any], *, timeout_s: float) -> Any:
        self.calls.append((server, tool, args, timeout_s))
        if tool == "boom":
            return FakeResult("it broke", is_error=True)
        return FakeResult(f"The sum of {args['a']} and {args['b']} is {args['a'] + args['b']}.")


class FakeServersLink:
    def __init__(self) -> None:
        self.mgr = FakeManager()

    def manager(self) -> FakeManager:
        return self.mgr

    async def tools_for(self, names: Any) -> tuple[dict[str, list[Any]], list[str]]:
        return {"everything": [FakeTool()]}, []


async def test_server_calls_go_to_the_servers_plugin_and_answer_by_id(tmp_path, monkeypatch):
    host = FakeHost()
    link = chat_link.ChatLink(host, tmp_path)  # type: ignore[arg-type]
    link.on_server_call({"type": "chat_server_call", "id": "c.1", "op": "tools"}, b"")
    await asyncio.sleep(0.01)
    assert host.sent[-1]["ok"] is False and "not available" in host.sent[-1]["error"]["message"]

    servers = FakeServersLink()
    link.servers = servers
    link.on_server_call({"type": "chat_server_call", "id": "c.2", "op": "tools"}, b"")
    await asyncio.sleep(0.01)
    tools = {"everything": [{"name": "add", "inputSchema": {"type": "object"}}]}
    assert host.sent[-1] == {"type": "chat_server_result", "id": "c.2", "ok": True, "tools": tools}
    call = {"type": "chat_server_call", "id": "c.3", "op": "call", "site": "127.0.0.1:1",
            "server": "everything", "tool": "add", "args": {"a": 2, "b": 3}, "timeout_ms": 5000}  # fmt: skip
    link.on_server_call(call, b"")
    await asyncio.sleep(0.01)
    assert host.sent[-1] == {"type": "chat_server_result", "id": "c.3", "ok": True,
                             "value": "The sum of 2 and 3 is 5."}  # fmt: skip
    assert servers.mgr.calls == [("everything", "add", {"a": 2, "b": 3}, 5.0)]
    link.on_server_call({**call, "id": "c.4", "tool": "boom"}, b"")
    await asyncio.sleep(0.01)
    assert host.sent[-1]["ok"] is False and host.sent[-1]["error"]["message"] == "it broke"
    link.on_server_call({"type": "chat_server_call", "id": "c.5", "op": "nope"}, b"")
    assert host.sent[-1]["error"]["code"] == "bad_request"
