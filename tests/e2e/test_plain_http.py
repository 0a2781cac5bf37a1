"""Plain-http pages end to end: a page served over http from a name that is not loopback (an
intranet app) is not a secure context, and WebMCP is `[SecureContext]`: Chromium with the
WebMCP feature offers no `document.modelContext` there. The extension must do the same in both
modes (no API, nothing half-installed, nothing thrown into the page), while skills and browser
tools, which do not need the page's API, work there as anywhere, and the side panel sees the tab.

Chromium's `--host-resolver-rules` maps `intranet.test` to the loopback test server, so the
same pages are served on a non-secure origin (`http://intranet.test:PORT`) and on a secure one
(`http://127.0.0.1:PORT`, where both modes do have the API: the control).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import ConsoleMessage, Page, WebError, expect

from tests.e2e.test_browser_tools import page_at
from tests.support.browser import Browser, launch
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]  # its own browser (host rules)

HOST = "intranet.test"


@pytest.fixture
async def browser(tmp_path: Path, sidecar_env: dict[str, str], mode: str) -> AsyncIterator[Browser]:
    rules = f"--host-resolver-rules=MAP {HOST} 127.0.0.1"
    async with launch(tmp_path, sidecar_env, mode, extra_args=(rules,)) as b:
        yield b


@pytest.fixture
def intranet_url(site_url: str) -> str:
    """The test site on a non-loopback name: not a secure context."""
    return site_url.replace("127.0.0.1", HOST)


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


NOTES_SKILL = {
    "name": "intranet-notes",
    "version": "1.0.0",
    "description": "Adds a note on the plain-http test page and reads the list back.",
    "match": [f"http://{HOST}/plain-http.html*"],
    "tools": [{
        "name": "add_note_by_skill",
        "description": "Adds a note; returns every note on the page.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "steps": [
            {"action": "fill", "selector": "#note input[name=text]", "value": "{{text}}"},
            {"action": "click", "selector": "#note button"},
            {"action": "wait_for", "selector": "#notes li"},
            {"action": "extract", "as": "notes", "selector": "#notes li", "all": True},
        ],
    }],
}


def add_skill(env: dict[str, str], tmp_path: Path) -> None:
    f = tmp_path / "notes.skill.json"
    f.write_text(json.dumps(NOTES_SKILL))
    subprocess.run([sys.executable, "-m", "webmcp_sidecar", "skills", "add", str(f)],
                   env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60)


def page_errors(browser: Browser) -> list[str]:
    """Every uncaught error and console error of every page and frame, from now on."""
    out: list[str] = []

    def uncaught(e: WebError) -> None:
        out.append(f"uncaught: {e.error}")

    def console(m: ConsoleMessage) -> None:
        if m.type in ("error", "assert"):
            out.append(f"console.{m.type}: {m.text} ({m.location.get('url')})")

    browser.ctx.on("weberror", uncaught)
    browser.ctx.on("console", console)
    return out


async def seen(page: Page) -> list[dict]:
    """What the page and its frame saw of WebMCP and of us, at load and now (plain-http.js)."""
    out = []
    # The iframe is in the page's HTML, but Playwright may hear of its frame after the page's load.
    await page.wait_for_function("document.querySelector('iframe')?.contentWindow?.seenAtLoad !== undefined")
    for _ in range(200):
        if len(page.frames) == 2:
            break
        await asyncio.sleep(0.05)
    for frame in page.frames:
        await frame.wait_for_function("window.seenAtLoad !== undefined")
        out += await frame.evaluate("[window.seenAtLoad, window.seenHere()]")
    assert len(out) == 4  # the page and its iframe
    return out


NOTHING = {"secure": False, "documentModelContext": False, "navigatorModelContext": False,
           "interfaces": [], "symbols": []}


async def ok(mcp: McpSession, tool: str, args: dict | None = None) -> str:
    r = await mcp.call(tool, args or {})
    assert not r.is_error, f"{tool} {args}: {text(r)}"
    return text(r)


async def test_a_plain_http_page_gets_no_webmcp_and_no_errors_and_skills_and_browser_tools_work(
    browser, mcp, sidecar_env, tmp_path, site_url, intranet_url, mode,
):
    errors = page_errors(browser)
    add_skill(sidecar_env, tmp_path)
    await mcp.wait_tools(lambda n: "browser_navigate" in n)
    url = intranet_url + "plain-http.html"
    await ok(mcp, "browser_navigate", {"url": url})
    page = await page_at(browser, url)

    # Exactly what Chromium gives such a page: no WebMCP at all, in the page and its frame.
    assert await seen(page) == [NOTHING] * 4

    # A skill works there.
    s = slug(intranet_url)
    await mcp.wait_tools(lambda n: f"{s}__add_note_by_skill" in n)
    out = json.loads(await ok(mcp, f"{s}__add_note_by_skill", {"text": "buy milk"}))
    assert out == {"notes": ["buy milk"]}

    # Browser tools work there.
    snap = await ok(mcp, "browser_snapshot")
    assert snap.startswith(f'Page: "Intranet notes" {url}'), snap
    assert '- heading "Intranet notes"' in snap and "buy milk" in snap
    assert "buy milk" in await ok(mcp, "browser_page_text")

    # The side panel sees the tab and the skill that matches it.
    panel = await browser.ctx.new_page()
    await panel.goto(f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html?view=skills")
    site = intranet_url.split("/")[2]
    here = panel.locator(".skills-here")
    await expect(here).to_contain_text(f"On {site}: intranet-notes (healthy)", timeout=20_000)
    await panel.close()

    # The control: the same page on a secure origin has the API in this mode (Chromium's or
    # ours), and its tools reach the client; the plain-http one's never did.
    loop = site_url + "plain-http.html"
    control = await browser.open(loop)
    here = await control.evaluate("window.seenHere()")
    assert here["secure"] and here["documentModelContext"], here
    ls = slug(site_url)
    names = await mcp.wait_tools(lambda n: {f"{ls}__page_echo", f"{ls}__add_note"} <= n)
    assert not {n for n in names if n.startswith(f"{s}__")} - {f"{s}__add_note_by_skill"}, names

    assert await seen(page) == [NOTHING] * 4  # and still nothing, after all that
    assert errors == [], errors
