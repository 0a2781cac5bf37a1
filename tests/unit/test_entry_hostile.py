"""Hostile page data against the MCP entry: the real `webmcp-sidecar mcp` through the real MCP SDK
client, fed by a scripted host that sends raw bytes (what no real host's models let through), and
the entry's tool list and results in-process."""

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_session import McpSession, text
from webmcp_sidecar import paths
from webmcp_sidecar.mcp_server import hosts
from webmcp_sidecar.mcp_server.results import MAX_RESULT_DEPTH, TOO_DEEP, to_call_result
from webmcp_sidecar.mcp_server.server import Entry, _notices_to_stderr
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.codec import dumps

pytestmark = pytest.mark.anyio

GOOD = {"name": "search", "description": "Search", "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
PLAIN = {"name": "plain", "description": "No hints"}


def nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def deep_object(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


# JSON text with a lone surrogate escape: what JSON.stringify makes of a string cut mid-emoji.
CUT = 'cut \\ud83d'
# The page's own raw frame text for a tool named `cut` whose description is such a string.
CUT_TOOL = '{"name":"cut","description":"' + CUT + '"}'


class FakeHost:
    """A host endpoint on the local socket that sends the frames the test scripts, as bytes."""

    def __init__(self, frames: list[bytes], answer: Callable[[dict[str, Any]], str]) -> None:
        self.frames = frames  # after the welcome
        self.answer = answer  # call -> the result's `value` (JSON text)
        self.server: Any = None
        self.endpoint: localsock.Endpoint | None = None

    async def start(self) -> None:
        self.server, self.endpoint = await localsock.serve(self._serve)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if await localsock.read_frame(reader) is None:  # the entry's hello
            return
        welcome = {"type": "welcome", "host_id": "fake", "conn": "c1", "pid": 1,
                   "browser": "Fake", "extension_connected": True, "extension_version": "1"}
        writer.write(localsock.frame(dumps(welcome)))
        for f in self.frames:
            writer.write(localsock.frame(f))
        while (payload := await localsock.read_frame(reader)) is not None:
            msg = json.loads(payload)
            if msg.get("type") == "call":
                value = self.answer(msg)
                writer.write(localsock.frame(
                    b'{"type":"result","id":' + json.dumps(msg["id"]).encode() +
                    b',"ok":true,"value":' + value.encode() + b"}"))

    def close(self) -> None:
        self.server.close()
        if self.endpoint:
            self.endpoint.path.unlink(missing_ok=True)


def registry_frame() -> bytes:
    sites = ('{"a.test":[' + json.dumps(GOOD) + "," + json.dumps(PLAIN) + ","
             + json.dumps({"name": "deep", "inputSchema": nested(130)}) + "," + CUT_TOOL + "]}")
    notices = json.dumps({"a.test": "1 of a.test's tools was left out: 1 too deep (\"deep\")."})
    return ('{"type":"registry","sites":' + sites + ',"notices":' + notices + "}").encode()


def answers(call: dict[str, Any]) -> str:
    """The result each tool returns: JSON text, as the browser relays it."""
    return json.dumps({
        "search": deep_object(300),  # used to come back as a JSON-RPC error with code 0
        "plain": '{"s":"' + CUT + '"}',
        "cut": '"' + CUT + '"',
    }[call["tool"]])


@pytest.fixture
def entry_log(private_home, monkeypatch) -> Path:
    """Where the entry logs: it starts with the SDK's default env, so only HOME decides."""
    for var in ("WEBMCP_SIDECAR_LOG_DIR", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    return paths.log_dir() / "mcp.log"


async def read_log(path: Path, wanted: str) -> str:
    for _ in range(200):  # written by another process: poll it briefly
        if path.exists() and wanted in path.read_text():
            break
        await asyncio.sleep(0.05)
    return path.read_text() if path.exists() else ""


async def test_a_hostile_registry_costs_its_bad_tools_not_the_entry(private_home, entry_log):
    site_tools = ('{"type":"site_tools","site":"a.test","tools":[' + json.dumps(GOOD) + "," +
                  CUT_TOOL + '],"notice":"2 http:// tabs of a.test are ignored"}').encode()
    host = FakeHost([registry_frame(), site_tools], answers)
    await host.start()
    try:
        async with McpSession({"HOME": str(private_home)}) as mcp:
            # Before: the 130-level schema ended the entry on tools/list (pydantic's depth limit),
            # and so did the lone surrogate (no UTF-8 form).
            names = await mcp.wait_tools(lambda n: "a_test__search" in n and "a_test__cut" in n)
            assert "a_test__deep" not in names
            tools = {t.name: t for t in await mcp.tools()}
            assert tools["a_test__cut"].description.startswith("cut \ufffd")
            # Hints are the page's claims, and the client is told so where there are any.
            assert "annotations (readOnlyHint etc.) are the page's own claims" in \
                tools["a_test__search"].description
            assert "untrusted page content" in tools["a_test__search"].description

            r = await mcp.call("a_test__search", {"q": "x"})
            assert r.is_error and text(r) == TOO_DEEP and f"{MAX_RESULT_DEPTH} levels" in text(r)
            r = await mcp.call("call_site_tool", {"site": "a.test", "tool": "cut"})
            assert not r.is_error and text(r) == "cut \ufffd"
            for args in ({}, {"site": "a.test"}):  # the page's texts again, as data
                r = await mcp.call("list_site_tools", args)
                assert not r.is_error and "cut \ufffd" in text(r) and "a.test" in text(r)
            assert await mcp.names() == names  # the entry is alive and unchanged
        log = await read_log(entry_log, "tabs of a.test are ignored")
        assert "site a.test: tool 'deep' dropped: inputSchema nests deeper than 32 levels" in log
        # Each notice once per change: the registry's, then the site_tools' new one.
        assert log.count("a.test: 1 of a.test's tools was left out") == 1
        assert log.count("a.test: 2 http:// tabs of a.test are ignored") == 1
    finally:
        host.close()


async def test_open_browser_hands_only_web_urls_to_the_system(private_home):
    async with McpSession({"HOME": str(private_home)}) as mcp:  # no browser: the OS opener's path
        for url in ("file:///etc/passwd", "javascript:alert(1)", "vscode://open?x=1",
                    "http://", "https://a.test/ --new-window", "not a url"):
            r = await mcp.call("open_browser", {"url": url})
            assert r.is_error and "http(s)" in text(r), (url, text(r))
        r = await mcp.call("open_browser", {"url": "file:///etc/passwd"})
        assert "only http(s) URLs are handed to the system" in text(r)
        assert "file:///etc/passwd" in text(r)


# --- in-process ----------------------------------------------------------------------------


class FakeLink:
    """What the pool reads of a host link: its sites, as given (no model in between)."""

    def __init__(self, sites: dict[str, list[m.Tool]]) -> None:
        self.sites = sites
        self.extension_connected = True
        self.welcome = None
        self.session_tabs = None


def test_one_tool_that_cannot_be_listed_is_left_out_with_a_log_line(caplog):
    entry = Entry()
    # model_construct: past the host's own checks, as a future bug or an old host might let it.
    deep = m.Tool.model_construct(name="deep", description="", inputSchema=nested(130),
                                  annotations=None, source="native", title=None)
    cut = m.Tool.model_construct(name="cut", description="x \ud83d", inputSchema=None,
                                 annotations=None, source="native", title=None)
    entry.pool.links["fake"] = FakeLink(  # type: ignore[assignment]
        {"a.test": [deep, cut, m.Tool.model_validate(GOOD)]})
    with caplog.at_level(logging.WARNING):
        assert entry._rebuild()  # before: raised, and tools/list could never be answered
        entry._rebuild()
    names = {t.name for t in entry.tools}
    assert {"a_test__search", "a_test__cut"} <= names and "a_test__deep" not in names
    assert next(t for t in entry.tools if t.name == "a_test__cut").description.startswith("x \ufffd")
    skipped = [r for r in caplog.records if "left out of the tool list" in r.getMessage()]
    assert len(skipped) == 1 and "'deep' of a.test" in skipped[0].getMessage()  # once


def test_results_nested_too_deep_or_with_lone_surrogates_are_plain_results():
    def ok(value: str):
        r = to_call_result(m.Result(id="1", ok=True, value=value), 1 << 20)
        r.model_dump_json(by_alias=True, exclude_unset=True)  # what the SDK will do: no error
        return r

    for value in (deep_object(MAX_RESULT_DEPTH), deep_object(200), deep_object(5000)):
        r = ok(value)
        assert r.is_error == (value != deep_object(MAX_RESULT_DEPTH))
        if r.is_error:
            assert r.content[0].text == TOO_DEEP
    assert ok("[" * 300 + "]" * 300).content[0].text.startswith("[[[")  # text: any depth goes
    assert ok('"a \\ud83d b"').content[0].text == "a \ufffd b"
    assert ok('"pair \\ud83d\\ude00"').content[0].text == "pair \U0001f600"
    r = ok('{"s": "\\udc00", "t": "ok"}')
    assert r.structured_content == {"s": "\ufffd", "t": "ok"}
    r = ok('{"content": [{"type": "text", "text": "\\ud800"}]}')
    assert r.content[0].text == "\ufffd"
    r = to_call_result(m.Result(id="1", ok=False, error=m.CallError(
        code="page_error", message="boom \ud83d")), 100)
    assert r.is_error and r.content[0].text == "boom \ufffd"


def test_site_notices_are_logged_once_per_change_also_to_stderr(capsys):
    _notices_to_stderr()  # the handler writes to this test's captured stderr
    pool = hosts.HostPool()
    link = hosts.HostLink(localsock.Endpoint(Path("/nonexistent/host-1.sock")), pool)
    site_tools = {"type": "site_tools", "site": "a.test", "tools": [GOOD]}
    link._on_message({**site_tools, "notice": "3 tools were left out\n[forged]"})
    link._on_message({**site_tools, "notice": "3 tools were left out\n[forged]"})  # same: quiet
    link._on_message({"type": "registry", "sites": {"a.test": [GOOD]},
                      "notices": {"a.test": "4 tools were left out"}})
    link._on_message(site_tools)  # the cut is over: nothing to say
    link._on_message({**site_tools, "notice": "4 tools were left out"})  # a new cut: said again
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "webmcp-sidecar: a.test: 3 tools were left out?[forged]",
        "webmcp-sidecar: a.test: 4 tools were left out",
        "webmcp-sidecar: a.test: 4 tools were left out",
    ]
    for h in list(hosts.notice_log.handlers):
        hosts.notice_log.removeHandler(h)
