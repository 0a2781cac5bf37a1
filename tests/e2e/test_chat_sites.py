"""AI chat websites end to end (issue 13, docs/CHAT_SITES.md), in headless Chromium with the real
host: local replica chat sites (tests/support/chat_replica.py: one streaming SSE in OpenAI-like
deltas, one NDJSON), each with its adapter added with the CLI, and a scripted model that answers
with a tool call, then with a final answer once it sees the result. The replica's pages
(tests/e2e/site/chat/) differ as real sites do: fetch or XMLHttpRequest; a plain textarea, a
React-like controlled one, or a contenteditable editor that keeps its own model. The tools are
the page tools of an open local WebMCP page, or a real local MCP server's
(`@modelcontextprotocol/server-everything`, added with the servers CLI). The toolbar and cards
live in a closed shadow root: the test finds a button's place through the extension's isolated
world and clicks it with real (trusted) input, as a user would.

The tests share one browser and host (tests/e2e/conftest.py); each starts from no adapter of
the user's, no local server, no site prefs and an empty operation log (`_chat_state_reset`).

One test does it from the side panel's Chat sites view: the view turns the site on and picks the
server's `get-sum` (its `add` of older releases), the replica's model calls it, Run runs it, the
result reaches the input box and the next request, the operation log has the call with the chat
site as its caller, the view shows the adapter verified after the round trip, and a tool the
user allowed in the view runs without a click.

The chat path does not depend on the page's WebMCP flavour (the page tool it calls does, and the
spine runs that in both): one mode, stock Chrome's (the polyfill)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Browser
from tests.support.chat_replica import Replica, Reply, serve_replica
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CALL = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'


def sum_call(a: int, b: int) -> str:
    return f'<tool_call>{{"name": "get-sum", "arguments": {{"a": {a}, "b": {b}}}}}</tool_call>'


BLOCK_HEAD = "[Tools from WebMCP Sidecar"
ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "host" / "webmcp_sidecar" / "chat_sites" / "builtin"
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"
SLOW = 30_000  # ms: the host, then the local server (node) start on first use


@pytest.fixture
def mode() -> str:
    """The chat path does not depend on the page's WebMCP flavour (see the docstring)."""
    return "polyfill"


@pytest.fixture(scope="module")
def module_envs(module_envs: Any) -> Any:
    """The conftest's, its one environment (the tests share a browser and host) with a config
    dir of the module's, where the tests that use the local MCP server add it (`add_server`)."""
    module_envs.get("polyfill")["WEBMCP_SIDECAR_CONFIG_DIR"] = str(module_envs.base / "config")
    return module_envs


@pytest.fixture(autouse=True)
async def _chat_state_reset(browser: Browser, sidecar_env: dict[str, str]) -> None:
    """The tests share a browser and host (tests/e2e/conftest.py resets tabs, registry and
    skills): what an earlier test left of the chat sites goes too, before each test. The local
    MCP server (its tools would lengthen the toolbar's list: a test without it has none) and
    the worker's cached list of its tools; the user's adapters (the CLI's `remove`, which also
    forgets their verification); every site's prefs (tools on, chosen and allowed tools,
    auto-run and auto-send: a later replica may get an earlier one's port); the worker's memory
    of the adapters it reported verified (at most once a minute per name: a re-added
    `replica-sse` would not be verified again) and of stale ones; and the operation log (read
    whole by `panel_log`)."""
    await asyncio.to_thread(remove_added, sidecar_env)
    worker = await browser.worker()
    await until(
        lambda: worker.evaluate(
            "() => globalThis.sidecar.chatSites.adapters.every((a) => !a.name.startsWith('replica-'))"
        ),
        "the removed adapters gone from the worker",
    )
    await worker.evaluate("""async () => {
      const cs = globalThis.sidecar.chatSites;
      for (const site of Object.keys(cs.prefs)) delete cs.prefs[site];
      await chrome.storage.local.remove('chatSites.prefs');
      cs.serverTools = null;
      cs.verifiedSent.clear();
      cs.stale.clear();
      globalThis.sidecar.panel.clearLog();
    }""")


@pytest.fixture
def sse() -> Iterator[Replica]:
    with serve_replica("sse") as r:
        yield r


@pytest.fixture
def ndjson() -> Iterator[Replica]:
    with serve_replica("ndjson") as r:
        yield r


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "chat-sites", *args],
        env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip


def add_adapter(env: dict[str, str], tmp_path: Path, replica: Replica, url: str = "/api/chat") -> str:
    host = replica.url.split("/")[2]
    text_path = "choices[0].delta.content" if replica.kind == "sse" else "message.content"
    doc = {
        "name": f"replica-{replica.kind}",
        "title": f"Replica {replica.kind}",
        "version": "1.0.0",
        "source": "tests/support/chat_replica.py (OpenAI-like SSE / Ollama-like NDJSON)",
        "hostnames": [host],
        "request": {"url": url, "method": "POST", "message_path": "messages[-1].content"},
        "response": {"kind": replica.kind, "text_paths": [text_path]},
        "selectors": {"input": "#input", "send": "#send", "last_answer": ".answer"},
    }
    f = tmp_path / f"replica-{replica.kind}.chat.json"
    f.write_text(json.dumps(doc))
    cli(env, "add", str(f))
    return host


async def until(test: Any, what: str, tries: int = 150) -> Any:
    for _ in range(tries):
        got = await test()
        if got:
            return got
        await asyncio.sleep(0.1)
    raise AssertionError(f"never happened: {what}")


async def tab_of(browser: Browser, url: str) -> int:
    worker = await browser.worker()
    return await worker.evaluate(
        "(u) => chrome.tabs.query({}).then((ts) => ts.find((t) => t.url === u)?.id)", url
    )


async def ui(browser: Browser, tab: int, selector: str) -> list[dict[str, Any]]:
    """The toolbar's elements matching `selector`: their text and centre (isolated world)."""
    worker = await browser.worker()
    return await worker.evaluate(
        """async ([tabId, sel]) => {
          const [r] = await chrome.scripting.executeScript({ target: { tabId }, args: [sel], func: (sel) => {
            const root = globalThis.webmcpSidecar?.chatPage?.ui.root;
            if (!root) return null;
            return [...root.querySelectorAll(sel)].map((el) => {
              el.scrollIntoView({ block: 'nearest' });
              const b = el.getBoundingClientRect();
              const checked = el.checked ?? null;
              // A guarded control takes a click once it has been seen visible a while (ui.js).
              const guarded = el.hasAttribute('data-guard');
              const ready = !guarded || el.hasAttribute('data-ready');
              const x = b.x + b.width / 2, y = b.y + b.height / 2;
              return { text: el.textContent, x, y, checked, ready, guarded };
            });
          } });
          return r?.result ?? [];
        }""",
        [tab, selector],
    )


async def click(browser: Browser, page: Page, tab: int, selector: str) -> None:
    async def shown() -> list[dict[str, Any]]:
        found = await ui(browser, tab, selector)
        return found if found and found[0]["ready"] else []

    found = await until(shown, f"{selector} in the toolbar, ready for a click")
    await page.mouse.click(found[0]["x"], found[0]["y"])


async def press(
    browser: Browser, page: Page, tab: int, selector: str, done: Any, what: str, tries: int = 1
) -> None:
    """Presses a guarded toolbar control until `done()` holds, as a user does: again when the
    toolbar refused the click. A control can move or be redrawn between our reading it ready and
    the click (a state the worker pushes, the bar scrolled into view); the guard (ui.js) then
    rightly refuses the click. Up to four presses, each given 3 s; then `tries` more waits."""
    for _ in range(4):
        if await done():
            return
        await click(browser, page, tab, selector)
        try:
            await until(done, what, 30)
            return
        except AssertionError:
            pass
    try:
        await until(done, what, tries)
    except AssertionError:
        status = await ui(browser, tab, "[data-role=status]")
        said = status[0]["text"] if status else None
        raise AssertionError(f"never happened: {what}; the toolbar says: {said!r}") from None


async def press_run(browser: Browser, page: Page, tab: int) -> None:
    """Presses the newest card's Run. A click taken removes the card's buttons at once (main.js
    `run`), so a second press can never run a call twice."""
    before = len(await until(lambda: ui(browser, tab, "[data-act=run]"), "a Run card"))

    async def taken() -> bool:
        return len(await ui(browser, tab, "[data-act=run]")) < before

    await press(browser, page, tab, "[data-act=run]", taken, "the Run click taken")


async def open_chat(browser: Browser, replica: Replica, query: str = "") -> tuple[Page, int]:
    """The replica's chat page, set up by `query` (tests/e2e/site/chat/chat.js), with the toolbar."""
    page = await browser.open(replica.url + query)
    tab = await tab_of(browser, page.url)
    await until(lambda: ui(browser, tab, "[data-act=enable]"), "the toolbar on the chat page")
    return page, tab


async def verified_adapter(env: dict[str, str], name: str) -> dict[str, Any]:
    """The store's entry of adapter `name` once it is marked verified (a whole round trip read
    well on its site)."""

    async def verified() -> list[dict[str, Any]]:
        listed = json.loads(cli(env, "list", "--json").stdout)
        return [i for i in listed if i["name"] == name and i["verified"]]

    return (await until(verified, f"{name} verified"))[0]


