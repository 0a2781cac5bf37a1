"""The spine end to end: page tools -> extension -> host -> MCP entry -> MCP SDK client.

Every test runs twice: with Chromium's native WebMCP and with our polyfill.
"""

from __future__ import annotations

import os
import signal

import anyio
import pytest

from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.paths import socket_dir

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def site_of(url: str) -> str:
    return url.split("/")[2]


def slug(url: str) -> str:
    return site_of(url).replace(".", "_").replace(":", "_")


async def tabs_speaking_for(browser, site: str, n: int) -> None:
    """Waits until the worker's registry has `n` tabs speaking for `site`."""
    w = await browser.worker()
    with anyio.fail_after(10):
        while await w.evaluate("(s) => globalThis.sidecar.registry.tabIdsOf(s).length", site) != n:
            await anyio.sleep(0.05)


async def test_tools_appear_with_names_meta_and_annotations(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    tools = {t.name: t for t in await mcp.tools()}
    add = tools[f"{s}__add"]
    assert add.annotations is not None and add.annotations.read_only_hint is True
    assert add.meta["io.webmcp.sidecar/site"] == site_of(site_url)
    assert add.meta["io.webmcp.sidecar/tool"] == "add"
    expected_source = "native" if browser.mode == "native" else "polyfill"
    assert add.meta["io.webmcp.sidecar/source"] == expected_source
    assert site_of(site_url) in add.description
    assert {"list_site_tools", "call_site_tool", "open_browser"} <= set(tools)
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 3})
    assert not r.is_error and r.structured_content == {"sum": 5, "label": "A"}


