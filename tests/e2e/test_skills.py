"""Skills end to end (docs/SKILLS.md): skill files installed with the CLI reach the host, the
worker matches them against tabs of local sites that have no WebMCP (served with a strict CSP),
and MCP clients list and call their tools through the real host and `webmcp-sidecar mcp`. Skills
do not go through the page's modelContext: one WebMCP mode (stock Chrome's, the polyfill)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.mcp_session import text
from webmcp_sidecar.demo.run import serve_site

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

SITE = Path(__file__).parent / "site"
EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"
# No inline script, no eval: skills must work where a page's CSP forbids both.
CSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"


@pytest.fixture
def mode() -> str:
    """Skills go into our registry, not the page's modelContext, so the page's WebMCP flavour does
    not change them: they run once, in stock Chrome's (the polyfill; the spine runs both)."""
    return "polyfill"


@pytest.fixture(scope="module")
def skills_url() -> Iterator[str]:
    with serve_site(SITE, headers={"Content-Security-Policy": CSP}) as url:
        yield url + "skills/"


def cli(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "skills", *args],
        env={**os.environ, **env}, capture_output=True, text=True, check=check, timeout=60,
    )


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


def data(result: Any) -> Any:
    assert not result.is_error, text(result)
    return json.loads(text(result))


async def test_search_skill_fills_submits_and_reads_the_new_results_page(
    browser, mcp, sidecar_env, skills_url,
):
    cli(sidecar_env, "add", str(EXAMPLES / "demo-search.skill.json"))
    page = await browser.open(skills_url + "search.html")
    s = slug(skills_url)
    await mcp.wait_tools(lambda n: f"{s}__search_books" in n)
    tool = {t.name: t for t in await mcp.tools()}[f"{s}__search_books"]
    assert tool.annotations.read_only_hint is True
    assert tool.input_schema["required"] == ["query"]
    assert tool.meta["io.webmcp.sidecar/source"] == "skill"
    assert tool.meta["io.webmcp.sidecar/skill"] == "demo-search"

    out = data(await mcp.call(f"{s}__search_books", {"query": "prince", "language": "fr"}))
    assert out["query"] == "prince"
    assert [b["title"] for b in out["books"]] == ["Le Petit Prince"]
    assert out["books"][0]["url"].endswith("book.html?id=3")
    assert "results.html?q=prince&lang=fr" in page.url  # the page itself went there

    # From the results page (a new document, still matched), a second search.
    out = data(await mcp.call(f"{s}__search_books", {"query": "tolkien"}))
    assert [b["author"] for b in out["books"]] == ["J. R. R. Tolkien"] * 2
    assert out["heading"] == '2 result(s) for "tolkien"'


async def test_shop_skill_changes_the_page_and_checks_out_with_real_input(
    browser, mcp, sidecar_env, skills_url,
):
    cli(sidecar_env, "add", str(EXAMPLES / "demo-shop.skill.json"))
    page = await browser.open(skills_url + "shop.html")
    s = slug(skills_url)
    await mcp.wait_tools(lambda n: f"{s}__add_to_cart" in n)

    products = data(await mcp.call(f"{s}__list_products"))
    assert products[0] == {"sku": "green", "name": "Green tea", "price": "4.50"}
    assert [p["sku"] for p in products] == ["green", "black", "oolong"]

    cart = data(await mcp.call(f"{s}__add_to_cart", {"sku": "green", "quantity": 2}))
    assert cart == {"count": "2", "lines": ["2 × Green tea"]}
    cart = data(await mcp.call(f"{s}__add_to_cart", {"sku": "oolong"}))
    assert cart["count"] == "3"
    assert await page.text_content("#cart-total") == "16.20"

    # A step that finds nothing says which step, which selector, and what the page has.
    bad = await mcp.call(f"{s}__add_to_cart", {"sku": "coffee"})
    assert bad.is_error
    msg = text(bad)
    assert msg.startswith("Skill demo-shop, tool add_to_cart: step 2 (click "), msg
    assert "coffee" in msg and "no element matches" in msg
    assert "shop.html" in msg and "Tea shop" in msg  # where it looked: the page's URL and title

    # The page ignores synthetic clicks here: the skill's trusted step goes through the debugger.
    r = await mcp.call(f"{s}__checkout")
    assert not r.is_error and text(r) == "checked out 2 line(s)"  # a string result is the text
    assert await page.text_content("#checkout-state") == "checked out 2 line(s)"


async def test_adding_disabling_and_removing_a_skill_reach_clients_as_list_changed(
    browser, mcp, sidecar_env, skills_url,
):
    await browser.open(skills_url + "shop.html")
    s = slug(skills_url)
    name = f"{s}__list_products"
    assert name not in await mcp.names()

    cli(sidecar_env, "add", str(EXAMPLES / "demo-shop.skill.json"))
    await mcp.wait_tools(lambda n: name in n)
    cli(sidecar_env, "disable", "demo-shop", "--tool", "checkout")
    names = await mcp.wait_tools(lambda n: f"{s}__checkout" not in n)
    assert name in names
    cli(sidecar_env, "disable", "demo-shop")
    await mcp.wait_tools(lambda n: name not in n)
    cli(sidecar_env, "enable", "demo-shop")
    await mcp.wait_tools(lambda n: name in n)
    cli(sidecar_env, "remove", "demo-shop")
    await mcp.wait_tools(lambda n: name not in n)
    await mcp.wait_changes(4)  # one notification for each of the five changes at least