async def check(browser: Browser, page: Page, tab: int, selector: str, what: str, tries: int = 150) -> None:
    """Ticks a toolbar checkbox (a real click) and waits until the worker's new state shows it
    ticked. `press` reads the box again before each click: a click that did land but whose state
    is slow would be undone by a second one, and is then redone."""

    async def ticked() -> bool:
        boxes = await ui(browser, tab, selector)
        return bool(boxes and boxes[0]["checked"])

    await press(browser, page, tab, selector, ticked, what, tries)


async def enable(
    browser: Browser,
    page: Page,
    tab: int,
    tools_host: str = "",
    auto_send: bool = False,
    keys: tuple[str, ...] = (),
    auto_run: bool = False,
) -> None:
    """Tools on for the chat site, the tools chosen (the tools page's `add` by default)."""
    await check(browser, page, tab, "[data-act=enable]", "tools on for the site")
    await until(lambda: page.evaluate("() => !String(window.fetch).includes('[native code]')"), "the hook")
    await click(browser, page, tab, "[data-act=toggle-open]")
    for key in keys or (f"site:{tools_host}/add",):
        # A local server's tools come once the host has started it: slow the first time.
        await check(browser, page, tab, f'[data-act=choose][data-key="{key}"]', f"{key} chosen", tries=300)
    if auto_send:
        await check(browser, page, tab, "[data-act=autosend]", "auto-send on")
    if auto_run:
        await check(browser, page, tab, "[data-act=autorun]", "auto-run on")
        # A page's own tool's readOnlyHint is that page's word, which auto-run does not take: the
        # user allows such a tool one by one (the Chat sites view's Allow), here in the worker.
        pages = [k for k in keys or (f"site:{tools_host}/add",) if k.startswith("site:")]
        worker = await browser.worker()
        await worker.evaluate(
            "([site, keys]) => globalThis.sidecar.chatSites.setPrefs(site, { allowed: keys })",
            [page.url.split("/")[2], pages],
        )
    await click(browser, page, tab, "[data-act=toggle-open]")  # folded again: the cards show


async def say(replica: Replica, page: Page, text: str) -> None:
    """The user types a message and sends it; back once the replica has the request."""
    sent = len(replica.requests)
    await page.fill("#input", text)
    await page.click("#send")
    await until(lambda: asyncio.sleep(0, len(replica.requests) > sent), "the message at the replica")


async def draft(page: Page) -> str:
    """The message as the chat page would send it (its own state, not only the DOM)."""
    return str(await page.evaluate("() => window.replica.draft"))


async def panel_log(browser: Browser) -> list[list[str]]:
    """The operation log's finished entries, as a side panel opened now shows them."""
    panel = await browser.ctx.new_page()
    await panel.goto(PANEL_URL)
    await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
    got = await until(
        lambda: panel.evaluate(
            "globalThis.sidecarPanel.views.log.entries.filter((e) => e.state === 'ok')"
            ".map((e) => [e.site, e.tool, e.who.kind, e.who.label])"
        ),
        "calls in the log",
    )
    await panel.close()
    return got