async def test_call_changes_the_page(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    await mcp.call(f"{s}__add", {"a": 20, "b": 22})
    assert await page.text_content("#out") == "20+22=42"


async def test_register_and_unregister_send_list_changed(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    before = mcp.changes
    await page.evaluate("window.addExtra()")
    await mcp.wait_tools(lambda n: f"{s}__extra" in n)
    await mcp.wait_changes(before)
    r = await mcp.call(f"{s}__extra")
    assert text(r) == "extra!"
    before = mcp.changes
    await page.evaluate("window.removeExtra()")
    await mcp.wait_tools(lambda n: f"{s}__extra" not in n)
    await mcp.wait_changes(before)


async def test_2026_clients_get_changes_through_subscriptions(browser, sidecar_env, site_url):
    async with McpSession(sidecar_env, mode="auto") as modern:
        assert modern.protocol_version == "2026-07-28"
        page = await browser.open(site_url + "tools.html")
        s = slug(site_url)
        await modern.wait_tools(lambda n: f"{s}__add" in n)
        before = modern.changes
        await page.evaluate("window.addExtra()")
        await modern.wait_tools(lambda n: f"{s}__extra" in n)
        # The change also came by the subscription (not only seen by re-listing).
        with anyio.fail_after(10):
            while modern.changes == before:
                await anyio.sleep(0.05)


async def test_no_change_is_sent_for_a_second_tab_or_a_tab_switch(browser, mcp, site_url):
    first = await browser.open(site_url + "tools.html?label=A")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    await anyio.sleep(0.5)
    before = mcp.changes
    await browser.open(site_url + "tools.html?label=B")
    await first.bring_to_front()
    await anyio.sleep(1.0)
    assert mcp.changes == before


async def test_two_tabs_share_tools_and_calls_go_to_the_newest(browser, mcp, site_url):
    a = await browser.open(site_url + "tools.html?label=A")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__whoami" in n)
    b = await browser.open(site_url + "tools.html?label=B")
    await b.wait_for_function("document.getElementById('label').textContent === 'B'")
    await tabs_speaking_for(browser, site_of(site_url), 2)
    # B shows the site before its tools reach the worker (its relay comes on first use): wait
    # until the newest tab is where the registry routes the tool.
    w = await browser.worker()
    with anyio.fail_after(10):
        while not await w.evaluate(
            "([s, t]) => { const r = globalThis.sidecar.registry;"
            " return r.route(s, t).tabId === r.tabIdsOf(s)[0]; }", [site_of(site_url), "whoami"]):
            await anyio.sleep(0.05)
    assert text(await mcp.call(f"{s}__whoami")) == "B"
    await b.close()
    # The worker hears of the closed tab a moment after Playwright does; a call sent in between
    # goes to B and is answered "tab closed", which is right for a user closing it mid-call.
    await tabs_speaking_for(browser, site_of(site_url), 1)
    assert text(await mcp.call(f"{s}__whoami")) == "A"
    assert f"{s}__whoami" in await mcp.names()  # A still has them
    await a.close()
    await mcp.wait_tools(lambda n: not any(x.startswith(s + "__") for x in n))


async def test_legacy_navigator_model_context(browser, mcp, site_url):
    page = await browser.open(site_url + "legacy.html")
    s = slug(site_url)
    names = await mcp.wait_tools(lambda n: f"{s}__legacy_echo" in n and f"{s}__ctx_two" in n)
    assert f"{s}__ctx_one" in names
    r = await mcp.call(f"{s}__legacy_echo", {"text": "hi"})
    assert text(r) == "echo: hi (interaction true)" and not r.is_error
    assert await page.text_content("#out") == "hi"
    assert text(await mcp.call(f"{s}__ctx_two")) == "two"
    await page.evaluate("window.unregisterEcho()")
    await mcp.wait_tools(lambda n: f"{s}__legacy_echo" not in n)
    await page.evaluate("window.replaceContext()")
    names = await mcp.wait_tools(lambda n: f"{s}__ctx_three" in n)
    assert f"{s}__ctx_one" not in names
    await page.evaluate("window.clearAll()")
    await mcp.wait_tools(lambda n: f"{s}__ctx_three" not in n)


async def test_declarative_form_tool(browser, mcp, site_url):
    page = await browser.open(site_url + "declarative.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__subscribe" in n)
    tool = next(t for t in await mcp.tools() if t.name == f"{s}__subscribe")
    assert "email" in tool.input_schema["properties"]
    r = await mcp.call(f"{s}__subscribe", {"email": "a@b.c"})
    assert not r.is_error, text(r)
    await page.wait_for_function("document.getElementById('out').textContent.length > 0")
    assert await page.text_content("#out") == "subscribed a@b.c (weekly)"


async def test_bad_arguments_never_reach_the_page(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    r = await mcp.call(f"{s}__add", {"a": "two"})
    assert r.is_error
    msg = text(r)
    assert "a: 'two' is not of type 'number'" in msg and "'b' is a required property" in msg
    assert await page.evaluate("window.calls") == 0


async def test_a_tool_that_throws_keeps_its_message(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__thrower" in n)
    r = await mcp.call(f"{s}__thrower")
    assert r.is_error and "card declined: insufficient funds" in text(r)


async def test_results_mcp_content_and_nothing(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__mcpContent" in n)
    assert text(await mcp.call(f"{s}__mcpContent")) == "already MCP"
    assert "returned nothing" in text(await mcp.call(f"{s}__nothing"))


async def test_result_over_1_mib_arrives_whole(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__big" in n)
    n = 3 * 1024 * 1024
    r = await mcp.call(f"{s}__big", {"n": n})
    assert not r.is_error and text(r) == "x" * n
    # In parts from the content script (page/isolated/relay.js), each cut next to a surrogate
    # pair: joined back exactly.
    r = await mcp.call(f"{s}__big", {"n": 200_000, "ch": "\U0001f600a"})
    assert not r.is_error and text(r) == "\U0001f600a" * 200_000


async def test_results_over_the_cap_are_refused_clearly(browser, sidecar_env, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    async with McpSession(sidecar_env, extra_args=["--max-result-bytes", "1048576"]) as small:
        await small.wait_tools(lambda n: f"{s}__big" in n)
        r = await small.call(f"{s}__big", {"n": 2_000_000})
        assert r.is_error and "1.9 MB, over the 1" in text(r) and "limit" in text(r)
        assert not (await small.call(f"{s}__big", {"n": 10})).is_error


async def test_a_page_that_never_answers_times_out_and_is_cancelled(browser, sidecar_env, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    async with McpSession(sidecar_env, extra_args=["--timeout", "1.5"]) as quick:
        await quick.wait_tools(lambda n: f"{s}__never" in n)
        r = await quick.call(f"{s}__never")
        assert r.is_error and "1.5 s" in text(r)
        # Still usable afterwards.
        assert not (await quick.call(f"{s}__add", {"a": 1, "b": 1})).is_error
    if browser.mode == "polyfill":
        await page.wait_for_function("window.cancelLog.includes('signal')")


async def test_mcp_cancellation_reaches_the_page(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__never" in n)
    with anyio.move_on_after(1):
        await mcp.call(f"{s}__never")
    # The page learns about it: the tool's signal (polyfill) or Chromium's toolcancel event.
    await page.wait_for_function("window.cancelLog.length > 0", timeout=10_000)
    assert not (await mcp.call(f"{s}__add", {"a": 1, "b": 2})).is_error


async def test_same_origin_iframes_count_cross_origin_do_not(browser, mcp, site_url, other_site_url):
    await browser.open(site_url + f"frames.html?other={other_site_url}")
    s = slug(site_url)
    names = await mcp.wait_tools(lambda n: f"{s}__top_tool" in n and f"{s}__same_origin_tool" in n)
    await anyio.sleep(1)
    names = await mcp.names()
    assert f"{s}__cross_origin_tool" not in names
    assert not any(n.startswith(slug(other_site_url) + "__") for n in names)
    assert text(await mcp.call(f"{s}__same_origin_tool")) == "same_origin_tool"


async def test_two_clients_call_at_once(browser, mcp, sidecar_env, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    async with McpSession(sidecar_env, name="second") as other:
        await mcp.wait_tools(lambda n: f"{s}__add" in n)
        await other.wait_tools(lambda n: f"{s}__add" in n)
        results: dict[tuple[int, int], dict] = {}
        hang = {"done": False}

        async def run(session: McpSession, k: int) -> None:
            for i in range(20):
                r = await session.call(f"{s}__add", {"a": k, "b": i})
                results[(k, i)] = r.structured_content

        async def stuck() -> None:
            with anyio.move_on_after(60):
                await other.call(f"{s}__never")
            hang["done"] = True

        async with anyio.create_task_group() as tg:
            tg.start_soon(stuck)  # a call that never answers, in the second client
            async with anyio.create_task_group() as calls:
                calls.start_soon(run, mcp, 1000)
                calls.start_soon(run, other, 2000)
            # Both clients finished their calls while the stuck call was still waiting.
            assert not hang["done"]
            tg.cancel_scope.cancel()
    assert len(results) == 40
    assert all(v["sum"] == k + i for (k, i), v in results.items())


@pytest.mark.fresh_browser  # kills the host
async def test_host_killed_mid_session_comes_back(browser, mcp, site_url, sidecar_env):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    sock_dir = socket_dir()  # derived from the test's HOME, as the host and the entry do
    (sock,) = [p for p in os.listdir(sock_dir) if p.endswith(".sock")]
    pid = int(sock.split("-")[1].split(".")[0])
    os.kill(pid, signal.SIGKILL)
    await mcp.wait_tools(lambda n: f"{s}__add" not in n, timeout=20)
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 2})
    assert r.is_error
    # The extension reconnects (Chromium starts a new host) and the tools come back.
    await mcp.wait_tools(lambda n: f"{s}__add" in n, timeout=30)
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 2})
    assert r.structured_content["sum"] == 3
    socks = [p for p in os.listdir(sock_dir) if p.endswith(".sock")]
    assert socks and socks != [sock]


async def test_meta_tools(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    site = site_of(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    listing = (await mcp.call("list_site_tools")).structured_content
    assert "add" in [t["name"] for t in listing["sites"][site]]
    one = (await mcp.call("list_site_tools", {"site": site})).structured_content
    add = next(t for t in one["tools"] if t["name"] == "add")
    assert add["mcp_name"] == f"{s}__add" and add["inputSchema"]["required"] == ["a", "b"]
    r = await mcp.call("call_site_tool", {"site": site, "tool": "add", "arguments": {"a": 4, "b": 5}})
    assert r.structured_content["sum"] == 9
    r = await mcp.call("call_site_tool", {"site": site, "tool": "nope"})
    assert r.is_error and "no tool named `nope`" in text(r) and "add" in text(r)
    r = await mcp.call("call_site_tool", {"site": "elsewhere.test", "tool": "x"})
    assert r.is_error and "Open it in the browser" in text(r)


async def test_open_browser_opens_a_tab_whose_tools_appear(browser, mcp, site_url):
    s = slug(site_url)
    # Wait for the entry to see the browser: with none, open_browser would ask the OS instead.
    with anyio.fail_after(30):
        while "No browser is connected" in text(await mcp.call("list_site_tools")):
            await anyio.sleep(0.2)
    r = await mcp.call("open_browser", {"url": site_url + "tools.html"})
    assert not r.is_error and "Opened" in text(r), text(r)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 1})
    assert r.structured_content["sum"] == 2


async def test_spa_navigation_and_history_keep_the_list_right(browser, mcp, site_url):
    page = await browser.open(site_url + "spa.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__view_home" in n)
    await page.evaluate("window.go('settings')")
    names = await mcp.wait_tools(lambda n: f"{s}__view_settings" in n)
    assert f"{s}__view_home" not in names
    assert text(await mcp.call(f"{s}__view_settings")) == "settings"
    await page.go_back()
    names = await mcp.wait_tools(lambda n: f"{s}__view_home" in n)
    assert f"{s}__view_settings" not in names


async def test_a_site_leaving_the_tab_takes_its_tools(browser, mcp, site_url, other_site_url):
    page = await browser.open(site_url + "tools.html")
    s, other = slug(site_url), slug(other_site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    await page.goto(other_site_url + "spa.html")
    names = await mcp.wait_tools(lambda n: f"{other}__view_home" in n)
    await mcp.wait_tools(lambda n: not any(x.startswith(s + "__") for x in n))
    assert f"{other}__view_home" in names
