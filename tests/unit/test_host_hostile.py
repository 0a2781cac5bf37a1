"""Hostile page data against the host: its models, and the real host process on a scripted
browser's stdio. No frame and no tool may end the browser pump; a pump that ends ends the host."""

import asyncio
import json
import logging

import pytest
from pydantic import ValidationError

from tests.support.fake_browser import FakeBrowser
from tests.support.raw_entry import RawEntry
from webmcp_sidecar.native_host import app, process
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

GOOD = {"name": "add", "description": "Add", "inputSchema": {"type": "object"}}


def nested(levels: int) -> dict:
    """A schema of `levels` objects, each the only property of the one above."""
    schema: dict = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def depth_of(levels: int) -> int:
    """JSON nesting of nested(levels): each level is an object and its `properties` object."""
    return 2 * levels - 1


def deep_list(levels: int) -> list:
    v: list = []
    for _ in range(levels - 1):
        v = [v]
    return v


# --- the models ------------------------------------------------------------------------


def test_tool_depth_cap_is_32_levels_like_the_extensions():
    assert depth_of(16) == 31
    m.Tool.model_validate({"name": "t", "inputSchema": {"x": deep_list(31)}})  # 32 levels
    with pytest.raises(ValidationError, match="inputSchema nests deeper than 32 levels"):
        m.Tool.model_validate({"name": "t", "inputSchema": {"x": deep_list(32)}})
    with pytest.raises(ValidationError, match="annotations nests deeper"):
        m.Tool.model_validate({"name": "t", "annotations": {"x": deep_list(40)}})
    with pytest.raises(ValidationError, match="outputSchema nests deeper"):
        m.Tool.model_validate({"name": "t", "outputSchema": nested(130)})


def test_the_depth_walk_takes_any_depth_without_recursion():
    # Far deeper than Python's recursion limit: a recursive walk would raise RecursionError.
    with pytest.raises(ValidationError, match="nests deeper"):
        m.Tool.model_validate({"name": "t", "inputSchema": {"x": deep_list(100_000)}})


def test_tool_size_cap_is_64_kib_of_compact_utf8():
    fits = {"description": "x" * (64 * 1024 - len('{"description":""}'))}
    m.Tool.model_validate({"name": "t", "inputSchema": fits})
    over = {"description": "é" * (32 * 1024)}  # 32 Ki characters, 64 KiB + 18 bytes
    with pytest.raises(ValidationError, match="inputSchema is larger than 65536 bytes"):
        m.Tool.model_validate({"name": "t", "inputSchema": over})
    many = {"enum": list(range(70_000))}  # stops counting at the cap, before any encoding
    with pytest.raises(ValidationError, match="larger than"):
        m.Tool.model_validate({"name": "t", "inputSchema": many})


def test_a_bad_tool_is_dropped_from_its_site_with_a_reason(caplog):
    bad = [
        {"name": "deep", "inputSchema": nested(130)},
        {"name": "bad name!\n[forged line]"},
        {"name": "big", "annotations": {"note": "x" * 70_000}},
        "not a tool",
    ]
    with caplog.at_level(logging.WARNING, logger=m.__name__):
        msg = m.extension_message.validate_python(
            {"type": "site_tools", "site": "a.test", "tools": [*bad, GOOD], "notice": "cut"}
        )
    assert isinstance(msg, m.SiteTools) and [t.name for t in msg.tools] == ["add"]
    assert msg.notice == "cut"
    text = caplog.text
    assert "site a.test: tool 'deep' dropped" in text and "nests deeper than 32" in text
    assert "tool 'big' dropped" in text and "larger than 65536 bytes" in text
    assert "[forged line]" in text and "\n[forged line]" not in text  # no line of its own
    assert len(caplog.records) == 4


def test_registry_and_welcome_drop_bad_tools_and_carry_notices():
    raw = {"a.test": [GOOD, {"name": "deep", "inputSchema": nested(130)}],
           "b.test": [{"name": "deep", "inputSchema": nested(130)}]}
    reg = m.extension_message.validate_python(
        {"type": "registry", "sites": raw, "notices": {"a.test": "1 tool was left out"}}
    )
    assert isinstance(reg, m.Registry)
    assert [t.name for t in reg.sites["a.test"]] == ["add"] and reg.sites["b.test"] == []
    assert reg.notices == {"a.test": "1 tool was left out"}
    assert m.Registry.model_validate({"sites": {}}).notices == {}  # optional
    welcome = m.host_to_entry.validate_python(
        {"type": "welcome", "host_id": "1", "conn": "c1", "pid": 1, "sites": raw,
         "notices": {"a.test": "n"}}
    )
    assert [t.name for t in welcome.sites["a.test"]] == ["add"] and welcome.notices == {"a.test": "n"}


# --- the host in-process -----------------------------------------------------------------