def add_server(env: dict[str, str]) -> None:
    """server-everything as the user's local MCP server `everything` (the servers CLI)."""
    cmd = [sys.executable, "-m", "webmcp_sidecar", "servers", "add", "everything", "--"]
    subprocess.run(
        [*cmd, str(EVERYTHING), "stdio"],
        env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip


def remove_added(env: dict[str, str]) -> None:
    """The local server and the user's adapters a test added, removed with the CLIs."""
    servers = Path(env["WEBMCP_SIDECAR_CONFIG_DIR"]) / "servers.json"
    if servers.exists() and "everything" in json.loads(servers.read_text()).get("mcpServers", {}):
        subprocess.run(
            [sys.executable, "-m", "webmcp_sidecar", "servers", "remove", "everything"],
            env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
    for added in (Path(env["WEBMCP_SIDECAR_DATA_DIR"]) / "chat-sites").glob("*.chat.json"):
        cli(env, "remove", added.name.removesuffix(".chat.json"))


async def tools_page(browser: Browser, site_url: str) -> tuple[Page, str]:
    page = await browser.open(site_url + "tools.html")
    host = site_url.split("/")[2]
    worker = await browser.worker()
    await until(
        lambda: worker.evaluate("(s) => globalThis.sidecar.registry.siteTools(s).length > 0", host),
        "the tools page's tools in the registry",
    )
    return page, host


async def test_sse_replica_round_trip_run(browser, sidecar_env, tmp_path, site_url, sse):
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host)

    sse.replies.append(Reply(f"Let me add those. {CALL}"))
    await say(sse, page, "What is 2 + 3?")
    # The instruction block reached the replica, in front of the user's message.
    first = sse.requests[0]["messages"][-1]["content"]
    assert first.startswith(BLOCK_HEAD) and first.endswith("What is 2 + 3?")
    assert "- add: Add two numbers (read-only)" in first and '"a":{"type":"number"}' in first.replace(" ", "")

    await press_run(browser, page, tab)
    has_result = "() => document.getElementById('input').value.includes('[tool_result add]')"
    await until(lambda: page.evaluate(has_result), "the result in the input box")
    value = await page.input_value("#input")
    assert '"sum":5' in value.replace(" ", "") and value.rstrip().endswith("[/tool_result]")
    assert await tools.evaluate("() => window.calls") == 1

    await page.click("#send")  # auto-send is off: the user sends it
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the second request")
    second = sse.requests[1]["messages"][-1]["content"]
    assert second.startswith("[tool_result add]") and BLOCK_HEAD not in second
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '2'"), "the final answer")
    assert "Final answer: the tool said" in await page.locator(".answer").last.inner_text()

    # A whole round trip read well: the adapter is verified.
    info = await verified_adapter(sidecar_env, "replica-sse")
    assert info["verified"]["host"] == sse.url.split("/")[2]


async def test_ndjson_replica_malformed_deny_and_dom_fallback(
    browser, sidecar_env, tmp_path, site_url, ndjson
):
    add_adapter(sidecar_env, tmp_path, ndjson)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, ndjson)
    await enable(browser, page, tab, tools_host, auto_send=True)

    # Malformed call JSON: a plain message, nothing to run.
    ndjson.replies.append(Reply('Calling <tool_call>{"name": "add", "arguments": {"a": 2,}}</tool_call>'))
    await say(ndjson, page, "Add 2 and 3 please")
    bad = await until(lambda: ui(browser, tab, "[data-bad] [data-role=outcome]"), "the malformed call's card")
    assert "not valid JSON" in bad[0]["text"] and "nothing ran" in bad[0]["text"]
    assert await ui(browser, tab, "[data-act=run]") == []

    # Deny runs nothing.
    ndjson.replies.append(Reply(f"Sure. {CALL}"))
    await say(ndjson, page, "Try again")
    await click(browser, page, tab, "[data-act=deny]")
    denied = await until(
        lambda: ui(browser, tab, "[data-call]:not([data-bad]) [data-role=outcome]"), "the denied card"
    )
    assert denied[0]["text"] == "Denied: nothing ran."
    assert await tools.evaluate("() => window.calls") == 0
    assert len(ndjson.requests) == 2

    # An answer the stream parser cannot read: the call is caught from the page's DOM.
    ndjson.replies.append(Reply(f"In another format: {CALL}", format="other"))
    await say(ndjson, page, "Once more")
    await press_run(browser, page, tab)
    # Auto-send: the result goes back as the next message by itself.
    await until(lambda: asyncio.sleep(0, len(ndjson.requests) == 4), "the result sent back")
    back = ndjson.requests[3]["messages"][-1]["content"]
    assert back.startswith("[tool_result add]") and '"sum":5' in back.replace(" ", "")
    assert await tools.evaluate("() => window.calls") == 1
    assert all(BLOCK_HEAD not in r["messages"][-1]["content"] for r in ndjson.requests[1:])


async def test_a_stale_adapter_says_so_and_offers_the_dom_path(browser, sidecar_env, tmp_path, site_url, sse):
    # The site moved its chat to another endpoint (the adapter still names /api/v0/chat): the
    # message goes out untouched, and the toolbar says plainly that the adapter may be out of
    # date, offers reading the page instead, and that path catches the call and runs it.
    add_adapter(sidecar_env, tmp_path, sse, url="/api/v0/chat")
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host)
    # No request the adapter names will ever come: the page's side may say so after 0.5 s
    # rather than the 8 s it gives a real site (a test-only knob in the isolated world).
    worker = await browser.worker()
    await worker.evaluate(
        """([tabId]) => chrome.scripting.executeScript({ target: { tabId }, func: () => {
          globalThis.webmcpSidecar.chatPage.seenWaitMs = 500;
        } })""",
        [tab],
    )
    sse.replies.append(Reply(f"Let me add those. {CALL}"))
    await say(sse, page, "What is 2 + 3?")
    assert sse.requests[0]["messages"][-1]["content"] == "What is 2 + 3?"  # nothing could be added

    async def warned() -> list[dict[str, Any]]:
        found = await ui(browser, tab, "[data-role=stale]")
        return found if found and "adapter may be out of date" in found[0]["text"] else []

    warning = (await until(warned, "the stale-adapter warning"))[0]["text"]
    assert "no request to /api/v0/chat was seen" in warning
    assert await ui(browser, tab, "[data-act=run]") == []  # nothing was read from the stream
    # The Chat sites view says so beside the site, and that no round trip has worked yet.
    panel = await browser.ctx.new_page()
    await panel.goto(PANEL_URL)
    await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
    await panel.click("#tab-chatsites")
    adapter = panel.locator("article.chat-site[data-name=replica-sse]")
    last = adapter.locator("[data-role=last-round-trip]")
    await expect(last).to_have_text(re.compile("No good round trip yet"), timeout=SLOW)
    await expect(adapter.locator("[data-role=stale]")).to_contain_text("may be out of date here")
    await panel.close()

    # The DOM path: the answer already on the page is read, its call caught and run.
    await click(browser, page, tab, "[data-act=dom-path]")
    await press_run(browser, page, tab)
    has_result = "() => document.getElementById('input').value.includes('[tool_result add]')"
    await until(lambda: page.evaluate(has_result), "the result in the input box")
    assert await tools.evaluate("() => window.calls") == 1
    # From now on the tools go in through the input box, as for a site whose request is not JSON.
    await page.fill("#input", "")
    await click(browser, page, tab, "[data-act=add-to-input]")
    in_box = "() => document.getElementById('input').value.startsWith('[Tools from')"
    await until(lambda: page.evaluate(in_box), "the block in the box")
    await page.focus("#input")
    await page.keyboard.press("End")
    await page.keyboard.insert_text("Now 4 + 5?")
    await page.click("#send")
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the second message")
    second = sse.requests[1]["messages"][-1]["content"]
    assert second.startswith(BLOCK_HEAD) and second.endswith("Now 4 + 5?")


