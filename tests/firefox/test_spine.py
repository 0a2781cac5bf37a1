"""The spine on Firefox ESR: page tools (our polyfill: Firefox has no WebMCP) -> extension (an
event page, not a service worker) -> the host Firefox started (`<manifest path> <add-on id>`) ->
`webmcp-sidecar mcp` -> the MCP SDK client."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
import pytest

from tests.support.mcp_session import text

pytestmark = [pytest.mark.anyio]


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


async def test_tools_reach_the_client_and_calls_change_the_page(browser, mcp, site_url):
    tab = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    add = {t.name: t for t in await mcp.tools()}[f"{s}__add"]
    assert add.meta["io.webmcp.sidecar/source"] == "polyfill"
    assert add.annotations is not None and add.annotations.read_only_hint is True
    r = await mcp.call(f"{s}__add", {"a": 20, "b": 22})
    assert not r.is_error and r.structured_content == {"sum": 42, "label": "A"}
    assert await tab.text_content("#out") == "20+22=42"
    # No frame lane in Firefox (its bridge needs a service worker): no hidden frame in the page.
    assert await tab.evaluate("document.querySelectorAll('iframe').length") == 0
    # The entry link came up beside the native port: the host learnt the moz-extension origin
    # from the hello, the entry learnt it from the host, and its link admitted the worker's
    # WebSocket with it.
    log = browser.host_log()
    assert "for Firefox add-on webmcp-sidecar@webmcp.io" in log
    assert "extension 0.1.0 connected (Firefox " in log
    with anyio.fail_after(10):
        while "entry link open" not in browser.entry_log():
            await anyio.sleep(0.05)


async def test_register_and_unregister_send_list_changed(browser, mcp, site_url):
    tab = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    before = mcp.changes
    await tab.evaluate("window.addExtra(), true")
    await mcp.wait_tools(lambda n: f"{s}__extra" in n)
    await mcp.wait_changes(before)
    assert text(await mcp.call(f"{s}__extra")) == "extra!"
    before = mcp.changes
    await tab.evaluate("window.removeExtra(), true")
    await mcp.wait_tools(lambda n: f"{s}__extra" not in n)
    await mcp.wait_changes(before)


async def test_errors_bad_arguments_a_throwing_tool_and_a_large_result(browser, mcp, site_url):
    tab = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    r = await mcp.call(f"{s}__add", {"a": "two"})
    assert r.is_error and "'two' is not of type 'number'" in text(r)
    assert await tab.evaluate("window.calls") == 0
    r = await mcp.call(f"{s}__thrower")
    assert r.is_error and "card declined: insufficient funds" in text(r)
    r = await mcp.call(f"{s}__big", {"n": 3_000_000})
    assert not r.is_error and text(r) == "x" * 3_000_000


async def test_calls_go_to_the_newest_tab_then_the_one_left(browser, mcp, site_url):
    a = await browser.open(site_url + "tools.html?label=A")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__whoami" in n)
    b = await browser.open(site_url + "tools.html?label=B")
    with anyio.fail_after(10):  # until B's tools have reached the registry and it routes there
        while text(await mcp.call(f"{s}__whoami")) != "B":
            await anyio.sleep(0.1)
    await b.close()
    assert text(await mcp.call(f"{s}__whoami")) == "A"
    await a.close()
    await mcp.wait_tools(lambda n: not any(x.startswith(s + "__") for x in n))


async def test_declarative_form_tool(browser, mcp, site_url):
    tab = await browser.open(site_url + "declarative.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__subscribe" in n)
    r = await mcp.call(f"{s}__subscribe", {"email": "a@b.c"})
    assert not r.is_error, text(r)
    await tab.wait_for("document.getElementById('out').textContent.length > 0")
    assert await tab.text_content("#out") == "subscribed a@b.c (weekly)"


def doctor(env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "doctor", "--browser", "firefox", "--json"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout)


async def test_doctor_sees_the_firefox_setup_and_its_live_host(browser, mcp, site_url):
    """What `install --browser firefox` wrote (the module's browser was set up with it) is what
    doctor checks, and the host Firefox started answers it with the extension connected."""
    await browser.open(site_url + "tools.html")
    await mcp.wait_tools(lambda n: f"{slug(site_url)}__add" in n)
    checks = {c["id"]: c for c in doctor(browser.env)["checks"]}
    for cid in ("manifest", "json", "origins", "path", "starts"):
        assert checks[f"browser:firefox:{cid}"]["status"] == "ok", checks
    assert checks["browser:firefox:manifest"]["detail"] == str(
        browser.home / ".mozilla/native-messaging-hosts/io.webmcp.sidecar.json")
    [live] = [c for c in checks.values() if c["id"].startswith("host:")]
    assert live["status"] == "ok" and "moz-extension://" in live["detail"], live
    assert "Firefox 153" in live["detail"] and "1 site(s) with tools" in live["detail"]
