"""Browser tools end to end: headless Chromium with our extension (which starts our real host),
MCP sessions through the real MCP SDK client and `webmcp-sidecar mcp`, the test site in
tests/e2e/site/browser/. What a tool does is checked on the page itself (Playwright) or in the
browser's own state (chrome.tabs / chrome.tabGroups in the service worker).
"""

from __future__ import annotations

import base64
import re
import struct

import anyio
import pytest
from mcp import types
from playwright.async_api import Page

from tests.support.browser import Browser
from tests.support.mcp_session import McpSession, text
from tests.support.raw_entry import RawEntry
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.tools import uploads

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NO_PAGE_TOOLS = {"browser_tabs", "browser_navigate", "browser_tab_open", "browser_tab_select"}
PAGE_TOOLS = {"browser_snapshot", "browser_click", "browser_type", "browser_screenshot",
              "browser_page_text", "browser_back", "browser_tab_close", "browser_wait_for"}
LINE = re.compile(r'- (\w+)(?: "((?:[^"\\]|\\.)*)")? \[(e\d+)\]')


@pytest.fixture
def mode() -> str:
    # Browser tools do not depend on the page's WebMCP flavour: one run is enough.
    return "native"


@pytest.fixture
def site(site_url: str) -> str:
    return site_url + "browser/"


def ref(snapshot: str, role: str, name: str) -> str:
    """The ref of the element with this role and name in a snapshot's text."""
    for m in LINE.finditer(snapshot):
        if m.group(1) == role and m.group(2) == name:
            return m.group(3)
    raise AssertionError(f"no {role} {name!r} in snapshot:\n{snapshot}")


async def ok(mcp: McpSession, tool: str, args: dict | None = None) -> types.CallToolResult:
    r = await mcp.call(tool, args or {})
    assert not r.is_error, f"{tool} {args}: {text(r)}"
    return r


async def snap(mcp: McpSession, **args: object) -> str:
    return text(await ok(mcp, "browser_snapshot", args))


async def tabs(mcp: McpSession) -> dict:
    r = await ok(mcp, "browser_tabs")
    assert r.structured_content is not None
    return r.structured_content


async def page_at(browser: Browser, url: str) -> Page:
    """The Playwright page of the tab showing `url` (the extension opened it, not Playwright)."""
    with anyio.fail_after(10):
        while True:
            for p in browser.ctx.pages:
                if p.url == url:
                    return p
            await anyio.sleep(0.05)


async def worker_eval(browser: Browser, js: str) -> object:
    w = await browser.worker()
    return await w.evaluate(js)


async def ready(mcp: McpSession) -> None:
    """The browser is connected to the host and this session is known to it."""
    await mcp.wait_tools(lambda n: "browser_navigate" in n)


# --- the tool list follows the context ------------------------------------------------------


async def test_page_tools_appear_once_the_session_has_a_tab_and_go_with_it(browser, mcp, site):
    names = await mcp.wait_tools(lambda n: "browser_navigate" in n)
    assert {n for n in names if n.startswith("browser_")} == NO_PAGE_TOOLS
    r = await mcp.call("browser_snapshot")  # a client that ignores the list still gets told why
    assert r.is_error and "no tab open yet" in text(r) and "browser_navigate" in text(r)
    before = mcp.changes
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    names = await mcp.wait_tools(lambda n: PAGE_TOOLS <= n)
    await mcp.wait_changes(before)
    assert not any("__" in n for n in names if n.startswith("browser_"))  # never a site tool name
    before = mcp.changes
    r = await ok(mcp, "browser_tab_close")
    assert "You have no tab open now" in text(r)
    names = await mcp.wait_tools(lambda n: "browser_snapshot" not in n)
    await mcp.wait_changes(before)
    assert {n for n in names if n.startswith("browser_")} == NO_PAGE_TOOLS


# --- reading and acting ---------------------------------------------------------------------


