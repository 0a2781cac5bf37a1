"""The chat site cannot trick the user's click into the Run card or the widening settings
(docs/CHAT_SITES.md, "AI chat websites in the extension and the host"): the toolbar's host
element sits in the chat page's DOM, so a hostile chat page can make it transparent or lay an
opaque decoy over it (clicks pass through a decoy with `pointer-events: none`). A user who clicks
the decoy then really clicks Run or "Run read-only tools without asking". Such a click must run
nothing and change nothing: the controls take a click only once the browser has seen them visible
and unmoved for a while.
The harness and replica are test_chat_sites.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from playwright.async_api import Page

# With test_chat_sites.py's fixtures: one browser and host for the module (`module_envs`), the
# chat state reset before each test (`_chat_state_reset`, autouse).
from tests.e2e.test_chat_sites import (  # noqa: F401
    CALL,
    _chat_state_reset,
    add_adapter,
    click,
    enable,
    module_envs,
    open_chat,
    press_run,
    say,
    tools_page,
    ui,
    until,
)
from tests.support.browser import Browser
from tests.support.chat_replica import Replica, Reply, serve_replica

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def mode() -> str:
    """The chat path does not depend on the page's WebMCP flavour (as in test_chat_sites.py)."""
    return "polyfill"


@pytest.fixture
def sse() -> Iterator[Replica]:
    with serve_replica("sse") as r:
        yield r


NOT_TAKEN = "That click was not taken"
# The hostile page's two tricks, run by the page itself.
HIDE = (
    "() => { const s = document.createElement('style'); s.id = 'hide'; "
    "s.textContent = 'webmcp-sidecar-chat { opacity: 0 !important; }'; document.head.append(s); }"
)
COVER = """() => {
  document.getElementById('hide')?.remove();
  const d = document.createElement('div');
  d.id = 'decoy';
  d.textContent = 'Click here to continue';
  Object.assign(d.style, { position: 'fixed', inset: '0', zIndex: '2147483647', background: '#fff',
    pointerEvents: 'none' });
  document.body.append(d);
}"""


async def hidden_click(
    browser: Browser,
    page: Page,
    tab: int,
    selector: str,
    harm: Callable[[], Awaitable[bool]],
) -> None:
    """Clicks the control where it is while the page hides it (once the browser no longer sees
    it: its `data-ready` is gone), then waits until the toolbar says the click was not taken, or
    until `harm` is done."""

    async def unseen() -> list[dict[str, Any]]:
        found = await ui(browser, tab, selector)
        # (An unguarded control, as before the guard, is clicked at once.)
        return found if found and (not found[0]["ready"] or not found[0]["guarded"]) else []

    found = await until(unseen, f"{selector} no longer seen")
    await page.mouse.click(found[0]["x"], found[0]["y"])

    async def outcome() -> bool:
        status = await ui(browser, tab, "[data-role=status]")
        return bool(status and NOT_TAKEN in status[0]["text"]) or await harm()

    await until(outcome, "the click's outcome")


@pytest.mark.parametrize("trick", [HIDE, COVER], ids=["transparent", "covered"])
async def test_a_hidden_or_covered_run_card_runs_nothing(
    browser,
    sidecar_env,
    tmp_path,
    site_url,
    sse,
    trick,
):
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host)
    sse.replies.append(Reply(f"Let me add those. {CALL}"))
    await say(sse, page, "What is 2 + 3?")
    await until(lambda: ui(browser, tab, "[data-act=run]"), "the Run card")

    await page.evaluate(trick)
    await hidden_click(browser, page, tab, "[data-act=run]", lambda: tools.evaluate("() => window.calls > 0"))
    assert await tools.evaluate("() => window.calls") == 0  # nothing ran
    assert await ui(browser, tab, "[data-act=run]")  # the card still asks

    # Shown plainly again, the same card runs on the user's click.
    await page.evaluate("() => ['hide', 'decoy'].forEach((id) => document.getElementById(id)?.remove())")
    await press_run(browser, page, tab)
    await until(lambda: tools.evaluate("() => window.calls === 1"), "the tool run once shown")


async def test_auto_run_cannot_be_turned_on_through_a_hidden_toolbar(
    browser,
    sidecar_env,
    tmp_path,
    site_url,
    sse,
):
    add_adapter(sidecar_env, tmp_path, sse)
    _, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host)
    await click(browser, page, tab, "[data-act=toggle-open]")
    await until(lambda: ui(browser, tab, "[data-act=autorun]"), "the auto-run box")

    await page.evaluate(HIDE)

    async def ticked() -> bool:
        return bool((await ui(browser, tab, "[data-act=autorun]"))[0]["checked"])

    await hidden_click(browser, page, tab, "[data-act=autorun]", ticked)
    assert not await ticked()  # the worker's state, redrawn: auto-run stays off


async def test_a_run_card_moved_by_the_toolbar_itself_takes_the_next_click(
    browser,
    sidecar_env,
    tmp_path,
    site_url,
    sse,
):
    """The guard's other side: a card our own toolbar moves (here: the card below it loses its
    buttons once denied, and the bar, anchored at the bottom, lets it down) is shown anew, and once
    seen there a while takes the user's first click. (It used to keep its old place as `seen`, so
    that click was refused however long the user had looked at it.)"""
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host)
    other = CALL.replace('"a": 2', '"a": 4')
    sse.replies.append(Reply(f"Two sums. {CALL} {other}"))
    await say(sse, page, "What are 2 + 3 and 4 + 3?")

    async def two_ready() -> list[dict[str, Any]]:
        found = await ui(browser, tab, "[data-act=run]")
        return found if len(found) == 2 and found[0]["ready"] else []

    before = await until(two_ready, "two Run cards, ready")
    denies = await ui(browser, tab, "[data-act=deny]")
    await page.mouse.click(denies[-1]["x"], denies[-1]["y"])  # the older card, below (Deny is not guarded)

    async def moved_and_ready() -> list[dict[str, Any]]:
        found = await ui(browser, tab, "[data-act=run]")
        return found if len(found) == 1 and found[0]["y"] != before[0]["y"] and found[0]["ready"] else []

    await until(moved_and_ready, "the newer card moved down, ready again")
    await click(browser, page, tab, "[data-act=run]")  # one click, no second try
    await until(lambda: tools.evaluate("() => window.calls === 1"), "the tool run on the first click")
    status = await ui(browser, tab, "[data-role=status]")
    assert NOT_TAKEN not in status[0]["text"]
