"""The side panel end to end: headless Chromium with our extension, the demo site in one tab,
the panel page in another, the real host (started by the browser), a real Secret Service, and a
local LLM server speaking OpenAI's / Anthropic's streaming wire formats.

The tests share one browser (and host, HOME, data dir) for the module: before each, the browser
is reset (tests/support/browser.py) and the panel, opened afresh, clears the operation log and
starts a new conversation, as a user would; settings are set by each test that chats. The one
test that closes its browser to search the profile for a key has a browser of its own.

Screenshots of every view, light and dark, go to test-artifacts/.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Browser, SharedBrowsers, launch
from tests.support.fake_llm import Calls, Error, FakeLLM, Hang, Text
from tests.support.keyring_env import secret_service
from tests.support.mcp_session import McpSession
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DATE = "2026-12-01"


@pytest.fixture(scope="module")
def keyring_env(tmp_path_factory) -> Iterator[dict[str, str]]:
    with secret_service(tmp_path_factory.mktemp("keyring")) as env:
        yield env


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@dataclass
class Session:
    browser: Browser
    demo: Page
    panel: Page
    llm: FakeLLM
    env: dict[str, str]
    site: str


def with_keyring(env: dict[str, str], keyring_env: dict[str, str]) -> dict[str, str]:
    # The test's own HOME stays (MCP entries find the host through it); the keyring is on the bus.
    return {**env, **keyring_env, "HOME": env["HOME"]}


@pytest.fixture(scope="module")
async def shared_browser(tmp_path_factory, module_envs,
                         keyring_env) -> AsyncIterator[SharedBrowsers]:
    """The module's browser (launched on first use), in the environment `sidecar_env` gives
    its tests (the module's, with no WebMCP mode), plus the keyring."""
    pool = SharedBrowsers(tmp_path_factory.mktemp("browsers"),
                          lambda _mode: with_keyring(module_envs.get("-"), keyring_env))
    try:
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
async def s(request, tmp_path, sidecar_env, keyring_env, llm, demo_url,
            shared_browser: SharedBrowsers) -> AsyncIterator[Session]:
    env = with_keyring(sidecar_env, keyring_env)
    fresh = request.node.get_closest_marker("fresh_browser") is not None
    async with contextlib.AsyncExitStack() as stack:
        if fresh:
            browser = await stack.enter_async_context(launch(tmp_path, env, "native"))
        else:
            browser = await shared_browser.get("native")
        demo = await browser.open(demo_url)
        panel = await browser.ctx.new_page()
        await panel.set_viewport_size({"width": 400, "height": 760})
        await panel.goto(PANEL_URL)
        site = demo_url.split("/")[2]
        await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=20_000)
        await expect(panel.locator("#target")).to_contain_text(f"{site} · 4 tools", timeout=20_000)
        if not fresh:
            # What an earlier test left in the panel: its calls in the log, its conversation.
            await panel.click("#tab-log")
            await panel.click("#view-log button:text-is('Clear')")
            await expect(panel.locator("details.log-row")).to_have_count(0)
            await panel.click("#tab-chat")
            await panel.click("button[title='Start a new conversation']")
            await expect(panel.locator(".msg")).to_have_count(0)
        yield Session(browser, demo, panel, llm, env, site)


async def configure(s: Session, provider: str = "custom", mode: str = "auto", *,
                    anthropic: bool = False) -> None:
    p = s.panel
    await p.click("#tab-settings")
    await p.select_option("#set-provider", provider)
    await p.fill("#set-model", "fake-1")
    await p.fill("#set-base-url", s.llm.anthropic_url if anthropic else s.llm.openai_url)
    await p.check(f"input[name=mode][value={mode}]")
    await p.click("#save-settings")
    await expect(p.locator("#save-msg")).to_have_text("Saved.")
    await p.click("#tab-chat")


async def send(s: Session, text: str) -> None:
    box = s.panel.locator(".composer-input")
    await box.fill(text)
    await box.press("Enter")


def card(s: Session, tool: str, nth: int = 0):
    return s.panel.locator(f"article.card[data-tool={tool}]").nth(nth)


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        await page.emulate_media(color_scheme=scheme)
        await page.screenshot(path=str(ARTIFACTS / f"sidepanel-{name}-{scheme}.png"))
    await page.emulate_media(color_scheme="light")


