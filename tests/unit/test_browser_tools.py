"""The MCP entry's browser tools, through the real MCP SDK client, `webmcp-sidecar mcp` and the
real host, with a scripted browser (FakeBrowser) in place of Chromium: what is offered when,
what reaches the browser, how answers come back."""

import base64
import json
import re

import anyio
import pytest
from jsonschema import Draft202012Validator

from tests.support.fake_browser import FakeBrowser
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.mcp_server.browser_tools import TOOLS
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

NO_PAGE = {"browser_tabs", "browser_navigate", "browser_tab_open", "browser_tab_select"}
ALL = {t.mcp_name for t in TOOLS}


async def start_browser(sock_env) -> FakeBrowser:
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Fake"})
    b.send({"type": "registry", "sites": {}})
    return b


def browser_names(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("browser_")}


async def answer(b: FakeBrowser, value: object = "done", ok: bool = True) -> dict:
    """Answers the next browser_call; returns it."""
    call = await b.expect("browser_call")
    if ok:
        b.send({"type": "result", "id": call["id"], "ok": True, "value": json.dumps(value)})
    else:
        b.send({"type": "result", "id": call["id"], "ok": False,
                "error": {"code": "not_found", "message": str(value)}})
    return call


def test_definitions_fit_every_client_and_never_meet_site_or_meta_tools():
    names = [t.mcp_name for t in TOOLS]
    assert len(set(names)) == len(names) == 20
    for t in TOOLS:
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", t.mcp_name)
        assert "__" not in t.mcp_name  # site tools are <site>__<tool>
        assert t.mcp_name not in {"list_site_tools", "call_site_tool", "open_browser"}
        Draft202012Validator.check_schema(t.input_schema)
        assert set(t.required) <= set(t.properties)
        assert t.description.endswith(".") and t.title
    assert NO_PAGE == {t.mcp_name for t in TOOLS if not t.needs_page}


async def test_the_offer_follows_the_browser_and_the_sessions_tabs(sock_env):
    async with McpSession(sock_env, name="Claude Code") as mcp:
        assert not browser_names(await mcp.names())  # no browser: nothing to drive
        b = await start_browser(sock_env)
        names = await mcp.wait_tools(lambda n: "browser_navigate" in n)
        assert browser_names(names) == NO_PAGE
        # The browser hears who this session is, to name its tab group.
        session = await b.expect("session")
        assert session["client"] == "Claude Code"
        before = mcp.changes
        b.send({"type": "session_tabs", "session": session["session"], "tabs": [7], "current": 7})
        names = await mcp.wait_tools(lambda n: "browser_snapshot" in n)
        assert browser_names(names) == ALL
        await mcp.wait_changes(before)
        before = mcp.changes
        b.send({"type": "session_tabs", "session": session["session"], "tabs": [], "current": None})
        names = await mcp.wait_tools(lambda n: "browser_snapshot" not in n)
        assert browser_names(names) == NO_PAGE
        await mcp.wait_changes(before)
        await b.close()
        await mcp.wait_tools(lambda n: not browser_names(n))


async def test_calls_carry_the_session_and_results_come_back_as_mcp_results(sock_env):
    b = await start_browser(sock_env)
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        session = (await b.expect("session"))["session"]

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b, "Loaded tab 7.")
            r = await mcp.call("browser_navigate", {"url": "example.com"})
        assert text(r) == "Loaded tab 7." and not r.is_error

        got: dict = {}

        async def record() -> None:
            got.update(await answer(b, {"session": "tests", "current": 7, "tabs": []}))

        async with anyio.create_task_group() as tg:
            tg.start_soon(record)
            r = await mcp.call("browser_tabs")
        assert got["session"] == session and got["tool"] == "tabs" and got["args"] == {}
        assert got["timeout_ms"] == 60_000 and got["id"].startswith(session + ".")
        assert r.structured_content == {"session": "tests", "current": 7, "tabs": []}
        m.BrowserCall.model_validate(got)  # what the entry sends is what the model says

        png = base64.b64encode(b"\x89PNG....").decode()
        shot = {"content": [{"type": "image", "data": png, "mimeType": "image/png"},
                            {"type": "text", "text": "Screenshot"}]}
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b, shot)
            r = await mcp.call("browser_screenshot", {"format": "png"})
        assert r.content[0].type == "image" and r.content[0].data == png

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b, "Ref e4 is stale: take a new snapshot.", False)
            r = await mcp.call("browser_click", {"ref": "e4"})
        assert r.is_error and text(r) == "Ref e4 is stale: take a new snapshot."
    await b.close()


