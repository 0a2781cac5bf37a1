"""Tabs open before the extension (re)loads get its page scripts at once, and about:blank/srcdoc
frames get them at all.

Chrome runs manifest content scripts only in documents loaded after the extension was
installed, updated, reloaded or re-enabled. The extension's worker injects them into the tabs
already open (background/open-tabs.js), so their tools reach MCP clients without a reload. Here
the extension reloads itself (chrome.runtime.reload() in its worker: an update, as far as Chrome
is concerned) under an open tab, through the real host and the MCP SDK client.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from playwright.async_api import Page, Route

from tests.support.browser import Browser, launch
from tests.support.mcp_session import text
from webmcp_sidecar.paths import socket_dir

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]

# A page with a tool, an srcdoc iframe with a tool (its document is about:srcdoc; its origin
# the page's) and a same-origin iframe loaded from a URL (which starts as about:blank: it must
# still get one working copy of the scripts).
FRAMES_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>srcdoc</title></head><body>
<script>
document.modelContext.registerTool({ name: "top_tool", description: "In the top frame",
  execute: () => "top" });
const inner = document.createElement("iframe");
inner.srcdoc = '<script>document.modelContext.registerTool({ name: "srcdoc_tool", ' +
  'description: "In an srcdoc frame", execute: () => "from srcdoc " + location.href });<\\/script>';
document.body.append(inner);
</script>
<iframe src="/frame-tool.html?name=src_tool"></iframe>
</body></html>"""


@pytest.fixture
async def browser(tmp_path: Path, sidecar_env: dict[str, str], mode: str) -> AsyncIterator[Browser]:
    """The usual browser, with developer mode on in its profile: Chromium disables an extension
    loaded from the command line when it reloads without it (DISABLE_UNSUPPORTED_DEVELOPER_EXTENSION)."""
    prefs = tmp_path / f"profile-{mode}" / "Default" / "Preferences"
    prefs.parent.mkdir(parents=True, exist_ok=True)
    prefs.write_text(json.dumps({"extensions": {"ui": {"developer_mode": True}}}))
    async with launch(tmp_path, sidecar_env, mode) as b:
        yield b


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


def host_pids() -> set[int]:
    d = socket_dir()
    if not d.is_dir():
        return set()
    socks = [p for p in os.listdir(d) if p.startswith("host-") and p.endswith(".sock")]
    return {int(p.split("-")[1].split(".")[0]) for p in socks}


async def reload_extension(browser: Browser) -> None:
    """chrome.runtime.reload() in the worker, then wait for the new worker and for a new host
    (the old one exits when its port closes), so every tool seen after this comes from the
    reloaded extension."""
    with anyio.fail_after(30):
        while not host_pids():
            await anyio.sleep(0.1)
    old_hosts = host_pids()
    worker = await browser.worker()
    try:
        await worker.evaluate("chrome.runtime.reload()")
    except Exception:
        pass  # the worker may die before it answers
    with anyio.fail_after(30):
        while not (host_pids() and host_pids().isdisjoint(old_hosts)):
            await anyio.sleep(0.1)


def host_log(log_dir: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in log_dir.glob("*.log*"))


async def serve_frames_page(browser: Browser, url: str) -> None:
    async def fulfil(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=FRAMES_PAGE)

    await browser.ctx.route(url, fulfil)


async def test_an_open_tab_gets_its_tools_back_after_the_extension_reloads(
        browser, mcp, site_url, sidecar_env):
    page: Page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    # Anything a reload of the tab would wipe, and the page's modelContext.
    await page.evaluate("window.sameDocument = 'yes'; window.mcBefore = document.modelContext")

    await reload_extension(browser)

    # The new host has the tab's tools although the tab never reloaded.
    await mcp.wait_tools(lambda n: f"{s}__add" in n, timeout=30)
    r = await mcp.call(f"{s}__add", {"a": 40, "b": 2})
    assert not r.is_error, text(r)
    assert r.structured_content == {"sum": 42, "label": "A"}
    assert await page.text_content("#out") == "40+2=42"
    assert await page.evaluate("window.sameDocument") == "yes"
    # It was the worker's injection that brought them (it says so in the host's log) ...
    log = host_log(Path(sidecar_env["WEBMCP_SIDECAR_LOG_DIR"]))
    assert "page scripts to 1 tab(s) open from before" in log
    # ... and the page kept one copy: the injected MAIN-world files saw their marker and did
    # nothing (a second polyfill would have replaced document.modelContext and its tools).
    assert await page.evaluate("document.modelContext === window.mcBefore")
    assert text(await mcp.call(f"{s}__whoami")) == "A"
    # A tab opened now gets the scripts from the manifest as usual, and answers once A is gone.
    await browser.open(site_url + "tools.html?label=B")
    await page.close()
    with anyio.fail_after(10):
        while text(await mcp.call(f"{s}__whoami")) != "B":
            await anyio.sleep(0.1)


async def test_srcdoc_frame_tools_belong_to_the_pages_site(browser, mcp, site_url, mode):
    url = site_url + "open-tabs/srcdoc.html"
    await serve_frames_page(browser, url)
    await browser.open(url)
    s = slug(site_url)
    names = await mcp.wait_tools(
        lambda n: {f"{s}__top_tool", f"{s}__srcdoc_tool", f"{s}__src_tool"} <= n)
    # The srcdoc frame's tool is the page's site's (its origin), not a site of its own.
    assert not any(n.startswith("about") or n.startswith("srcdoc") for n in names)
    assert text(await mcp.call(f"{s}__srcdoc_tool")) == "from srcdoc about:srcdoc"
    # The iframe that started as about:blank and then loaded its URL works as before.
    assert text(await mcp.call(f"{s}__src_tool")) == "src_tool"
    assert text(await mcp.call(f"{s}__top_tool")) == "top"


async def test_srcdoc_frames_get_the_scripts_again_after_a_reload(browser, mcp, site_url, mode):
    url = site_url + "open-tabs/srcdoc.html"
    await serve_frames_page(browser, url)
    await browser.open(url)
    s = slug(site_url)
    want = {f"{s}__top_tool", f"{s}__srcdoc_tool", f"{s}__src_tool"}
    await mcp.wait_tools(lambda n: want <= n)

    await reload_extension(browser)

    await mcp.wait_tools(lambda n: want <= n, timeout=30)
    assert text(await mcp.call(f"{s}__srcdoc_tool")) == "from srcdoc about:srcdoc"
    assert text(await mcp.call(f"{s}__src_tool")) == "src_tool"
