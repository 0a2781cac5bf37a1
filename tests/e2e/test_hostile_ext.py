"""Hostile pages against the extension's side of the chain, end to end (real Chromium, host,
MCP entry): a flood of tools, schemas nested too deep, and a legacy page that patches the
built-ins (Prototype.js style). The pages are tests/e2e/site/hostile_ext_*.html.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from playwright.async_api import expect

from tests.support.mcp_session import text
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def site_of(url: str) -> str:
    return url.split("/")[2]


def slug(url: str) -> str:
    return site_of(url).replace(".", "_").replace(":", "_")


def site_names(names: set[str], s: str) -> set[str]:
    return {n for n in names if n.startswith(s + "__")}


async def test_a_flood_of_tools_is_cut_to_256_and_the_entry_stays_responsive(
    browser, mcp, site_url, sidecar_env
):
    page = await browser.open(site_url + "hostile_ext_flood.html")
    s = slug(site_url)
    # The page's 10 001 tools: the first 256 reach the client, in the page's order.
    await mcp.wait_tools(lambda n: len(site_names(n, s)) >= 256, timeout=60)
    await page.wait_for_function("window.registered >= 10000", timeout=60_000)
    await anyio.sleep(2)  # any later update would have arrived by now
    with anyio.fail_after(10):
        names = site_names(await mcp.names(), s)
        assert len(names) == 256
        assert f"{s}__a_ping" in names and f"{s}__flood_00254" in names
        assert f"{s}__flood_00255" not in names
        r = await mcp.call(f"{s}__a_ping")
    assert not r.is_error and text(r) == "pong"

    # The Inspector says the site was cut, and shows the scheme.
    panel = await browser.ctx.new_page()
    await panel.goto(PANEL_URL)
    await panel.click("#tab-inspector")
    section = panel.locator(f'section.site[data-site="{site_of(site_url)}"]')
    await expect(section).to_have_attribute("data-scheme", "http", timeout=20_000)
    await expect(section.locator("h3")).to_contain_text(f"http://{site_of(site_url)}")
    await expect(section.locator(".site-notice")).to_contain_text(
        "9745 over the limit of 256 tools", timeout=20_000
    )
    await expect(section.locator(".tool-block")).to_have_count(256)
    await panel.set_viewport_size({"width": 400, "height": 500})
    ARTIFACTS.mkdir(exist_ok=True)
    await panel.screenshot(path=str(ARTIFACTS / f"inspector-cut-site-{browser.mode}.png"))

    # So does the host's log, once per change of the notice.
    log = Path(sidecar_env["WEBMCP_SIDECAR_LOG_DIR"]) / "host.log"
    assert "over the limit of 256 tools" in log.read_text()


async def test_a_schema_nested_too_deep_drops_that_tool_only(browser, mcp, site_url):
    page = await browser.open(site_url + "hostile_ext_deep.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n and f"{s}__deep_ok" in n)
    await anyio.sleep(1)
    names = site_names(await mcp.names(), s)
    assert names == {f"{s}__add", f"{s}__deep_ok"}  # `deep` (500 levels) and `huge` (100 KB) left out
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 3})
    assert not r.is_error and r.structured_content == {"sum": 5}
    assert await page.text_content("#out") == "5"
    assert text(await mcp.call(f"{s}__deep_ok")) == "ok ran"
    listed = await mcp.call("list_site_tools", {"site": site_of(site_url)})
    assert "deep_ok" in text(listed) and '"deep"' not in text(listed)


@pytest.mark.parametrize("mode", ["polyfill"])
async def test_a_prototype_js_page_keeps_its_polyfill_tools(browser, mcp, site_url):
    """Array.prototype.toJSON returning a string used to turn the polyfill's whole tool list
    (and every array in a schema or in the arguments) into strings: all tools were lost."""
    page = await browser.open(site_url + "hostile_ext_prototype.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: {f"{s}__join", f"{s}__list", f"{s}__legacy_tags"} <= n)
    tools = {t.name: t for t in await mcp.tools()}
    schema = tools[f"{s}__join"].input_schema
    assert schema["required"] == ["words"]
    assert schema["properties"]["sep"]["enum"] == ["+", "-"]
    r = await mcp.call(f"{s}__join", {"words": ["a", "b", "c"], "sep": "-"})
    assert not r.is_error and text(r) == "a-b-c"
    assert await page.text_content("#out") == "a-b-c"
    assert text(await mcp.call(f"{s}__legacy_tags", {"tags": [1, 2, 3]})) == "tags: 3"
    assert not (await mcp.call(f"{s}__list")).is_error