async def test_bad_arguments_never_reach_the_browser(sock_env, tmp_path):
    b = await start_browser(sock_env)
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        await b.expect("session")
        r = await mcp.call("browser_click", {"ref": "the button"})
        assert r.is_error and "does not match" in text(r)
        r = await mcp.call("browser_type", {"ref": "e1"})
        assert r.is_error and "'text' is a required property" in text(r)
        r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": ["relative.txt"]})
        assert r.is_error and "not an absolute path" in text(r)
        r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": [str(tmp_path / "nope.txt")]})
        assert r.is_error and "Uploads are off" in text(r)
        r = await mcp.call("browser_screenshot", {"surprise": 1})
        assert r.is_error and "Additional properties" in text(r)
        # The browser saw none of them: the next call it gets is this one.
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b)
            r = await mcp.call("browser_reload")
        assert not r.is_error
    await b.close()


async def test_uploads_come_only_from_allowed_folders_and_go_out_resolved(sock_env, tmp_path,
                                                                          private_home):
    """A prompt-injected `~/.ssh/id_rsa` (or a link to it) never reaches the browser; a file in a
    folder the user allowed does, by its real path."""
    from webmcp_sidecar.tools import uploads

    (private_home / ".ssh").mkdir()
    key = private_home / ".ssh" / "id_rsa"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    up = tmp_path / "up"
    (up / "docs").mkdir(parents=True)
    (up / "docs" / "cv.pdf").write_bytes(b"%PDF")
    (up / "cv-link.pdf").symlink_to(up / "docs" / "cv.pdf")
    (up / "key-link").symlink_to(key)
    b = await start_browser(sock_env)
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        await b.expect("session")
        r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": [str(key)]})
        assert r.is_error and "hidden (dot) folder" in text(r)
        r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": [str(up / "docs" / "cv.pdf")]})
        assert r.is_error and "Uploads are off" in text(r) and "uploads allow" in text(r)
        uploads.allow(str(up))  # what `webmcp-sidecar uploads allow` does, for this HOME
        for bad, says in [(key, "hidden (dot) folder"), (up / "key-link", "hidden (dot) folder"),
                          (up / "nope.txt", "There is no file at"), (up / "docs", "not a regular file"),
                          (tmp_path / "outside.txt", "not in a folder the user allowed")]:
            r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": [str(bad)]})
            assert r.is_error and says in text(r), (bad, text(r))
        # The browser saw none of them: the first call it gets is the good one, links resolved.
        async with anyio.create_task_group() as tg:
            got: dict = {}

            async def record() -> None:
                got.update(await answer(b, "Chose 1 file(s)"))

            tg.start_soon(record)
            r = await mcp.call("browser_upload_file", {"ref": "e1", "paths": [str(up / "cv-link.pdf")]})
        assert not r.is_error and got["args"]["paths"] == [str((up / "docs" / "cv.pdf").resolve())]
    await b.close()


async def test_cancelling_a_browser_call_reaches_the_browser(sock_env):
    b = await start_browser(sock_env)
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        with anyio.move_on_after(1):
            await mcp.call("browser_wait_for", {"text": "never", "timeout_s": 60})
        call = await b.expect("browser_call")
        cancel = await b.expect("cancel")
        assert cancel["id"] == call["id"]
    await b.close()


async def test_with_two_browsers_the_newest_gets_the_calls_and_both_know_the_session(sock_env):
    b1 = await start_browser(sock_env)
    async with McpSession(sock_env, name="Cursor") as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        assert (await b1.expect("session"))["client"] == "Cursor"
        b2 = await start_browser(sock_env)
        assert (await b2.expect("session"))["client"] == "Cursor"  # a browser that came later
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b2, "from the second")
            with anyio.fail_after(10):
                while True:  # until the entry has seen the second browser connect
                    r = await mcp.call("browser_tabs")
                    if text(r) == "from the second":
                        break
                    await anyio.sleep(0.2)
        await b2.close()
        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b1, "from the first")
            with anyio.fail_after(10):
                while text(r := await mcp.call("browser_tabs")) != "from the first":
                    await anyio.sleep(0.2)
    await b1.close()


async def test_a_2026_client_is_named_from_its_request_envelope(sock_env):
    b = await start_browser(sock_env)
    async with McpSession(sock_env, mode="auto", name="Modern Client") as mcp:
        assert mcp.protocol_version == "2026-07-28"  # no initialize handshake in this era
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        assert (await b.expect("session"))["client"] == "Modern Client"
    await b.close()