async def test_chat_drives_the_demo_site_over_openai_streaming(s: Session):
    await configure(s)
    s.llm.script(
        Calls([("searchFlights", {"from": "PEK", "to": "SHA", "date": DATE})], text="I'll search flights."),
        Calls([("setFilters", {"maxStops": 0, "sortBy": "price"})]),
        Text("Here are the nonstop flights from Beijing to Shanghai, cheapest first.", pieces=8),
    )
    await send(s, "Find nonstop flights from PEK to SHA on 2026-12-01")
    answer = s.panel.locator(".msg.assistant .bubble").last
    final = "Here are the nonstop flights from Beijing to Shanghai, cheapest first."
    await expect(answer).to_have_text(final, timeout=20_000)
    # The page changed, live, in the other tab.
    await expect(s.demo.locator("#status")).to_contain_text(f"PEK→SHA on {DATE}")
    assert await s.demo.evaluate("document.getElementById('maxStops').value") == "0"
    # Cards: tool, arguments, result, time.
    search = card(s, "searchFlights")
    await expect(search.locator(".pill")).to_have_text("done")
    await expect(search.locator(".args-preview")).to_contain_text('"from":"PEK"')
    await search.locator("summary", has_text="Result").click()
    await expect(search.locator("pre.result")).to_contain_text('"route": "PEK-SHA"')
    await expect(search.locator(".ms")).to_have_text(re.compile(r"\d+(\.\d+)? (ms|s)"))
    await expect(card(s, "setFilters").locator(".pill")).to_have_text("done")
    # What the model was given: the site's four tools, and untrusted-labelled results.
    first, second = s.llm.requests[0].body, s.llm.requests[1].body
    offered = [t["function"]["name"] for t in first["tools"]]
    assert sorted(n for n in offered if not n.startswith("browser_")) == [
        "bookFlight", "listFlights", "searchFlights", "setFilters"]
    # ...and the browser tools for the tab in view (not tab management).
    assert {"browser_snapshot", "browser_click"} <= set(offered) and "browser_tabs" not in offered
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    label = (rf'<untrusted-[0-9a-f]{{16}} source="tool_result" site="{re.escape(s.site)}" '
             'tool="searchFlights">')
    assert re.match(label, tool_msg["content"])
    await shot(s.panel, "chat")
    # The operation log has both calls, from the agent.
    await s.panel.click("#tab-log")
    rows = s.panel.locator("details.log-row")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(0)).to_contain_text("setFilters")
    await expect(rows.nth(1)).to_contain_text("searchFlights")
    await expect(rows.nth(1).locator(".badge")).to_have_text("Side panel agent")
    await rows.nth(1).locator(":scope > summary").click()
    await shot(s.panel, "log")


@pytest.mark.fresh_browser  # closes its browser, then searches the profile and dirs for the key
async def test_anthropic_with_a_key_set_in_the_panel_that_never_leaves_the_host(s: Session, capfd, tmp_path):
    key = "sk-ant-e2e-" + secrets.token_hex(12)
    await configure(s, "anthropic", anthropic=True)
    p = s.panel
    await p.click("#tab-settings")
    await expect(p.locator(".key-state")).to_contain_text("no key")
    await p.fill("#set-key", key)
    await p.click("text=Save key")
    await expect(p.locator("#key-msg")).to_have_text("Key saved in the OS keyring.", timeout=15_000)
    await expect(p.locator(".key-state")).to_contain_text("key set")
    assert await p.input_value("#set-key") == ""  # forgotten by the page
    await shot(p, "settings")
    await p.click("#tab-chat")
    s.llm.script(Calls([("listFlights", {})], text="Let me look."), Text("The page shows no flights yet."))
    await send(s, "What does the page show?")
    await expect(p.locator(".msg.assistant .bubble").last).to_have_text("The page shows no flights yet.",
                                                                        timeout=20_000)
    await expect(card(s, "listFlights").locator(".pill")).to_have_text("done")
    # The provider got the key (from the host's keyring); the request went the Anthropic way.
    assert s.llm.requests[0].path == "/v1/messages"
    assert s.llm.requests[0].auth.removeprefix("Bearer ") == key
    assert s.llm.requests[1].body["messages"][-1]["content"][0]["type"] == "tool_result"
    # Nowhere else: not in the browser profile (chrome.storage, caches...), logs, data, output.
    await s.browser.ctx.close()
    needle = key.encode()
    places = [s.browser.profile, Path(s.env["WEBMCP_SIDECAR_LOG_DIR"]),
              Path(s.env["WEBMCP_SIDECAR_DATA_DIR"])]
    scanned = 0
    for place in places:
        for f in place.rglob("*"):
            if f.is_file():
                scanned += 1
                assert needle not in f.read_bytes(), f"the key leaked into {f}"
    assert scanned > 20
    out, err = capfd.readouterr()
    assert key not in out and key not in err


