"""Cross-origin iframes (issue 10): a frame's tool reaches MCP clients only where the spec lets
the top document see it: the iframe has `allow="tools"` and the tool's `exposedTo` names the top
origin. It is listed under the top-level site with its own origin in `_meta`, and calls run in
that frame. Both modes: native Chromium checks it itself; the polyfill's worker checks it.
"""

from __future__ import annotations

import anyio
import pytest

from tests.support.mcp_session import text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


def site_of(url: str) -> str:
    return url.split("/")[2]


def slug(url: str) -> str:
    return site_of(url).replace(".", "_").replace(":", "_")


async def test_exposed_tool_of_an_allowed_frame_is_listed_and_called(browser, mcp, site_url, other_site_url):
    page = await browser.open(site_url + f"xo-top.html?other={other_site_url}")
    s = slug(site_url)
    other_origin = other_site_url.rstrip("/")
    await mcp.wait_tools(lambda n: f"{s}__exposed_allowed" in n and f"{s}__top_tool" in n)
    tools = {t.name: t for t in await mcp.tools()}
    exposed = tools[f"{s}__exposed_allowed"]
    assert exposed.meta["io.webmcp.sidecar/origin"] == other_origin
    assert exposed.meta["io.webmcp.sidecar/site"] == site_of(site_url)
    assert "io.webmcp.sidecar/origin" not in tools[f"{s}__top_tool"].meta
    r = await mcp.call(f"{s}__exposed_allowed", {"word": "bonjour"})
    assert not r.is_error, text(r)
    assert text(r) == f"exposed_allowed ran in {other_origin} with bonjour"
    frame = next(f for f in page.frames if "tag=allowed" in f.url)
    assert await frame.text_content("#out") == "bonjour"


async def test_not_exposed_and_not_allowed_stay_out(browser, mcp, site_url, other_site_url):
    page = await browser.open(site_url + f"xo-top.html?other={other_site_url}")
    s, other = slug(site_url), slug(other_site_url)
    await mcp.wait_tools(lambda n: f"{s}__exposed_allowed" in n)
    # Every frame has registered (or been refused) by now.
    for tag in ("allowed", "plain"):
        frame = next(f for f in page.frames if f"tag={tag}" in f.url)
        await frame.wait_for_function("Object.keys(window.registered).length === 3")
    await anyio.sleep(1)
    names = await mcp.names()
    for name in ("hidden_allowed", "elsewhere_allowed", "exposed_plain", "hidden_plain", "elsewhere_plain"):
        assert f"{s}__{name}" not in names
    assert not any(n.startswith(other + "__") for n in names)
    r = await mcp.call("call_site_tool", {"site": site_of(site_url), "tool": "exposed_plain"})
    assert r.is_error
    plain = next(f for f in page.frames if "tag=plain" in f.url)
    registered = await plain.evaluate("window.registered")
    # A frame without the `tools` permission cannot register (Chromium; the polyfill asks the
    # frame's parent): the worker's own check stays for frames that would not ask.
    assert set(registered.values()) == {"NotAllowedError"}
