"""The side panel's Skills view end to end: headless Chromium with our extension and the real
host, a skill installed with the CLI, the test shop (no WebMCP, a strict CSP) in one tab and the
panel page in another. The view lists the skill, says it matches and is healthy on the shop's
tab, switches a tool off (the worker's registry drops it), imports and exports files, shows the
host's line-and-field problems as the text is edited, and tries a tool on the tab with the
Inspector's form.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Browser
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.demo.run import serve_site

# Fresh: each test edits the skills store and switches tools off, which a shared host would keep.
pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]

PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html?view=skills"
SITE = Path(__file__).parent / "site"
EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"
SLOW = 20_000  # ms: the host starts, the skills arrive, the tab is matched and checked


@pytest.fixture
def mode() -> str:
    """The view does not depend on the page's WebMCP flavour: one browser mode is enough."""
    return "native"


@pytest.fixture(scope="module")
def skills_url() -> Iterator[str]:
    with serve_site(SITE, headers={"Content-Security-Policy": CSP}) as url:
        yield url + "skills/"


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "skills", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )


async def open_panel(browser: Browser) -> Page:
    panel = await browser.ctx.new_page()
    await panel.set_viewport_size({"width": 400, "height": 900})
    await panel.goto(PANEL_URL)
    await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
    return panel


async def registry_names(browser: Browser, site: str) -> list[str]:
    worker = await browser.worker()
    return await worker.evaluate(
        "(site) => globalThis.sidecar.registry.siteTools(site).map((t) => t.name)", site
    )


async def wait_registry(browser: Browser, site: str, test) -> list[str]:
    """The worker's tools for the site once `test` holds (it changes as the host's list arrives)."""
    names: list[str] = []
    for _ in range(200):
        names = await registry_names(browser, site)
        if test(names):
            return names
        await asyncio.sleep(0.1)
    raise AssertionError(f"the registry never got there: {names}")


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        await page.emulate_media(color_scheme=scheme)
        await page.screenshot(path=str(ARTIFACTS / f"sidepanel-skills-{name}-{scheme}.png"), full_page=True)
    await page.emulate_media(color_scheme="light")


async def test_lists_the_skill_matching_and_healthy_switches_a_tool_off_imports_and_exports(
    browser, sidecar_env, skills_url, tmp_path
):
    cli(sidecar_env, "add", str(EXAMPLES / "demo-shop.skill.json"))
    await browser.open(skills_url + "shop.html")
    site = skills_url.split("/")[2]
    panel = await open_panel(browser)

    skill = panel.locator("article.skill[data-skill=demo-shop]")
    await expect(skill.locator(".skill-head")).to_contain_text("1.0.0", timeout=SLOW)
    await expect(skill.locator(".skill-match code").first).to_have_text("http://127.0.0.1/skills/shop.html*")
    await expect(skill.locator(".pill.done")).to_have_text("healthy on this tab", timeout=SLOW)
    await expect(panel.locator(".skills-here")).to_contain_text(f"On {site}: demo-shop (healthy)")
    for tool in ("list_products", "add_to_cart", "checkout"):
        await expect(skill.locator(f"li[data-tool={tool}]")).to_have_attribute("data-state", "live")
    assert "checkout" in await wait_registry(browser, site, lambda n: "checkout" in n)
    await shot(panel, "list")

    # One tool off, from the view: the host keeps it off, the worker's registry drops it.
    await skill.get_by_label("Enable tool checkout").click()
    await expect(skill.locator("li[data-tool=checkout]")).to_have_attribute("data-state", "off")
    await expect(skill.get_by_label("Enable tool checkout")).not_to_be_checked()
    names = await wait_registry(browser, site, lambda n: "checkout" not in n)
    assert {"list_products", "add_to_cart"} <= set(names)
    listed = json.loads(cli(sidecar_env, "list", "--json").stdout)
    assert listed[0]["disabled_tools"] == ["checkout"]
    # And the whole skill off: nothing of it on the tab any more.
    await skill.get_by_label("Enable demo-shop").click()
    await expect(skill).to_have_attribute("data-enabled", "false")
    await wait_registry(browser, site, lambda n: not n)
    await expect(panel.locator(".skills-here")).to_contain_text(f"No enabled skill matches {site}.")

    # Import a file: it is installed and listed.
    await panel.set_input_files("#view-skills input[type=file]", str(EXAMPLES / "demo-search.skill.json"))
    await expect(panel.locator("#skills-msg")).to_have_text("Imported demo-search.skill.json.")
    await expect(panel.locator("article.skill[data-skill=demo-search]")).to_be_visible()
    assert {i["name"] for i in json.loads(cli(sidecar_env, "list", "--json").stdout)} == {
        "demo-shop",
        "demo-search",
    }

    # Export: the file's text as the host keeps it.
    async with panel.expect_download() as dl:
        await panel.locator("article.skill[data-skill=demo-search] button", has_text="Export").click()
    download = await dl.value
    assert download.suggested_filename == "demo-search.skill.json"
    assert Path(await download.path()).read_text() == (EXAMPLES / "demo-search.skill.json").read_text()

    # A file with problems is not imported; it opens in the editor with them.
    bad = tmp_path / "bad.skill.json"
    bad.write_text((EXAMPLES / "demo-shop.skill.json").read_text().replace('"1.0.0"', "1"))
    await panel.set_input_files("#view-skills input[type=file]", str(bad))
    await expect(panel.locator("#skills-msg")).to_contain_text("bad.skill.json was not imported")
    await expect(panel.locator(".skill-problems li").first).to_have_text(
        "line 3, column 3 · version: Input should be a valid string"
    )