async def test_a_site_not_enabled_is_never_touched(browser, sidecar_env, tmp_path, site_url, sse):
    add_adapter(sidecar_env, tmp_path, sse)
    tools, _ = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)  # the toolbar is offered, tools are off
    sse.replies.append(Reply(f"Calling {CALL}"))
    await say(sse, page, "What is 2 + 3?")
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '1'"), "the answer")
    await asyncio.sleep(1.0)  # time for any card to show up (none may)
    assert sse.requests[0]["messages"][-1]["content"] == "What is 2 + 3?"
    assert await page.evaluate("() => String(window.fetch).includes('[native code]')")
    assert await ui(browser, tab, "[data-call]") == []
    assert await tools.evaluate("() => window.calls") == 0
    # A page no adapter names gets nothing at all.
    assert await tools.evaluate("() => document.querySelector('webmcp-sidecar-chat')") is None


@pytest.mark.skipif(not EVERYTHING.exists(), reason="npm dev dependencies not installed (npm ci)")
async def test_side_panel_view_and_a_local_mcp_server(browser, sidecar_env, tmp_path, sse):
    # server-everything's `add` of older releases is `get-sum` in the one installed here.
    await asyncio.to_thread(add_server, sidecar_env)
    host = add_adapter(sidecar_env, tmp_path, sse)
    page, tab = await open_chat(browser, sse)

    panel = await browser.ctx.new_page()
    await panel.goto(PANEL_URL)
    await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
    await panel.click("#tab-chatsites")
    adapter = panel.locator("article.chat-site[data-name=replica-sse]")
    await expect(adapter.locator("[data-role=verified]")).to_have_text("unverified", timeout=SLOW)
    shipped = panel.locator("article.chat-site[data-name=deepseek]")
    await expect(shipped.locator("[data-role=verified]")).to_have_text("unverified")
    site = adapter.locator(f'.chat-site-site[data-site="{host}"]')
    await expect(site).to_contain_text("open in a tab")

    # The view turns tools on for the site (the open tab gets the hook) and picks the server's
    # get-sum (server-everything's `add` of older releases).
    await site.locator("[data-act=site-enable]").check()
    await until(lambda: page.evaluate("() => !String(window.fetch).includes('[native code]')"), "the hook")
    get_sum = site.locator('[data-act=choose][data-key="mcp:everything/get-sum"]')
    await get_sum.check(timeout=SLOW)
    await expect(get_sum).to_be_checked()

    async def offered() -> bool:
        boxes = await ui(browser, tab, '[data-act=choose][data-key="mcp:everything/get-sum"]')
        return bool(boxes and boxes[0]["checked"])

    await click(browser, page, tab, "[data-act=toggle-open]")  # the toolbar shows the view's choice
    await until(offered, "the toolbar shows get-sum chosen")
    await click(browser, page, tab, "[data-act=toggle-open]")

    sse.replies.append(Reply(f"Adding. {sum_call(2, 3)}"))
    await say(sse, page, "What is 2 + 3?")
    first = sse.requests[0]["messages"][-1]["content"]
    assert first.startswith(BLOCK_HEAD) and "- get-sum:" in first and first.endswith("What is 2 + 3?")
    await run_get_sum_and_send(browser, page, tab)
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the second request")
    second = sse.requests[1]["messages"][-1]["content"]
    assert second.startswith("[tool_result get-sum]") and "The sum of 2 and 3 is 5." in second
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '2'"), "the final answer")
    assert "Final answer: the tool said" in await page.locator(".answer").last.inner_text()

    # The operation log: the server's tool, called by the chat site.
    entries = await until(
        lambda: panel.evaluate(
            "globalThis.sidecarPanel.views.log.entries.filter((e) => e.state === 'ok')"
            ".map((e) => [e.site, e.tool, e.who.kind, e.who.label])"
        ),
        "the call in the log",
    )
    assert entries == [["mcp:everything", "get-sum", "chat", f"Chat: {host}"]]
    # The round trip read well: the adapter is verified, and the view says so by itself.
    await expect(adapter.locator("[data-role=verified]")).to_have_text("verified", timeout=SLOW)
    last_trip = adapter.locator("[data-role=last-round-trip]")
    await expect(last_trip).to_contain_text(f"Last good round trip: {host}, ")

    # A tool allowed in the view runs without a click (read-only tools do not, by themselves: the
    # site's "Run read-only tools without asking" is off).
    allow = site.locator('[data-act=allow][data-key="mcp:everything/get-sum"]')
    await allow.check()
    await expect(allow).to_be_checked()
    sse.replies.append(Reply(f"Again. {sum_call(4, 5)}"))
    await page.fill("#input", "And 4 + 5?")
    await page.click("#send")
    four = "() => document.getElementById('input').value.includes('The sum of 4 and 5 is 9.')"
    await until(lambda: page.evaluate(four), "the allowed call's result, with no click", tries=300)
    assert await ui(browser, tab, "[data-act=run]") == []

    # The editor: the host's problems as it is typed, with line and field; a fixed text saves.
    await adapter.get_by_role("button", name="Edit").click()
    text = panel.locator("#chat-site-text")
    await expect(text).to_have_value(re.compile('"name": "replica-sse"'))
    good = await text.input_value()
    await text.fill(good.replace('"kind": "sse"', '"kind": "xml"'))
    problem = panel.locator('#chat-site-check li[data-field="response.kind"]')
    await expect(problem).to_contain_text("line ")
    await text.fill(good.replace('"Replica sse"', '"Replica SSE"'))
    await expect(panel.locator("#chat-site-check")).to_have_text("No problems.")
    await panel.click("#chat-site-save")
    await expect(panel.locator("#chat-site-save-msg")).to_have_text("Saved.")
    await expect(adapter.locator(".skill-name")).to_have_text("Replica SSE", timeout=SLOW)
    # An edited adapter is unverified again until it works again.
    await expect(adapter.locator("[data-role=verified]")).to_have_text("unverified")


