"""Trusted input lands on the element it was aimed at, or is refused (docs/BROWSER_TOOLS.md,
"Trusted input"). tests/e2e/site/steer/top.html is hostile: when real input is aimed at its own
button or field it slides another origin's frame (tests/e2e/site/steer/confirm.html, where the
user would be signed in) under the pointer on mousemove, or focuses that frame just after its
field takes the focus. Neither `browser_click` / `browser_type` nor a skill's `trusted` steps may
then deliver the click or the text to the other site; each says it sent nothing.

The other site is tried both as another origin of the same site (another port: the frame shares
the page's process) and as another site (localhost: an out-of-process frame).
"""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Frame, Page

from tests.e2e.test_browser_tools import page_at, ready, ref, snap
from tests.e2e.test_skills import cli, slug
from tests.support.mcp_session import text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def mode() -> str:
    return "native"  # input does not depend on the WebMCP flavour


@pytest.fixture(params=["other-origin", "other-site"])
def other(request: pytest.FixtureRequest, other_site_url: str) -> str:
    if request.param == "other-origin":
        return other_site_url
    return other_site_url.replace("127.0.0.1", "localhost")


async def hostile_page(page: Page) -> Frame:
    """The steering page, its other-site frame loaded; that frame."""
    await page.evaluate("window.frameReady")
    frame = next(f for f in page.frames if f.url.endswith("/steer/confirm.html"))
    assert await frame.evaluate("window.confirmed") == 0
    return frame


async def test_browser_click_and_type_are_not_steered_into_another_sites_frame(browser, mcp, site_url, other):
    await ready(mcp)
    url = site_url + f"steer/top.html?other={other}"
    r = await mcp.call("browser_navigate", {"url": url})
    assert not r.is_error, text(r)
    page = await page_at(browser, url)
    frame = await hostile_page(page)
    s = await snap(mcp)

    click = await mcp.call("browser_click", {"ref": ref(s, "button", "Pay")})
    typed = await mcp.call("browser_type", {"ref": ref(s, "textbox", "Note"), "text": "my secret"})
    # The other site got no click and no text (both did, before the check)...
    assert await frame.evaluate("window.confirmed") == 0
    assert await frame.evaluate("document.getElementById('secret').value") == ""
    # ... and the tools say so, rather than report success on the element they named.
    assert click.is_error and "Nothing was sent to e" in text(click) and "a frame" in text(click)
    assert "/steer/confirm.html is at that point" in text(click), text(click)
    assert await page.evaluate("window.payClicks") == 0
    assert typed.is_error and "keyboard focus is on a frame <iframe#decoy>" in text(typed), text(typed)


STEER_SKILL = {
    "name": "steer-test",
    "version": "1.0.0",
    "description": "Real input on the steering test page.",
    "match": ["http://127.0.0.1/steer/top.html*"],
    "tools": [
        {
            "name": "pay",
            "description": "Presses Pay.",
            "inputSchema": {"type": "object", "properties": {}},
            "steps": [
                {"action": "click", "selector": "#pay", "trusted": True},
                {"action": "return", "value": "paid"},
            ],
        },
        {
            "name": "note",
            "description": "Types a note.",
            "inputSchema": {"type": "object", "properties": {}},
            "steps": [
                {"action": "type", "selector": "#note", "text": "my secret", "trusted": True},
                {"action": "return", "value": "noted"},
            ],
        },
    ],
}


@pytest.mark.fresh_browser  # installs a skill
async def test_trusted_skill_steps_are_not_steered_into_another_sites_frame(
    browser,
    mcp,
    sidecar_env,
    site_url,
    other,
    tmp_path,
):
    path = tmp_path / "steer-test.skill.json"
    path.write_text(json.dumps(STEER_SKILL))
    cli(sidecar_env, "add", str(path))
    page = await browser.open(site_url + f"steer/top.html?other={other}")
    frame = await hostile_page(page)
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__pay" in n)

    pay = await mcp.call(f"{s}__pay")
    note = await mcp.call(f"{s}__note")
    assert await frame.evaluate("window.confirmed") == 0
    assert await frame.evaluate("document.getElementById('secret').value") == ""
    assert pay.is_error and "no input was sent" in text(pay), text(pay)
    assert "/steer/confirm.html is at that point" in text(pay)
    assert note.is_error and "keyboard focus is on a frame <iframe#decoy>" in text(note), text(note)
