"""Save as skill end to end (docs/SKILLS.md, "Save as skill"): an MCP client drives the tea shop
(no WebMCP, strict CSP) with browser tools through the real host and `webmcp-sidecar mcp`,
drafts a skill from that run with `browser_skill_draft`, installs it with the CLI, reloads the
page and calls the new skill tool with another quantity: the page's cart changes as the manual
run changed it. Skills do not go through the page's modelContext: one WebMCP mode (the polyfill)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.e2e.test_browser_tools import ok, page_at, ready, ref, snap
from tests.e2e.test_skills import CSP, SITE, cli, slug
from tests.support.mcp_session import text
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.demo.run import serve_site

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def mode() -> str:
    """Browser tools and skills do not depend on the page's WebMCP flavour."""
    return "polyfill"


@pytest.fixture(scope="module")
def shop_url() -> Iterator[str]:
    with serve_site(SITE, headers={"Content-Security-Policy": CSP}) as url:
        yield url + "skills/shop.html"


def find_ref(outline: str, line_has: str) -> str:
    """The ref on the first outline line that contains `line_has`."""
    for line in outline.splitlines():
        if line_has in line and "[e" in line:
            return line.rsplit("[", 1)[1].split("]", 1)[0]
    raise AssertionError(f"no line with {line_has!r} in:\n{outline}")


async def test_a_run_saved_as_a_skill_repeats_it_with_a_new_quantity(
    browser, mcp, sidecar_env, shop_url, tmp_path: Path
):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": shop_url})
    page = await page_at(browser, shop_url)

    # The manual run: 2 green teas into the cart, then read the cart.
    outline = await snap(mcp)
    await ok(mcp, "browser_type", {"ref": ref(outline, "spinbutton", "Quantity"), "text": "2"})
    await ok(mcp, "browser_click", {"ref": ref(outline, "button", "Add to cart")})
    assert await page.text_content("#cart-count") == "2"
    cart_ref = find_ref(await snap(mcp, interactive=False), "- list")
    cart = text(await ok(mcp, "browser_page_text", {"ref": cart_ref}))
    assert cart.endswith("2 × Green tea"), cart

    r = await ok(
        mcp,
        "browser_skill_draft",
        {
            "name": "tea-shop-recorded",
            "tool_name": "add_green",
            "params": {"2": "quantity"},
            "description": "Adds green tea to the cart; returns the cart's lines",
        },
    )
    draft = json.loads(text(r))
    skill = draft["skill"]
    assert draft["parameters"] == [{"name": "quantity", "field": 'spinbutton "Quantity"'}]
    tool = skill["tools"][0]
    # Each ref became a selector made when the call ran; the typed text, the parameter.
    assert tool["steps"] == [
        {"action": "fill", "selector": 'input[name="qty-green"]', "value": "{{quantity}}"},
        {"action": "click", "selector": '[data-testid="add-green"]'},
        {"action": "extract", "as": "result", "selector": "#cart-items"},
        {"action": "return", "value": "{{result}}"},
    ]
    assert tool["inputSchema"]["required"] == ["quantity"]
    assert skill["match"] == ["http://127.0.0.1/skills/*"]
    assert skill["health"] == {"selectors": ['input[name="qty-green"]', '[data-testid="add-green"]']}

    # What recording cost: one selector_for executeScript per ref call, alongside the call's own.
    worker = await browser.worker()
    ms = await worker.evaluate(
        "() => [...globalThis.sidecar.browserTools.recorder.sessions.values()]"
        ".flatMap((s) => s.calls).map((c) => c.selectorMs).filter((x) => x !== undefined)"
    )
    assert len(ms) == 3  # type, click, page_text
    print(f"selector_for per ref call (ms): {ms}")

    path = tmp_path / "tea-shop-recorded.skill.json"
    path.write_text(json.dumps(skill), encoding="utf-8")
    cli(sidecar_env, "add", str(path))

    # A fresh page (the cart starts empty again), then the skill with another quantity.
    await ok(mcp, "browser_navigate", {"url": shop_url})
    page = await page_at(browser, shop_url)
    assert await page.text_content("#cart-count") == "0"
    name = f"{slug(shop_url)}__add_green"
    await mcp.wait_tools(lambda n: name in n)
    out = await mcp.call(name, {"quantity": "3"})
    assert not out.is_error, text(out)
    assert text(out) == "3 × Green tea"
    assert await page.text_content("#cart-count") == "3"
    assert await page.text_content("#cart-total") == "13.50"