async def test_confirm_mode_deny_stops_the_call_run_runs_it(s: Session):
    await configure(s, mode="confirm")
    flight = await s.demo.evaluate(f"inventory('PEK', 'SHA', '{DATE}')[0].id")
    booking = {"flightId": flight, "passengerName": "Li Lei"}
    s.llm.script(
        Calls([("searchFlights", {"from": "PEK", "to": "SHA", "date": DATE})]),
        Calls([("bookFlight", booking)], text="Booking it."),
        Text("OK, I did not book it."),
    )
    await send(s, "Book the first flight PEK to SHA for Li Lei")
    book = card(s, "bookFlight")
    await expect(book.locator(".pill")).to_have_text("waiting for you", timeout=20_000)
    # The read-only search ran without asking; the booking waits.
    await expect(card(s, "searchFlights").locator(".pill")).to_have_text("done")
    await shot(s.panel, "confirm")
    await book.locator("button.deny").click()
    await expect(book.locator(".pill")).to_have_text("denied")
    await expect(s.panel.locator(".msg.assistant .bubble").last).to_have_text("OK, I did not book it.")
    assert await s.demo.text_content("#booking") == ""  # nothing was booked
    assert "denied" in s.llm.requests[2].body["messages"][-1]["content"]

    s.llm.script(Calls([("bookFlight", booking)]), Text("Booked."))
    await send(s, "Yes, book it")
    book = card(s, "bookFlight", 1)
    await expect(book.locator(".pill")).to_have_text("waiting for you", timeout=20_000)
    await book.locator("button.run").click()
    await expect(book.locator(".pill")).to_have_text("done")
    await expect(s.demo.locator("#booking")).to_contain_text(f"Booked {flight} for Li Lei")
    await expect(s.panel.locator(".msg.assistant .bubble").last).to_have_text("Booked.")


async def test_stop_mid_turn_cancels_the_model_request(s: Session):
    await configure(s)
    hang = Hang("Thinking about it")
    s.llm.script(hang)
    await send(s, "Take your time")
    bubble = s.panel.locator(".msg.assistant .bubble").last
    await expect(bubble).to_have_text("Thinking about it", timeout=20_000)
    stop = s.panel.locator("button.stop")
    await expect(stop).to_be_visible()
    await stop.click()
    await expect(s.panel.locator(".notice").last).to_have_text("Stopped.")
    await expect(s.panel.locator("button.send")).to_be_visible()
    assert await asyncio.to_thread(hang.disconnected.wait, 10), "the model's stream was not closed"
    # The conversation goes on after a stop.
    s.llm.script(Text("Still here."))
    await send(s, "Hello again")
    await expect(s.panel.locator(".msg.assistant .bubble").last).to_have_text("Still here.", timeout=20_000)
    # Kept by the host: a reopened panel shows it; New starts afresh; the menu reopens it.
    await expect(s.panel.locator(".conv-select option:checked")).to_have_text("Take your time")
    await s.panel.reload()
    await expect(s.panel.locator(".msg.assistant .bubble").last).to_have_text("Still here.", timeout=20_000)
    await s.panel.click("text=New")
    await expect(s.panel.locator(".msg")).to_have_count(0)
    await s.panel.select_option(".conv-select", label="Take your time")
    await expect(s.panel.locator(".msg.user .bubble")).to_have_text(["Take your time", "Hello again"])


async def test_a_provider_error_is_shown_plainly(s: Session):
    await configure(s)
    s.llm.script(Error(401, "Incorrect API key provided: sk-****wxyz."))
    await send(s, "Hello")
    err = s.panel.locator(".notice.error")
    await expect(err).to_contain_text("refused the API key (401)", timeout=20_000)
    await expect(err).to_contain_text("Settings → API key")
    # Nothing lost: the text is back in the box to send again.
    await expect(s.panel.locator(".composer-input")).to_have_value("Hello")
    s.llm.script(Error(429, "Rate limit reached for requests"))
    await s.panel.locator(".composer-input").press("Enter")
    await expect(err.last).to_contain_text("rate-limiting requests (429)", timeout=20_000)