@pytest.mark.skipif(not EVERYTHING.exists(), reason="npm dev dependencies not installed (npm ci)")
@pytest.mark.parametrize("kind", ["blob", "arraybuffer"])
async def test_an_xhr_answer_that_is_not_text_is_read_once_loaded(
    browser, sidecar_env, tmp_path, ndjson, kind
):
    # A page that sets XMLHttpRequest.responseType: responseText throws, so the hook reads the
    # whole `response` at loadend (page/chat/hook.js) and the call in it is caught all the same.
    await asyncio.to_thread(add_server, sidecar_env)
    add_adapter(sidecar_env, tmp_path, ndjson)
    page, tab = await open_chat(browser, ndjson, f"?transport=xhr&xhr-type={kind}")
    await enable(browser, page, tab, keys=("mcp:everything/get-sum",))
    ndjson.replies.append(Reply(f"Adding. {sum_call(4, 5)}", pieces=6))
    await say(ndjson, page, "What is 4 + 5?")
    assert ndjson.requests[0]["messages"][-1]["content"].startswith(BLOCK_HEAD)
    await press_run(browser, page, tab)
    has_result = "() => window.replica.draft.includes('[tool_result get-sum]')"
    await until(lambda: page.evaluate(has_result), "the server's result in the input box", tries=300)
    assert "The sum of 4 and 5 is 9." in await draft(page)
    assert await page.evaluate("() => document.documentElement.dataset.xhrType") == kind
    # The answers were read from the responses, not only from the page's DOM (the fallback that
    # caught calls before): a round trip read well marks the adapter verified.
    await page.click("#send")
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '2'"), "the final answer")
    info = await verified_adapter(sidecar_env, "replica-ndjson")
    assert info["verified"]["host"] == ndjson.url.split("/")[2]