async def test_a_draft_needs_a_run_and_says_what_it_left_out(browser, mcp, shop_url):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": shop_url})
    r = await mcp.call("browser_skill_draft", {"name": "nothing", "tool_name": "t"})
    assert r.is_error and "nothing a skill can repeat" in text(r)

    outline = await snap(mcp)
    await ok(mcp, "browser_hover", {"ref": ref(outline, "button", "Add to cart")})
    await ok(mcp, "browser_click", {"ref": ref(outline, "button", "Check out")})
    r = await ok(mcp, "browser_skill_draft", {"name": "checkout", "tool_name": "checkout"})
    draft = json.loads(text(r))
    assert draft["skill"]["tools"][0]["steps"] == [{"action": "click", "selector": "#checkout"}]
    assert any("hover" in n for n in draft["notes"]), draft["notes"]
    assert draft["calls"] == [5]  # navigate 1, draft 2 (refused), snapshot 3, hover 4, click 5
    # The next draft starts after this one (call 6): nothing new was done since.
    r = await mcp.call("browser_skill_draft", {"name": "again", "tool_name": "t"})
    assert r.is_error and "You have made no browser calls on your current tab" in text(r)
    assert "since call 7" in text(r)


@pytest.mark.fresh_browser  # reads the whole operation log
async def test_the_panel_saves_a_sessions_run_and_a_log_range_into_the_skills_editor(browser, mcp, shop_url):
    await ready(mcp)
    await ok(mcp, "browser_navigate", {"url": shop_url})
    outline = await snap(mcp)
    await ok(mcp, "browser_type", {"ref": ref(outline, "spinbutton", "Quantity"), "text": "2"})
    await ok(mcp, "browser_click", {"ref": ref(outline, "button", "Add to cart")})

    panel = await browser.ctx.new_page()
    await panel.goto(f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html?view=sessions")
    await panel.locator(".session button.save-skill").click()
    editor = panel.locator("#skill-text")
    await expect(editor).to_be_visible()
    draft = json.loads(await editor.input_value())
    assert [s["action"] for s in draft["tools"][0]["steps"]] == ["fill", "click"]
    assert draft["tools"][0]["steps"][0]["value"] == "{{quantity}}"  # typed text is never shown to the panel
    assert await panel.locator("#sessions-msg").text_content() == (
        "Draft of 2 steps opened. Parameters: quantity (rename them in the editor)."
    )

    # The log: a range from the type call to the newest.
    await panel.locator("#tab-log").click()
    row = panel.locator('.log-row[data-tool="type"]')
    await row.locator("summary").click()
    await row.get_by_role("button", name="Start skill here").click()
    await editor.evaluate("(el) => { el.value = ''; }")  # so what follows is the log's draft
    await panel.locator(".skill-range").get_by_role("button", name="Save as skill").click()
    await expect(panel.locator("#tab-skills")).to_have_attribute("aria-selected", "true")
    draft = json.loads(await editor.input_value())
    assert draft["match"] == ["http://127.0.0.1/skills/*"]
    assert draft["tools"][0]["steps"][1] == {"action": "click", "selector": '[data-testid="add-green"]'}


RESET_KEY = "Zx81kPq9LmT2vR7sW4yB3nC6"
API_KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c"


async def test_a_draft_carries_no_secret_the_run_saw_and_says_what_it_took_out(
    browser, mcp, sidecar_env, shop_url, tmp_path: Path
):
    """Issue 26 item 9: a link with a one-time key, then a page that shows an API key, waited
    for: the draft keeps neither, says so, and still installs and runs."""
    await ready(mcp)
    account = shop_url.replace("shop.html", "account.html")
    await ok(mcp, "browser_navigate", {"url": account})
    await ok(mcp, "browser_click", {"ref": ref(await snap(mcp), "link", "Reset your API key")})
    await ok(mcp, "browser_wait_for", {"text": f"Your new API key: {API_KEY}"})
    await ok(mcp, "browser_click", {"ref": ref(await snap(mcp), "button", "Done")})
    r = await ok(mcp, "browser_skill_draft", {"name": "key-reset", "tool_name": "reset_key"})
    said = text(r)
    assert RESET_KEY not in said and API_KEY not in said
    draft = json.loads(said)
    assert draft["skill"]["tools"][0]["steps"] == [
        {"action": "click", "selector": 'a[href^="reset.html?"]'},
        {"action": "wait_for", "text": "Your new API key:"},
        {"action": "click", "selector": "#done"},
    ]
    assert draft["removed"] == [
        'the href of the element browser_click acted on (href="reset.html?key=…&lang=en"): the selector '
        "matches its clear start now",
        'the text "Your new API key: sk-…" browser_wait_for waited for: the step waits for '
        '"Your new API key:" now',
    ]
    assert [n for n in draft["notes"] if n.startswith("Taken out as a secret: ")] == [
        f"Taken out as a secret: {x}." for x in draft["removed"]
    ]
    # It still does what the run did: installed, it follows the link and finds the new key.
    path = tmp_path / "key-reset.skill.json"
    path.write_text(json.dumps(draft["skill"]), encoding="utf-8")
    cli(sidecar_env, "add", str(path))
    await ok(mcp, "browser_navigate", {"url": account})
    name = f"{slug(account)}__reset_key"
    await mcp.wait_tools(lambda n: name in n)
    out = await mcp.call(name, {})
    assert not out.is_error, text(out)
    page = await page_at(browser, account.replace("account.html", f"reset.html?key={RESET_KEY}&lang=en"))
    assert await page.text_content("#msg") == f"Your new API key: {API_KEY}"