class Sink:
    """The host's browser writer, in memory."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def write(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def test_a_handler_that_raises_costs_one_frame_not_the_pump(caplog):
    host = app.Host("chrome-extension://x/", Sink())  # type: ignore[arg-type]

    def boom(raw, payload):
        raise KeyError("a handler bug")

    host.routes["panel_chat"] = boom
    with caplog.at_level(logging.ERROR, logger=app.__name__):
        host.on_browser_frame(dumps({"type": "panel_chat", "text": "hi"}))  # before: raised
    assert "failed and was skipped" in caplog.text and "a handler bug" in caplog.text
    host.on_browser_frame(dumps({"type": "ping", "id": "after"}))
    assert host.to_browser.sent == [{"type": "pong", "id": "after"}]  # type: ignore[attr-defined]


class BrokenReader:
    """A browser pipe whose read fails (not EOF)."""

    async def read(self) -> bytes:
        raise OSError("the pipe broke")


async def test_a_pump_that_fails_ends_the_host(monkeypatch, private_home, caplog):
    async def fake_stdio():
        return BrokenReader(), Sink()

    monkeypatch.setattr(process, "open_stdio", fake_stdio)
    # Before: the pump task died alone and run() waited forever on a host that reads nothing.
    with caplog.at_level(logging.ERROR, logger=process.__name__):
        async with asyncio.timeout(30):  # a hang guard, not a timing assertion
            assert await process.run("chrome-extension://x/") == 0
    assert "the pipe broke" in caplog.text


# --- the real host process ---------------------------------------------------------------


@pytest.fixture
async def browser(sock_env):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Test 1"})
    b.send({"type": "registry", "sites": {"a.test": [GOOD]}})
    yield b
    if b.proc and b.proc.returncode is None:
        b.proc.kill()
        await b.proc.wait()


async def host_log(tmp_path, *wanted: str) -> str:
    log_file = tmp_path / "log" / "host.log"
    for _ in range(200):  # written by another process: poll it briefly
        text = log_file.read_text() if log_file.exists() else ""
        if all(w in text for w in wanted):
            break
        await asyncio.sleep(0.05)
    return text


async def test_a_deep_frame_is_skipped_and_the_host_still_answers(browser, tmp_path):
    deep = b"[" * 100_000 + b"]" * 100_000
    browser.send_raw(deep)
    browser.send_raw(b'{"type":"site_tools","site":"x.test","tools":' + deep + b"}")
    browser.send({"type": "ping", "id": "after"})  # before: never answered, pump gone
    assert (await browser.expect("pong"))["id"] == "after"
    assert "nests too deep" in await host_log(tmp_path, "nests too deep")
    assert await browser.close() == 0  # and it still ends when the browser goes


async def test_a_deep_tool_is_dropped_and_its_site_keeps_the_rest(browser, tmp_path):
    e = await RawEntry.connect()
    browser.send({"type": "site_tools", "site": "b.test", "notice": "1 http:// tab is ignored",
                  "tools": [{"name": "deep", "inputSchema": nested(130)}, GOOD]})
    msg = await e.recv("site_tools")
    # The entry gets the cleaned message: never the tool the host dropped.
    assert msg["site"] == "b.test" and [t["name"] for t in msg["tools"]] == ["add"]
    assert msg["notice"] == "1 http:// tab is ignored"
    text = await host_log(tmp_path, "tool 'deep' dropped")
    assert "site b.test: tool 'deep' dropped: inputSchema nests deeper than 32 levels" in text
    # A site whose only tool is dropped is no site; the notices reach later entries too.
    browser.send({"type": "site_tools", "site": "c.test",
                  "tools": [{"name": "deep", "inputSchema": nested(130)}]})
    browser.send({"type": "registry", "sites": {"a.test": [GOOD], "b.test": [
        GOOD, {"name": "deep2", "annotations": {"x": deep_list(50)}}]},
        "notices": {"b.test": "cut"}})
    reg = await e.recv("registry")
    assert [t["name"] for t in reg["sites"]["b.test"]] == ["add"] and reg["notices"] == {"b.test": "cut"}
    late = await RawEntry.connect()
    assert set(late.welcome["sites"]) == {"a.test", "b.test"}
    assert late.welcome["notices"] == {"b.test": "cut"}
    e.close()
    late.close()


async def test_a_long_result_in_chunks_reaches_its_entry_whole_and_bad_chunks_cost_only_themselves(
    browser, tmp_path
):
    # The worker sends a result over 64 Ki characters as `chunk`s of its JSON text
    # (extension/background/native-link.js); the host joins them and routes the whole by its id.
    e = await RawEntry.connect()
    call_id = e.welcome["conn"] + ".1"
    e.send({"type": "call", "id": call_id, "site": "a.test", "tool": "add", "args": {}})
    assert (await browser.expect("call"))["id"] == call_id
    value = "\U0001f600\"<a>\\" * 40_000
    text = json.dumps({"type": "result", "id": call_id, "ok": True, "value": value, "tab_id": 3})
    pieces = [text[i : i + 65_536] for i in range(0, len(text), 65_536)]
    assert len(pieces) > 2
    # Malformed or out-of-order pieces of other messages are dropped and logged, nothing more.
    browser.send({"type": "chunk", "cid": "bad", "seq": "0", "last": False, "data": "{"})
    browser.send({"type": "chunk", "cid": "late", "seq": 1, "last": True, "data": "}"})
    for seq, data in enumerate(pieces):
        browser.send({"type": "chunk", "cid": "sw1", "seq": seq, "last": seq == len(pieces) - 1,
                      "data": data})
    r = await e.recv("result")
    assert (r["id"], r["ok"], r["value"], r["tab_id"]) == (call_id, True, value, 3)
    log = await host_log(tmp_path, "malformed chunk", "arrived before chunk 0")
    assert "malformed chunk 0 of 'bad'" in log and "chunk 1 of 'late' arrived before chunk 0" in log
    browser.send({"type": "ping", "id": "after"})
    assert (await browser.expect("pong"))["id"] == "after"