@pytest.mark.skipif(not EVERYTHING.exists(), reason="npm dev dependencies not installed (npm ci)")
async def test_xhr_replica_round_trip_with_a_local_mcp_server(browser, sidecar_env, tmp_path, ndjson):
    # The NDJSON replica's page that talks XMLHttpRequest: its answer is read from responseText
    # as it grows (onprogress), and the hook reads it the same way.
    await asyncio.to_thread(add_server, sidecar_env)
    host = add_adapter(sidecar_env, tmp_path, ndjson)
    page, tab = await open_chat(browser, ndjson, "?transport=xhr")
    await enable(browser, page, tab, keys=("mcp:everything/get-sum",))

    ndjson.replies.append(Reply(f"Adding. {sum_call(2, 3)}", pieces=12))
    await say(ndjson, page, "What is 2 + 3?")
    first = ndjson.requests[0]["messages"][-1]["content"]
    assert first.startswith(BLOCK_HEAD) and "- get-sum:" in first and first.endswith("What is 2 + 3?")
    await press_run(browser, page, tab)
    has_result = "() => window.replica.draft.includes('[tool_result get-sum]')"
    await until(lambda: page.evaluate(has_result), "the server's result in the input box", tries=300)
    assert "The sum of 2 and 3 is 5." in await draft(page)
    await page.click("#send")  # auto-send is off: the user sends it
    await until(lambda: asyncio.sleep(0, len(ndjson.requests) == 2), "the second request")
    second = ndjson.requests[1]["messages"][-1]["content"]
    assert second.startswith("[tool_result get-sum]") and "The sum of 2 and 3 is 5." in second
    assert BLOCK_HEAD not in second
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '2'"), "the final answer")
    assert "Final answer: the tool said" in await page.locator(".answer").last.inner_text()
    # Both messages went over XMLHttpRequest (the page has no other way), through the hook.
    kinds = await page.evaluate(
        "() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/chat'))"
        ".map((e) => e.initiatorType)"
    )
    assert kinds == ["xmlhttprequest", "xmlhttprequest"]
    assert await page.evaluate("() => !String(XMLHttpRequest.prototype.send).includes('[native code]')")
    assert await panel_log(browser) == [["mcp:everything", "get-sum", "chat", f"Chat: {host}"]]

    # "Tell the chat about the tools again": the next message carries the block once more.
    await click(browser, page, tab, "[data-act=toggle-open]")
    await click(browser, page, tab, "[data-act=rearm]")
    await click(browser, page, tab, "[data-act=toggle-open]")
    await say(ndjson, page, "Thanks. And now?")
    third = ndjson.requests[2]["messages"][-1]["content"]
    assert third.startswith(BLOCK_HEAD) and "- get-sum:" in third and third.endswith("Thanks. And now?")


@pytest.mark.parametrize("editor", ["react", "editable"])
async def test_result_sent_through_an_editor_that_keeps_its_own_state(
    browser, sidecar_env, tmp_path, site_url, sse, editor
):
    # The page's message is its own state, updated only from input events (a React-controlled
    # textarea; a contenteditable editor's model); its send button is disabled while that is
    # empty and enabled a moment after a change. A read-only tool the site lets run without
    # asking runs with no click, and its result is sent by itself: all of it must reach the
    # page's state, or the second request would not carry it.
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse, f"?input={editor}")
    await enable(browser, page, tab, tools_host, auto_send=True, auto_run=True)

    sse.replies.append(Reply(f"Let me add those. {CALL}"))
    await say(sse, page, "What is 2 + 3?")
    first = sse.requests[0]["messages"][-1]["content"]
    assert first.startswith(BLOCK_HEAD) and first.endswith("What is 2 + 3?")

    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the result sent back by itself")
    second = sse.requests[1]["messages"][-1]["content"]
    assert second.startswith("[tool_result add]") and '"sum":5' in second.replace(" ", "")
    assert second.rstrip().endswith("[/tool_result]")
    assert await tools.evaluate("() => window.calls") == 1
    done = await ui(browser, tab, "[data-call] [data-role=outcome]")
    assert [d["text"] for d in done] == ["Done: the result is in the input box."]
    assert await ui(browser, tab, "[data-act=run]") == []  # it never waited for a click
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '2'"), "the final answer")
    assert await draft(page) == ""  # sent, not left behind
    host = sse.url.split("/")[2]
    assert await panel_log(browser) == [[tools_host, "add", "chat", f"Chat: {host}"]]


async def test_auto_send_waits_for_the_answer_to_end(browser, sidecar_env, tmp_path, site_url, sse):
    # The model calls the tool at the start of its answer and writes on for a while: the call
    # runs at once (auto-run), but its result is sent only once that answer has ended.
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host, auto_send=True, auto_run=True)
    tail = " ".join(f"and{i}" for i in range(60))
    sse.replies.append(Reply(f"{CALL} While that runs, more words: {tail}.", pieces=60))
    await say(sse, page, "What is 2 + 3?")
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the result sent back by itself", tries=300)
    assert sse.requests[1]["messages"][-1]["content"].startswith("[tool_result add]")
    assert await tools.evaluate("() => window.calls") == 1
    # The answer with the call had been streamed whole before the result went out.
    assert sse.log.index(("end", 0)) < sse.log.index(("request", 1))