async def test_inspector_calls_by_hand_and_the_log_sees_every_caller(s: Session):
    p = s.panel
    await p.click("#tab-inspector")
    tool = p.locator("details.tool-block[data-tool=searchFlights]")
    await tool.locator(":scope > summary").click()
    await expect(tool.locator(".badge.src-native")).to_have_text("native")
    await tool.locator("summary", has_text="Input schema").click()
    await expect(tool.locator("pre").first).to_contain_text('"pattern"')
    # A bad value is caught before the page sees it.
    await tool.get_by_label("from").fill("PEK")
    await tool.get_by_label("to").fill("SH")
    await tool.get_by_label("date").fill(DATE)
    await tool.locator("button", has_text="Call").click()
    await expect(tool.locator(".card-error")).to_contain_text("to must match")
    await tool.get_by_label("to").fill("SHA")
    await tool.get_by_label("passengers").fill("2")
    await tool.locator("button", has_text="Call").click()
    await expect(tool.locator("pre.result")).to_contain_text('"route": "PEK-SHA"', timeout=15_000)
    await expect(s.demo.locator("#status")).to_contain_text("PEK→SHA")
    assert await s.demo.input_value("#passengers") == "2"
    # Enums and nullable numbers: setFilters.
    filters = p.locator("details.tool-block[data-tool=setFilters]")
    await filters.locator(":scope > summary").click()
    await filters.get_by_label("sortBy").select_option(label="duration")
    await filters.get_by_label("maxPrice").fill("900")
    await filters.locator("button", has_text="Call").click()
    await expect(filters.locator("pre.result")).to_contain_text('"sortBy": "duration"')
    await shot(p, "inspector")
    # An MCP client's call shows in the log too.
    async with McpSession(s.env, name="e2e-client") as mcp:
        slug = s.site.replace(".", "_").replace(":", "_")
        await mcp.wait_tools(lambda n: f"{slug}__listFlights" in n)
        r = await mcp.call(f"{slug}__listFlights")
        assert not r.is_error
        await p.click("#tab-log")
        rows = p.locator("details.log-row")
        await expect(rows).to_have_count(3)
        # Named after the client once the entry introduces its session (`session` message).
        await expect(rows.nth(0).locator(".badge")).to_have_text(re.compile(r"^MCP( client|: e2e-client)$"))
        await expect(rows.nth(1).locator(".badge")).to_have_text("Inspector")
    # Filter and export.
    await p.fill("#view-log input[type=search]", "setFilters")
    await expect(rows).to_have_count(1)
    await p.fill("#view-log input[type=search]", "")
    await p.select_option("#view-log select >> nth=0", "inspector")
    await expect(rows).to_have_count(2)
    async with p.expect_download() as dl:
        await p.click("text=Export JSON")
    exported = json.loads(Path(await (await dl.value).path()).read_text())
    assert [c["tool"] for c in exported["calls"]] == ["searchFlights", "setFilters"]
    assert exported["calls"][0]["args"] == {"from": "PEK", "to": "SHA", "date": DATE, "passengers": 2}
    assert exported["calls"][0]["result"]["route"] == "PEK-SHA"
    assert exported["calls"][0]["caller"] == "Inspector"


async def test_the_agent_reads_and_acts_on_the_users_tab_with_browser_tools(s: Session):
    """Browser tools for the panel's agent run on the tab in view, through the real extension."""
    await configure(s)
    s.llm.script(
        Calls([("browser_snapshot", {})]),
        Text("The page is SkyHop, a flight search.", pieces=2),
    )
    await send(s, "What is this page?")
    await expect(s.panel.locator(".msg.assistant .bubble").last).to_have_text(
        "The page is SkyHop, a flight search.", timeout=20_000)
    await expect(card(s, "snapshot").locator(".pill")).to_have_text("done")
    # The model got the demo tab's outline: its heading and the search form's controls.
    sent = json.dumps(s.llm.requests[1].body["messages"])
    assert "SkyHop" in sent and "Search" in sent


async def test_sessions_view_lists_mcp_sessions_and_closes_their_tabs(s: Session, demo_url):
    async with McpSession(s.env, name="Claude Code") as mcp:
        await mcp.wait_tools(lambda n: "browser_navigate" in n)
        r = await mcp.call("browser_navigate", {"url": demo_url})
        assert not r.is_error
        await mcp.wait_tools(lambda n: "browser_snapshot" in n)  # the session has a tab now
        await s.panel.click("#tab-sessions")
        session = s.panel.locator("article.session")
        await expect(session.locator(".session-name")).to_have_text("Claude Code", timeout=10_000)
        await expect(session.locator(".session-tabs li")).to_have_count(1)
        await expect(session.locator(".session-tabs li")).to_contain_text("SkyHop")
        await shot(s.panel, "sessions")
        await session.locator("button.close-tabs").click()
        # The session's tab is gone, and its page tools with it.
        await mcp.wait_tools(lambda n: "browser_snapshot" not in n)
        await expect(session.locator(".session-tabs li")).to_have_count(0)