@pytest.mark.fresh_browser  # allows an uploads folder for the host it talks to
async def test_snapshot_type_choose_click_submit_and_read_back(browser, mcp, site, tmp_path):
    await ready(mcp)
    r = await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    assert "Opened a new tab in your tab group" in text(r) and '"Sign up"' in text(r)
    page = await page_at(browser, site + "form.html")
    s = await snap(mcp)
    assert s.startswith(f'Page: "Sign up" {site}form.html')
    assert '- textbox "Name" [' in s and "required" in s
    assert 'options=["Free","Pro","Team"]' in s
    assert '- textbox "Disabled" [' in s and "disabled" in s

    r = await ok(mcp, "browser_type", {"ref": ref(s, "textbox", "Name"), "text": "Ada"})
    assert 'Its value is now "Ada"' in text(r)
    await ok(mcp, "browser_type", {"ref": ref(s, "textbox", "Email"), "text": "ada@example.com"})
    r = await ok(mcp, "browser_select_option", {"ref": ref(s, "combobox", "Plan"), "values": ["Pro"]})
    assert 'Chose "Pro"' in text(r)
    await ok(mcp, "browser_click", {"ref": ref(s, "checkbox", "Newsletter")})
    avatar = tmp_path / "uploads" / "avatar.png"
    avatar.parent.mkdir()
    avatar.write_bytes(b"\x89PNG fake")
    uploads.allow(str(avatar.parent))  # `webmcp-sidecar uploads allow`, for this test's HOME
    r = await ok(mcp, "browser_upload_file", {"ref": ref(s, "fileinput", "Avatar"), "paths": [str(avatar)]})
    assert "avatar.png" in text(r)
    await ok(mcp, "browser_click", {"ref": ref(s, "button", "Create account")})

    expected = "Thanks, Ada <ada@example.com>: plan pro, newsletter, avatar avatar.png"
    assert await page.text_content("#result") == expected
    assert await page.evaluate("window.submits.length") == 1
    # The agent reads the outcome back: the status message shows in the snapshot.
    s2 = await snap(mcp)
    assert f'- status "{expected}"' in s2
    assert 'value="Ada"' in s2 and "checked" in s2
    # Typing replaces by default, appends with clear: false, submits with Enter.
    name = ref(s2, "textbox", "Name")
    await ok(mcp, "browser_type", {"ref": name, "text": " Lovelace", "clear": False})
    r = await ok(mcp, "browser_type", {"ref": name, "text": "Grace", "submit": True})
    assert "pressed Enter" in text(r)
    assert await page.evaluate("window.submits.map(s => s.name)") == ["Ada", "Grace"]
    assert (await page.text_content("#result")).startswith("Thanks, Grace")


async def test_keys_hover_wait_and_scroll(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    page = await page_at(browser, site + "form.html")
    s = await snap(mcp)
    await ok(mcp, "browser_press_key", {"key": "x", "ref": ref(s, "textbox", "Keys")})
    await ok(mcp, "browser_press_key", {"key": "Control+A"})
    await ok(mcp, "browser_press_key", {"key": "Escape"})
    assert await page.text_content("#keylog") == "[x][Ctrl+a][Escape]"
    r = await mcp.call("browser_press_key", {"key": "Hyper+x"})
    assert r.is_error and "not a modifier" in text(r)

    await ok(mcp, "browser_hover", {"ref": ref(s, "button", "Hover me")})
    assert await page.is_visible("#tip")

    await ok(mcp, "browser_click", {"ref": ref(s, "button", "Load more")})
    r = await ok(mcp, "browser_wait_for", {"text": "Loaded later!", "timeout_s": 5})
    assert "is on the page" in text(r)
    r = await mcp.call("browser_wait_for", {"text": "never shows", "timeout_s": 0.3})
    assert r.is_error and "did not appear" in text(r)
    r = await ok(mcp, "browser_wait_for", {"text": "never shows", "gone": True})
    assert "is gone" in text(r)

    await ok(mcp, "browser_navigate", {"url": site + "long.html"})
    r = await ok(mcp, "browser_scroll", {"direction": "down", "amount": 2})
    assert re.search(r"Scroll position: [1-9]\d* of \d+ px down", text(r))
    s = await snap(mcp, interactive=False, max_chars=200000)
    r = await ok(mcp, "browser_scroll", {"ref": ref(s, "heading", "Section 100")})
    long = await page_at(browser, site + "long.html")
    box = await long.locator("h2", has_text="Section 100").bounding_box()
    assert box is not None and 0 <= box["y"] <= (long.viewport_size or {"height": 720})["height"]


async def test_navigation_reuses_the_tab_and_follows_history(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "links.html"})
    first = await tabs(mcp)
    mine = [t for t in first["tabs"] if t["owner"] == "you"]
    assert len(mine) == 1 and mine[0]["id"] == first["current"]
    r = await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    assert text(r).startswith("Loaded tab")
    s = await snap(mcp)
    r = await ok(mcp, "browser_click", {"ref": ref(s, "link", "Page two")})
    assert f"The page navigated to {site}page2.html" in text(r) and "take a new snapshot" in text(r)
    r = await ok(mcp, "browser_back")
    assert f"{site}form.html" in text(r)
    r = await ok(mcp, "browser_forward")
    assert f"{site}page2.html" in text(r)
    await ok(mcp, "browser_reload")
    r = await mcp.call("browser_forward")
    assert r.is_error and "no later page" in text(r)
    after = await tabs(mcp)
    assert len(after["tabs"]) == len(first["tabs"])  # four pages, one tab
    assert next(t for t in after["tabs"] if t["owner"] == "you")["id"] == first["current"]
    # A link that opens a new tab: it joins the session's tabs (and group), not the user's.
    await ok(mcp, "browser_navigate", {"url": site + "links.html"})
    s = await snap(mcp)
    r = await ok(mcp, "browser_click", {"ref": ref(s, "link", "Page two in a new tab")})
    with anyio.fail_after(10):
        while len([t for t in (await tabs(mcp))["tabs"] if t["owner"] == "you"]) < 2:
            await anyio.sleep(0.1)
    assert (await tabs(mcp))["current"] == first["current"]