async def test_a_site_that_takes_only_trusted_sends_leaves_it_to_the_user(
    browser, sidecar_env, tmp_path, site_url, sse
):
    # Its send button and Enter ignore untrusted events: auto-send cannot send, says so, and the
    # result stays in the box for the user's own click (docs/CHAT_SITES.md).
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse, "?trusted=only")
    await enable(browser, page, tab, tools_host, auto_send=True, auto_run=True)
    sse.replies.append(Reply(f"Let me add those. {CALL}"))
    await say(sse, page, "What is 2 + 3?")

    async def told() -> bool:
        status = await ui(browser, tab, "[data-role=status]")
        return bool(status and "press send" in status[0]["text"])

    await until(told, "the toolbar asks the user to press send")
    assert len(sse.requests) == 1  # nothing was sent by the page's script
    assert "[tool_result add]" in await draft(page)
    await page.click("#send")  # the user's own click
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 2), "the result sent by the user")
    assert sse.requests[1]["messages"][-1]["content"].startswith("[tool_result add]")
    assert await tools.evaluate("() => window.calls") == 1


async def test_only_chosen_tools_and_a_long_result_is_cut(browser, sidecar_env, tmp_path, site_url, sse):
    add_adapter(sidecar_env, tmp_path, sse)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)
    await enable(browser, page, tab, tools_host, auto_run=True)  # `add` only, read-only ones auto-run

    # The chat is told of the chosen tools only; a call of another is refused, nothing runs.
    sse.replies.append(Reply('Checking. <tool_call>{"name": "whoami", "arguments": {}}</tool_call>'))
    await say(sse, page, "Who are you?")
    first = sse.requests[0]["messages"]
    assert len(first) == 1 and first[0]["role"] == "user"  # no system prompt added or replaced
    block = first[0]["content"].split("[End of tools")[0]
    assert "- add:" in block and "whoami" not in block and "- big:" not in block
    refused = await until(lambda: ui(browser, tab, "[data-call] [data-role=outcome]"), "the refused call")
    assert "not one of the tools you chose" in refused[0]["text"] and "nothing ran" in refused[0]["text"]

    # The chosen tools change: the next message tells the chat again, `big` now included.
    await click(browser, page, tab, "[data-act=toggle-open]")
    key = f'[data-act=choose][data-key="site:{tools_host}/big"]'
    await check(browser, page, tab, key, "big chosen")
    await click(browser, page, tab, "[data-act=toggle-open]")
    # `big` changes things (no readOnlyHint): auto-run for read-only tools does not run it.
    sse.replies.append(Reply('Here. <tool_call>{"name": "big", "arguments": {"n": 9000}}</tool_call>'))
    await say(sse, page, "Make it big")
    again = sse.requests[1]["messages"][-1]["content"]
    assert again.startswith(BLOCK_HEAD) and "- big:" in again and "- add:" in again
    await until(lambda: ui(browser, tab, "[data-act=run]"), "the card waits for Run")
    await asyncio.sleep(0.5)
    assert len(await ui(browser, tab, "[data-act=run]")) == 1  # still waiting: nothing ran by itself
    await press_run(browser, page, tab)
    await until(lambda: page.evaluate("() => window.replica.draft.includes('[/tool_result]')"), "the result")
    await page.click("#send")
    await until(lambda: asyncio.sleep(0, len(sse.requests) == 3), "the result sent")
    back = sse.requests[2]["messages"][-1]["content"]
    # Cut at 8 000 characters, with a note saying how much was left out.
    assert back.startswith("[tool_result big]\n" + "x" * 8000 + "\n(The result was cut: 1000 more characters")
    assert back.count("x") == 8000 and back.rstrip().endswith("[/tool_result]")
    assert BLOCK_HEAD not in back

    # A pasted call waits for the click, even of a read-only tool the site lets run by itself.
    await click(browser, page, tab, "[data-act=toggle-open]")
    await click(browser, page, tab, "[data-role=paste]")
    await page.keyboard.insert_text(CALL)
    await click(browser, page, tab, "[data-act=paste-run]")
    await click(browser, page, tab, "[data-act=toggle-open]")
    await until(lambda: ui(browser, tab, "[data-act=run]"), "the pasted call's card")
    await asyncio.sleep(0.5)
    assert await tools.evaluate("() => window.calls") == 0  # not run by itself
    await press_run(browser, page, tab)
    await until(lambda: tools.evaluate("() => window.calls === 1"), "the pasted call run")
    has_result = "() => window.replica.draft.includes('[tool_result add]')"
    await until(lambda: page.evaluate(has_result), "its result")


async def run_get_sum_and_send(browser: Browser, page: Page, tab: int) -> None:
    """Run the card's get-sum call: its result comes into the input box, and is sent."""
    await press_run(browser, page, tab)
    has_result = "() => document.getElementById('input').value.includes('[tool_result get-sum]')"
    await until(lambda: page.evaluate(has_result), "the server's result in the input box", tries=300)
    assert "The sum of 2 and 3 is 5." in await page.input_value("#input")
    await page.click("#send")
