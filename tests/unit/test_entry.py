"""The MCP entry through the real MCP SDK client, with scripted hosts instead of a browser."""

import json

import anyio
import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.texts import NO_BROWSER
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

TOOL = {"name": "search.emails", "description": "Search mail",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "annotations": {"readOnlyHint": True}}


async def start_browser(sock_env, sites):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Fake"})
    b.send({"type": "registry", "sites": sites})
    return b


async def test_without_a_browser_the_entry_explains_and_then_picks_one_up(sock_env):
    async with McpSession(sock_env) as mcp:
        assert await mcp.names() == {"list_site_tools", "call_site_tool", "open_browser"}
        r = await mcp.call("call_site_tool", {"site": "mail.163.com", "tool": "search.emails"})
        assert r.is_error and "No browser is connected" in text(r) and "doctor" in text(r)
        r = await mcp.call("mail_163_com__search_emails", {"q": "x"})
        assert r.is_error and "No browser is connected" in text(r)
        b = await start_browser(sock_env, {"mail.163.com": [TOOL]})
        await mcp.wait_tools(lambda n: "mail_163_com__search_emails" in n)
        await b.close()  # the browser goes: its tools go, and clients hear of it
        await mcp.wait_tools(lambda n: "mail_163_com__search_emails" not in n)


async def test_site_tools_and_browser_tools_say_the_same_when_no_browser_is_connected(sock_env):
    async with McpSession(sock_env) as mcp:
        site = await mcp.call("call_site_tool", {"site": "a.test", "tool": "t"})
        browser = await mcp.call("browser_navigate", {"url": "https://a.test/"})
        assert site.is_error and browser.is_error
        assert text(site) == text(browser) == NO_BROWSER


async def test_two_browsers_merge(sock_env):
    b1 = await start_browser(sock_env, {"a.test": [TOOL]})
    b2 = await start_browser(sock_env, {"b.test": [TOOL]})
    async with McpSession(sock_env) as mcp:
        names = await mcp.wait_tools(lambda n: {"a_test__search_emails", "b_test__search_emails"} <= n)
        assert len({n for n in names if not n.startswith("browser_")}) == 5  # + browser tools

        async def answer(b, who):
            call = await b.expect("call")
            b.send({"type": "result", "id": call["id"], "ok": True, "value": json.dumps(who)})

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer, b2, "second browser")
            r = await mcp.call("b_test__search_emails", {"q": "x"})
        assert text(r) == "second browser"
    await b1.close()
    await b2.close()


async def test_a_host_dying_mid_call_gives_a_clear_error(sock_env):
    b = await start_browser(sock_env, {"a.test": [TOOL]})
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "a_test__search_emails" in n)

        async def kill_on_call():
            await b.expect("call")
            b.proc.kill()

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill_on_call)
            r = await mcp.call("a_test__search_emails", {"q": "x"})
        assert r.is_error and "disconnected while" in text(r)
        await mcp.wait_tools(lambda n: "a_test__search_emails" not in n)


async def test_mcp_cancellation_sends_cancel_to_the_browser(sock_env):
    b = await start_browser(sock_env, {"a.test": [TOOL]})
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "a_test__search_emails" in n)
        with anyio.move_on_after(1):
            await mcp.call("a_test__search_emails", {"q": "slow"})
        call = await b.expect("call")
        cancel = await b.expect("cancel")
        assert cancel["id"] == call["id"]
    await b.close()


async def test_browser_errors_become_is_error_results(sock_env):
    b = await start_browser(sock_env, {"a.test": [TOOL]})
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "a_test__search_emails" in n)

        async def fail():
            call = await b.expect("call")
            b.send({"type": "result", "id": call["id"], "ok": False,
                    "error": {"code": "no_tab", "message": "No tab of a.test is open."}})

        async with anyio.create_task_group() as tg:
            tg.start_soon(fail)
            r = await mcp.call("a_test__search_emails", {"q": "x"})
        assert r.is_error and text(r) == "No tab of a.test is open."
    await b.close()