async def test_page_text_is_the_main_content_in_pages(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "long.html"})
    one = text(await ok(mcp, "browser_page_text", {"max_chars": 20000}))
    head = one.split("\n", 1)[0]
    assert re.match(r'Text of "A long article" .*: page 1 of [34] \(characters 0-\d+ of \d+\)\. '
                    r"Next: browser_page_text with page=2\.$", head), head
    assert "Section 1\n" in one and "Paragraph 1:" in one
    assert "Footer text" not in one  # the page's <main>, not its chrome
    pages = int(re.search(r"page 1 of (\d+)", head).group(1))
    last = text(await ok(mcp, "browser_page_text", {"max_chars": 20000, "page": pages}))
    assert "The end of the article." in last and "Next:" not in last.split("\n", 1)[0]
    r = await mcp.call("browser_page_text", {"page": 99})
    assert r.is_error and "there is no page 99" in text(r)


async def test_large_page_snapshot_is_small_and_parts_can_be_reached(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "large.html"})
    page = await page_at(browser, site + "large.html")
    html = await page.evaluate("document.documentElement.outerHTML.length")
    assert await page.evaluate("document.getElementsByTagName('*').length") > 20000
    s = await snap(mcp)
    assert len(s) < 0.05 * html, (len(s), html)
    assert re.search(r"… page 1 of \d+ \(up to 12000 characters each\): browser_snapshot with page=2", s)
    grid = ref(s, "region", "Products")
    assert f"ref={grid}, the region it goes on in" in s
    # The next page goes on where the first stopped.
    last = max(int(n) for n in re.findall(r'link "Product (\d+)"', s))
    two = await snap(mcp, page=2)
    assert f'link "Product {last + 1}"' in two and f'link "Product {last}"' not in two
    # Zoom into the product grid, with room for all of it, and act far down the page.
    part = await snap(mcp, ref=grid, max_chars=200000)
    assert part.count('- button "Add to cart"') == 2000
    lines = part.splitlines()
    i = next(k for k, line in enumerate(lines) if '- link "Product 1500"' in line)
    button = LINE.search(lines[i + 1])
    assert button and button.group(2) == "Add to cart"
    await ok(mcp, "browser_click", {"ref": button.group(3)})
    assert await page.evaluate("window.cart") == [1500]
    # Refs are stable: the same element keeps its ref in a later snapshot.
    assert ref(await snap(mcp), "region", "Products") == grid
    shallow = await snap(mcp, depth=1)
    assert "(+" in shallow and "inside)" in shallow


