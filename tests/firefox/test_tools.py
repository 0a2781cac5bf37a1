"""Browser tools and skills on Firefox ESR: what works there (tabs, navigation, snapshot, page
text, the in-page tools; skills' steps run by the page agent) and what cannot (no chrome.debugger:
real input, screenshots, uploads, skills' trusted steps) answering so, plainly, before anything
is done in the page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.demo.run import serve_site

pytestmark = [pytest.mark.anyio]

SITE = Path(__file__).parents[1] / "e2e" / "site"
EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"
CSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"
LINE = re.compile(r'- (\w+)(?: "((?:[^"\\]|\\.)*)")? \[(e\d+)\]')


@pytest.fixture(scope="module")
def skills_url() -> Iterator[str]:
    with serve_site(SITE, headers={"Content-Security-Policy": CSP}) as url:
        yield url + "skills/"


def ref(snapshot: str, role: str, name: str) -> str:
    for m in LINE.finditer(snapshot):
        if m.group(1) == role and m.group(2) == name:
            return m.group(3)
    raise AssertionError(f"no {role} {name!r} in snapshot:\n{snapshot}")


async def ok(mcp: McpSession, tool: str, args: dict[str, Any] | None = None) -> str:
    r = await mcp.call(tool, args or {})
    assert not r.is_error, f"{tool} {args}: {text(r)}"
    return text(r)


def unavailable(r: Any, what: str) -> None:
    assert r.is_error, text(r)
    assert text(r).endswith(f"{what} is not available in Firefox: it needs chrome.debugger (real "
                            "mouse and keyboard input, screenshots, file upload), which Firefox "
                            "does not give extensions. What works there: the pages' own tools "
                            "(WebMCP), browser_snapshot, browser_page_text, browser_select_option, "
                            "browser_scroll, browser_wait_for, the tab tools, and skills without "
                            "trusted steps."), text(r)


async def test_browser_tools_that_work_and_those_that_say_they_cannot(browser, mcp, site_url):
    site = site_url + "browser/"
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    tabs = (await mcp.call("browser_tabs")).structured_content
    assert tabs is not None and any(t["url"] == site + "form.html" for t in tabs["tabs"]), tabs
    snapshot = await ok(mcp, "browser_snapshot")
    assert 'heading "Sign up"' in snapshot
    plan = ref(snapshot, "combobox", "Plan")
    await ok(mcp, "browser_select_option", {"ref": plan, "values": ["pro"]})
    [ctx] = [c for c in await browser.ff.tabs()
             if await browser.ff.evaluate(c, "location.href") == site + "form.html"]
    assert await browser.ff.evaluate(ctx, "document.getElementById('plan').value") == "pro"
    assert "Sign up" in await ok(mcp, "browser_page_text")
    button = ref(snapshot, "button", "Create account")
    for tool, args in (("click", {"ref": button}), ("type", {"ref": ref(snapshot, "textbox", "Name"),
                                                             "text": "Ada"}),
                       ("hover", {"ref": button}), ("press_key", {"key": "Enter"}),
                       ("screenshot", {})):
        unavailable(await mcp.call(f"browser_{tool}", args), f"browser_{tool}")
    # Nothing reached the page.
    assert await browser.ff.evaluate(ctx, "document.getElementById('name').value") == ""
    assert await browser.ff.evaluate(ctx, "document.getElementById('result').textContent") == ""
    await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    await ok(mcp, "browser_back")
    assert site + "form.html" in json.dumps((await mcp.call("browser_tabs")).structured_content)


def add_skill(env: dict[str, str], path: Path) -> None:
    subprocess.run([sys.executable, "-m", "webmcp_sidecar", "skills", "add", str(path)],
                   env={**os.environ, **env}, capture_output=True, text=True, check=True,
                   timeout=60)


async def test_skills_run_their_page_steps_and_a_trusted_step_says_it_cannot(
        browser, mcp, skills_url):
    add_skill(browser.env, EXAMPLES / "demo-shop.skill.json")
    tab = await browser.open(skills_url + "shop.html")
    s = skills_url.split("/")[2].replace(".", "_").replace(":", "_")
    await mcp.wait_tools(lambda n: f"{s}__add_to_cart" in n and f"{s}__checkout" in n)
    products = json.loads(await ok(mcp, f"{s}__list_products"))
    assert [p["sku"] for p in products] == ["green", "black", "oolong"]
    cart = json.loads(await ok(mcp, f"{s}__add_to_cart", {"sku": "green", "quantity": 2}))
    assert cart == {"count": "2", "lines": ["2 × Green tea"]}
    assert await tab.text_content("#cart-count") == "2"
    r = await mcp.call(f"{s}__checkout")
    assert text(r).startswith("Skill demo-shop, tool checkout: step 1 (click "), text(r)
    unavailable(r, "a trusted step")
    assert await tab.text_content("#checkout-state") == "not checked out"


SIDEBAR = "webmcp-sidecar_webmcp_io-sidebar-action"  # Firefox's id of our sidebar_action


async def test_the_side_panel_is_firefoxs_sidebar_and_connects_to_the_host(browser, mcp):
    """The manifest's sidebar_action shows our panel page in Firefox's sidebar; the page (here in
    a tab, where BiDi can read it) passes the worker's check of our own pages
    (runtime.getURL(''): moz-extension://<uuid>/) and says the host is connected."""
    await browser.ff.chrome_eval(f"SidebarController.show({SIDEBAR!r}).then(() => true)")
    want = f"{browser.ff.extension_origin}/sidepanel/index.html"
    with anyio.fail_after(10):  # the sidebar's inner browser loads the page after show()
        while await browser.ff.chrome_eval(
                "SidebarController.browser.contentDocument?.getElementById("
                "'webext-panels-browser')?.currentURI.spec ?? ''") != want:
            await anyio.sleep(0.05)
    panel = await browser.open_extension_page("sidepanel/index.html")
    await panel.wait_for("document.body.innerText.includes('Host connected')")
    assert await panel.evaluate("location.origin") == browser.ff.extension_origin