async def test_editor_validates_as_you_type_saves_and_tests_a_tool_on_the_tab(
    browser, sidecar_env, skills_url
):
    cli(sidecar_env, "add", str(EXAMPLES / "demo-shop.skill.json"))
    shop = await browser.open(skills_url + "shop.html")
    panel = await open_panel(browser)
    skill = panel.locator("article.skill[data-skill=demo-shop]")
    await expect(skill.locator(".pill.done")).to_have_text("healthy on this tab", timeout=SLOW)

    await skill.locator("button", has_text="Edit").click()
    editor = panel.locator("#skill-text")
    await expect(editor).to_have_value((EXAMPLES / "demo-shop.skill.json").read_text())
    await expect(panel.locator("#skill-check")).to_have_text("No problems.")
    original = await editor.input_value()

    # An invalid edit: the host's problem, with its line, column and field.
    broken = original.replace('"name": "add_to_cart"', '"name": "add to cart"')
    line = broken[: broken.index('"add to cart"')].count("\n") + 1
    await editor.fill(broken)
    problem = panel.locator(".skill-problems li").first
    await expect(problem).to_contain_text(f"line {line}, column")
    await expect(problem).to_have_attribute("data-field", "tools[1].name")
    await expect(problem).to_contain_text("tools[1].name: String should match pattern")
    await panel.click("#skill-save")
    await expect(panel.locator("#skill-save-msg")).to_have_text("Not saved: fix the problems first.")
    await shot(panel, "problems")

    # Fixed, and saved as a new version.
    await editor.fill(original.replace('"version": "1.0.0"', '"version": "1.0.1"'))
    await expect(panel.locator("#skill-check")).to_have_text("No problems.")
    await panel.click("#skill-save")
    await expect(panel.locator("#skill-save-msg")).to_have_text("Saved.")
    await expect(skill.locator(".skill-head")).to_contain_text("1.0.1")

    # Test on this tab: the health check, then add_to_cart with the Inspector's form.
    await panel.select_option("#skill-test-tool", "add_to_cart")
    form = panel.locator(".skill-test-form")
    await form.get_by_label("sku").fill("green")
    await form.get_by_label("quantity").fill("2")
    await panel.click("#skill-test")
    result = panel.locator(".skill-test-result")
    await expect(result.locator("pre.result")).to_contain_text('"count": "2"', timeout=SLOW)
    await expect(result.locator("pre.result")).to_contain_text("2 × Green tea")
    await expect(result.locator("[data-check=match]")).to_have_text("Its match patterns cover this tab.")
    await expect(result.locator("[data-check=health]")).to_have_text("Health check passed.")
    assert await shop.text_content("#cart-count") == "2"
    await shot(panel, "test")

    # A form value the schema refuses never reaches the page; a step that fails says which.
    await form.get_by_label("quantity").fill("0")
    await panel.click("#skill-test")
    await expect(result.locator(".card-error")).to_have_text("quantity must be at least 1")
    await form.get_by_label("quantity").fill("")
    await form.get_by_label("sku").fill("coffee")
    await panel.click("#skill-test")
    await expect(result.locator(".pill.error")).to_be_visible(timeout=SLOW)
    await expect(result.locator(".card-error")).to_contain_text("step 2 (click")
    assert await shop.text_content("#cart-count") == "2"


async def test_a_skill_tool_hidden_by_the_pages_own_tool_says_so(browser, sidecar_env, skills_url, tmp_path):
    skill = json.loads((EXAMPLES / "demo-search.skill.json").read_text())
    skill["match"] = ["http://127.0.0.1/skills/own-tool.html*"]
    skill["health"] = {"selectors": ["form#search"]}
    path = tmp_path / "demo-search.skill.json"
    path.write_text(json.dumps(skill))
    cli(sidecar_env, "add", str(path))
    await browser.open(skills_url + "own-tool.html")
    panel = await open_panel(browser)
    row = panel.locator("article.skill[data-skill=demo-search]")
    await expect(row.locator(".pill.done")).to_have_text("healthy on this tab", timeout=SLOW)
    await expect(row.locator("li[data-tool=search_books]")).to_have_attribute(
        "data-state", "hidden", timeout=SLOW
    )
    await expect(row.locator("li[data-tool=search_books] .badge")).to_have_text("hidden")
    await expect(panel.locator(".skills-hidden")).to_have_text(
        "Hidden by the page's own tools of the same name: search_books"
    )