async def test_screenshots_viewport_element_and_full_page_over_1_mib(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "long.html"})
    r = await ok(mcp, "browser_screenshot", {"full_page": True, "format": "png"})
    image = next(c for c in r.content if isinstance(c, types.ImageContent))
    assert image.mime_type == "image/png"
    png = base64.b64decode(image.data)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert len(png) > 1024 * 1024, len(png)  # crossed native messaging in pieces
    assert width <= 1280 and height > 3000
    assert f"{width}x{height} px PNG" in text(r)

    r = await ok(mcp, "browser_screenshot")
    jpeg = base64.b64decode(next(c for c in r.content if isinstance(c, types.ImageContent)).data)
    assert jpeg[:3] == b"\xff\xd8\xff" and len(jpeg) < len(png)
    s = await snap(mcp)
    r = await ok(mcp, "browser_screenshot", {"ref": ref(s, "link", "Links"), "max_width": 200})
    assert "Screenshot of e" in text(r) and 'link "Links"' in text(r)
    r = await mcp.call("browser_screenshot", {"format": "gif"})
    assert r.is_error and "Invalid arguments" in text(r)


# --- sessions -------------------------------------------------------------------------------


async def test_two_sessions_work_in_parallel_each_in_its_own_group(browser, sidecar_env, site):
    async with McpSession(sidecar_env, name="Alpha") as a, McpSession(sidecar_env, name="Beta") as b:
        await ready(a)
        await ready(b)

        async def fill(mcp: McpSession, who: str) -> None:
            await ok(mcp, "browser_navigate", {"url": site + f"form.html?{who}"})
            s = await snap(mcp)
            for _ in range(3):
                await ok(mcp, "browser_type", {"ref": ref(s, "textbox", "Name"), "text": who})
                await ok(mcp, "browser_click", {"ref": ref(s, "button", "Create account")})

        async with anyio.create_task_group() as tg:
            tg.start_soon(fill, a, "alpha")
            tg.start_soon(fill, b, "beta")
        for who in ("alpha", "beta"):
            page = await page_at(browser, site + f"form.html?{who}")
            assert await page.evaluate("window.submits.map(s => s.name)") == [who] * 3

        groups = await worker_eval(browser, """async () => {
            const out = {};
            for (const g of await chrome.tabGroups.query({})) {
                out[g.title] = (await chrome.tabs.query({groupId: g.id})).map(t => t.url);
            }
            return out;
        }""")
        assert groups == {"Alpha": [site + "form.html?alpha"], "Beta": [site + "form.html?beta"]}

        ta, tb = await tabs(a), await tabs(b)
        assert ta["session"] == "Alpha" and tb["session"] == "Beta"
        owners = {t["id"]: t["owner"] for t in ta["tabs"]}
        assert owners[ta["current"]] == "you" and owners[tb["current"]] == "Beta"
        # Never on another session's tab unless asked.
        r = await a.call("browser_tab_select", {"tab_id": tb["current"]})
        assert r.is_error and 'belongs to another MCP session ("Beta")' in text(r) and "take_over" in text(r)
        r = await a.call("browser_tab_close", {"tab_id": tb["current"]})
        assert r.is_error and 'belongs to the MCP session "Beta"' in text(r)
        assert (await tabs(b))["current"] == tb["current"]
        r = await ok(a, "browser_tab_select", {"tab_id": tb["current"], "take_over": True})
        assert (await tabs(a))["current"] == tb["current"]
        # Beta lost its only tab: its page tools go, and its next call says what happened.
        await b.wait_tools(lambda n: "browser_snapshot" not in n)

        state = await worker_eval(browser, "globalThis.sidecar.browserTools.sessionsState()")
        assert isinstance(state, dict)
        by_title = {s["title"]: s for s in state["sessions"]}
        assert len(by_title["Alpha"]["tabs"]) == 2 and by_title["Beta"]["tabs"] == []
        assert by_title["Alpha"]["lastTool"] == "tabs" and by_title["Alpha"]["lastActivity"] > 0


async def test_a_restarted_client_carries_on_in_its_group(browser, sidecar_env, site):
    async with McpSession(sidecar_env, name="Claude") as first:
        await ready(first)
        await ok(first, "browser_navigate", {"url": site + "page2.html"})
        tab = (await tabs(first))["current"]
    async with McpSession(sidecar_env, name="Claude") as again:
        # The group the last session left is taken over: page tools at once, no new tab.
        await again.wait_tools(lambda n: "browser_snapshot" in n)
        t = await tabs(again)
        assert t["current"] == tab and [x["owner"] for x in t["tabs"] if x["id"] == tab] == ["you"]
        assert "You reached page two." in text(await ok(again, "browser_page_text"))