async def test_a_failed_health_check_registers_nothing_and_says_why(
    browser, mcp, sidecar_env, skills_url, tmp_path,
):
    skill = json.loads((EXAMPLES / "demo-shop.skill.json").read_text())
    skill["name"] = "shop-needs-login"
    skill["health"] = {"selectors": ["#account-menu"]}
    path = tmp_path / "shop-needs-login.skill.json"
    path.write_text(json.dumps(skill))
    cli(sidecar_env, "add", str(path))
    cli(sidecar_env, "add", str(EXAMPLES / "demo-search.skill.json"))
    page = await browser.open(skills_url + "shop.html")
    # Another tab with a healthy skill proves the skills arrived; the shop's stay away.
    await browser.open(skills_url + "search.html")
    s = slug(skills_url)
    names = await mcp.wait_tools(lambda n: f"{s}__search_books" in n)
    assert f"{s}__list_products" not in names
    worker = await browser.worker()
    # A failed check is tried again a few times as the page may still be rendering (skills.js
    # HEALTH_RETRIES_MS): the verdict is the one left once the worker has stopped looking.
    with anyio.fail_after(15):
        while (status := await worker.evaluate(
            """async (url) => {
                const [tab] = await chrome.tabs.query({url});
                const skills = globalThis.sidecar.skills;
                return skills.looking(tab.id) ? null : skills.statusOf(tab.id);
            }""",
            page.url,
        )) is None:
            await anyio.sleep(0.1)
    assert status == [{"skill": "shop-needs-login", "matched": True, "healthy": False,
                       "reason": 'no element matches "#account-menu"', "tools": []}]


async def test_a_pages_own_tool_wins_over_a_skills_tool_of_the_same_name(
    browser, mcp, sidecar_env, skills_url, tmp_path,
):
    skill = json.loads((EXAMPLES / "demo-search.skill.json").read_text())
    skill["match"] = ["http://127.0.0.1/skills/own-tool.html*"]
    skill["health"] = {"selectors": ["form#search"]}
    path = tmp_path / "demo-search.skill.json"
    path.write_text(json.dumps(skill))
    cli(sidecar_env, "add", str(path))
    await browser.open(skills_url + "own-tool.html")
    s = slug(skills_url)
    await mcp.wait_tools(lambda n: f"{s}__search_books" in n)
    tool = {t.name: t for t in await mcp.tools()}[f"{s}__search_books"]
    assert tool.description.startswith("The page's own search")
    r = await mcp.call(f"{s}__search_books", {"query": "x"})
    assert "own search: x" in text(r)



# A skill whose last step leaves the page: a click that submits the form (no wait after it), and
# a `navigate`. Its page (late.html) renders the form late, so the health check made when the
# new page has loaded fails and the skill's tools come back only when it looks again: the next
# call must wait for them rather than fail ("has no tool named ... right now").
NAV_END_SKILL = {
    "name": "nav-end",
    "version": "1.0.0",
    "description": "Tools whose last step loads another page.",
    "match": ["http://127.0.0.1/skills/late.html*"],
    "health": {"selectors": ["form#late input[name=q]"]},
    "tools": [
        {
            "name": "search_late",
            "description": "Submits a search; the page loads again after the call.",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}},
                            "required": ["query"]},
            "steps": [
                {"action": "fill", "selector": "form#late input[name=q]", "value": "{{query}}"},
                {"action": "click", "selector": "form#late button[type=submit]"},
            ],
        },
        {
            "name": "go_home",
            "description": "Goes back to the empty search page.",
            "inputSchema": {"type": "object", "properties": {}},
            "steps": [{"action": "navigate", "url": "late.html"}],
        },
    ],
}


@pytest.mark.parametrize("mode", ["native", "polyfill"])  # a page's reload differs by mode
async def test_two_calls_in_a_row_work_when_the_first_ends_on_a_new_page(
    browser, mcp, sidecar_env, skills_url, tmp_path,
):
    path = tmp_path / "nav-end.skill.json"
    path.write_text(json.dumps(NAV_END_SKILL))
    cli(sidecar_env, "add", str(path))
    page = await browser.open(skills_url + "late.html")
    s = slug(skills_url)
    await mcp.wait_tools(lambda n: f"{s}__search_late" in n and f"{s}__go_home" in n)
    for query in ("hobbit", "prince"):
        r = await mcp.call(f"{s}__search_late", {"query": query})
        assert not r.is_error, text(r)
        await page.wait_for_url(lambda u, q=query: u.endswith(f"late.html?q={q}"))
    for _ in range(2):
        r = await mcp.call(f"{s}__go_home")
        assert not r.is_error, text(r)
        await page.wait_for_url("**/skills/late.html")
    r = await mcp.call(f"{s}__search_late", {"query": "tolkien"})
    assert not r.is_error, text(r)
    await page.wait_for_url(lambda u: u.endswith("late.html?q=tolkien"))
    assert await page.text_content("#searched") == "tolkien"