# --- bad input: a clear error, nothing lost ---------------------------------------------------


async def test_stale_refs_are_refused_with_what_to_do(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    page = await page_at(browser, site + "form.html")
    s = await snap(mcp)
    rerender = ref(s, "button", "Re-render me")
    await ok(mcp, "browser_click", {"ref": rerender})
    r = await mcp.call("browser_click", {"ref": rerender})
    assert r.is_error
    assert f'Ref {rerender} (button "Re-render me") is stale' in text(r)
    assert "Take a new snapshot (browser_snapshot)" in text(r)
    assert await page.evaluate("document.getElementById('rerender2') !== null")
    r = await mcp.call("browser_click", {"ref": "e99999"})
    assert r.is_error and "was not given for this page" in text(r)
    r = await mcp.call("browser_click", {"ref": "button"})
    assert r.is_error and "Invalid arguments" in text(r)
    # After a navigation, refs of the old page are stale, even once the new page has its own.
    name = ref(s, "textbox", "Name")
    await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    r = await mcp.call("browser_type", {"ref": name, "text": "x"})
    assert r.is_error and "stale" in text(r) and "navigated" in text(r)
    await snap(mcp)
    r = await mcp.call("browser_type", {"ref": name, "text": "x"})
    assert r.is_error and "earlier page" in text(r)
    # Wrong kinds of element say which tool fits.
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    s = await snap(mcp)
    r = await mcp.call("browser_type", {"ref": ref(s, "combobox", "Plan"), "text": "Pro"})
    assert r.is_error and "use browser_select_option" in text(r)
    r = await mcp.call("browser_select_option", {"ref": ref(s, "combobox", "Plan"), "values": ["Gold"]})
    assert r.is_error and 'has no option "Gold". Its options: Free, Pro, Team.' in text(r)
    r = await mcp.call("browser_click", {"ref": ref(s, "textbox", "Disabled")})
    assert r.is_error and "is disabled" in text(r)
    missing = {"ref": ref(s, "fileinput", "Avatar"), "paths": ["/no/such/file.png"]}
    r = await mcp.call("browser_upload_file", missing)
    assert r.is_error and "Uploads are off" in text(r)  # no folder allowed (tools/uploads.py)
    # Something over the element: the click would land elsewhere, so it is refused.
    await ok(mcp, "browser_click", {"ref": ref(s, "button", "Show overlay")})
    r = await mcp.call("browser_click", {"ref": ref(s, "button", "Create account")})
    assert r.is_error and "is covered by another element (<div#cover>" in text(r)
    assert await page.evaluate("window.submits.length") == 0


async def test_a_tab_closed_by_the_user_is_reported_and_can_be_reopened(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    page = await page_at(browser, site + "page2.html")
    await page.close()  # the user closes it mid-task
    await mcp.wait_tools(lambda n: "browser_snapshot" not in n)
    r = await mcp.call("browser_snapshot")
    assert r.is_error
    msg = text(r)
    assert '("Page two") was closed' in msg and f'browser_navigate (url: "{site}page2.html")' in msg
    assert all(t["owner"] != "you" for t in (await tabs(mcp))["tabs"])
    r = await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    assert "Opened a new tab in your tab group" in text(r)
    assert "You reached page two." in text(await ok(mcp, "browser_page_text"))
    r = await mcp.call("browser_tab_select", {"tab_id": 123456789})
    assert r.is_error and "There is no tab 123456789" in text(r)


async def test_browser_pages_cannot_be_driven_and_say_so(browser, mcp, site):
    await ready(mcp)
    r = await mcp.call("browser_navigate", {"url": "chrome://settings"})
    assert r.is_error and "chrome:// pages are the browser's own" in text(r)
    r = await mcp.call("browser_navigate", {"url": "http://127.0.0.1:9/"})  # nothing listens there
    assert r.is_error and "did not load" in text(r), text(r)
    user = await browser.ctx.new_page()
    await user.goto("chrome://version")
    listed = await tabs(mcp)
    tab = next(t for t in listed["tabs"] if t["url"].startswith("chrome://version"))
    assert tab["owner"] is None  # the user's
    await ok(mcp, "browser_tab_select", {"tab_id": tab["id"]})
    for tool, args in [("browser_snapshot", {}), ("browser_click", {"ref": "e1"}),
                       ("browser_screenshot", {}), ("browser_page_text", {})]:
        r = await mcp.call(tool, args)
        assert r.is_error, tool
        assert "chrome:// page" in text(r) and "no extension may read or control" in text(r), text(r)
    # The session carries on elsewhere.
    await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    assert "You reached page two." in text(await ok(mcp, "browser_page_text"))


# --- the worker side: idle debugger, the side panel's session ---------------------------------


async def test_the_debugger_lets_go_when_idle(browser, mcp, site):
    await ready(mcp)
    await worker_eval(browser, "globalThis.sidecar.browserTools.debuggers.idleMs = 300")
    await ok(mcp, "browser_navigate", {"url": site + "form.html"})
    s = await snap(mcp)
    attached = "globalThis.sidecar.browserTools.debuggers.attachedTabs()"
    assert await worker_eval(browser, attached) == []  # reading needs no debugger
    await ok(mcp, "browser_click", {"ref": ref(s, "button", "Load more")})
    assert await worker_eval(browser, attached) == [(await tabs(mcp))["current"]]
    with anyio.fail_after(5):
        while await worker_eval(browser, attached) != []:
            await anyio.sleep(0.1)
    # And comes back on the next action.
    await ok(mcp, "browser_hover", {"ref": ref(s, "button", "Hover me")})
    page = await page_at(browser, site + "form.html")
    assert await page.is_visible("#tip")


async def test_an_entry_cannot_borrow_the_side_panel_session(browser, site, sidecar_env):
    # Session `panel` (the tab in view, any tab id) is the host's own agent's, through
    # Host.request (test_sidepanel.py drives it); from an entry the host refuses it.
    page = await browser.open(site + "form.html")
    await page.bring_to_front()
    raw = await RawEntry.connect()
    try:
        conn = raw.welcome["conn"]
        if not raw.welcome.get("extension_connected"):
            while not (await raw.recv("status", timeout=20))["extension_connected"]:
                pass
        raw.send({"type": "browser_call", "id": f"{conn}.1", "session": "panel", "tool": "type",
                  "args": {"ref": "e1", "text": "from an entry"}})
        res = await raw.recv("result")
        assert not res["ok"] and res["error"]["code"] == "bad_request", res
        # Named otherwise, the call runs in the entry's own session, which has no tab yet.
        raw.send({"type": "browser_call", "id": f"{conn}.2", "session": "c999", "tool": "snapshot",
                  "tab_id": (await tabs_of(browser))[0]})
        res = await raw.recv("result")
        assert not res["ok"] and res["error"]["code"] == "no_tab", res
        assert await page.input_value("#name") == ""
    finally:
        raw.close()


async def tabs_of(browser: Browser) -> list[int]:
    return await worker_eval(browser, "chrome.tabs.query({}).then(ts => ts.map(t => t.id))")


@pytest.mark.fresh_browser  # counts every session the worker has known
async def test_the_side_panel_can_list_sessions_focus_and_close_their_tabs(browser, mcp, site):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": site + "page2.html"})
    current = (await tabs(mcp))["current"]
    ext = await browser.ctx.new_page()  # an extension page, as the side panel is
    await ext.goto(f"chrome-extension://{EXTENSION_ID}/manifest.json")
    state = await ext.evaluate("chrome.runtime.sendMessage({type: 'sessions'})")
    assert isinstance(state, dict)
    (s,) = state["sessions"]
    assert s["client"] == "tests" and s["current"] == current and s["lastTool"] == "tabs"
    assert s["tabs"] == [{"id": current, "title": "Page two", "url": site + "page2.html",
                          "active": False, "windowId": s["tabs"][0]["windowId"]}]
    ask = "msg => chrome.runtime.sendMessage(msg)"
    assert (await ext.evaluate(ask, {"type": "session_focus", "tabId": current}))["ok"]
    r = await ext.evaluate(ask, {"type": "session_close_tabs", "session": s["id"]})
    assert r == {"ok": True, "closed": 1}
    await mcp.wait_tools(lambda n: "browser_snapshot" not in n)
    assert all(t["id"] != current for t in (await tabs(mcp))["tabs"])

