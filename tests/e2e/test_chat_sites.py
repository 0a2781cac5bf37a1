"""AI chat websites end to end (issue 13, docs/CHAT_SITES.md), in headless Chromium with the real
host: two local replica chat sites (tests/support/chat_replica.py: one streaming SSE in
OpenAI-like deltas, one NDJSON), each with its adapter added with the CLI, and a scripted model
that answers with a tool call, then with a final answer once it sees the result. The tool is
the `add` page tool of an open local WebMCP page. The toolbar and cards live in a closed shadow
root: the test finds a button's place through the extension's isolated world and clicks it with
real (trusted) input, as a user would."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from tests.support.browser import Browser
from tests.support.chat_replica import Replica, Reply, serve_replica

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CALL = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>'
BLOCK_HEAD = "[Tools from WebMCP Sidecar"


@pytest.fixture
def mode() -> str:
    return "polyfill"  # the chat path does not depend on the page's WebMCP flavour


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


def add_adapter(env: dict[str, str], tmp_path: Path, replica: Replica) -> str:
    host = replica.url.split("/")[2]
    text_path = "choices[0].delta.content" if replica.kind == "sse" else "message.content"
    doc = {
        "name": f"replica-{replica.kind}",
        "title": f"Replica {replica.kind}",
        "version": "1.0.0",
        "source": "tests/support/chat_replica.py (OpenAI-like SSE / Ollama-like NDJSON)",
        "hostnames": [host],
        "request": {"url": "/api/chat", "method": "POST", "message_path": "messages[-1].content"},
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
              return { text: el.textContent, x: b.x + b.width / 2, y: b.y + b.height / 2, checked };
            });
          } });
          return r?.result ?? [];
        }""",
        [tab, selector],
    )


async def click(browser: Browser, page: Page, tab: int, selector: str) -> None:
    found = await until(lambda: ui(browser, tab, selector), f"{selector} in the toolbar")
    await page.mouse.click(found[0]["x"], found[0]["y"])


async def open_chat(browser: Browser, replica: Replica) -> tuple[Page, int]:
    page = await browser.open(replica.url)
    tab = await tab_of(browser, page.url)
    await until(lambda: ui(browser, tab, "[data-act=enable]"), "the toolbar on the chat page")
    return page, tab


async def enable(browser: Browser, page: Page, tab: int, tools_host: str, auto_send: bool = False) -> None:
    await click(browser, page, tab, "[data-act=enable]")
    await until(lambda: page.evaluate("() => !String(window.fetch).includes('[native code]')"), "the hook")
    await click(browser, page, tab, "[data-act=toggle-open]")
    await click(browser, page, tab, f'[data-act=choose][data-key="site:{tools_host}/add"]')

    async def chosen() -> bool:
        boxes = await ui(browser, tab, f'[data-act=choose][data-key="site:{tools_host}/add"]')
        return bool(boxes and boxes[0]["checked"])

    await until(chosen, "add chosen")
    if auto_send:
        await click(browser, page, tab, "[data-act=autosend]")

        async def sending() -> bool:
            box = await ui(browser, tab, "[data-act=autosend]")
            return bool(box and box[0]["checked"])

        await until(sending, "auto-send on")
    await click(browser, page, tab, "[data-act=toggle-open]")  # folded again: the cards show


async def say(page: Page, text: str) -> None:
    await page.fill("#input", text)
    await page.click("#send")


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
    await say(page, "What is 2 + 3?")
    # The instruction block reached the replica, in front of the user's message.
    first = sse.requests[0]["messages"][-1]["content"]
    assert first.startswith(BLOCK_HEAD) and first.endswith("What is 2 + 3?")
    assert "- add: Add two numbers (read-only)" in first and '"a":{"type":"number"}' in first.replace(" ", "")

    await click(browser, page, tab, "[data-act=run]")
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
    async def verified() -> list[dict[str, Any]]:
        listed = json.loads(cli(sidecar_env, "list", "--json").stdout)
        return [i for i in listed if i["name"] == "replica-sse" and i["verified"]]

    infos = await until(verified, "replica-sse verified")
    assert infos[0]["verified"]["host"] == sse.url.split("/")[2]


async def test_ndjson_replica_malformed_deny_and_dom_fallback(
    browser, sidecar_env, tmp_path, site_url, ndjson
):
    add_adapter(sidecar_env, tmp_path, ndjson)
    tools, tools_host = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, ndjson)
    await enable(browser, page, tab, tools_host, auto_send=True)

    # Malformed call JSON: a plain message, nothing to run.
    ndjson.replies.append(Reply('Calling <tool_call>{"name": "add", "arguments": {"a": 2,}}</tool_call>'))
    await say(page, "Add 2 and 3 please")
    bad = await until(lambda: ui(browser, tab, "[data-bad] [data-role=outcome]"), "the malformed call's card")
    assert "not valid JSON" in bad[0]["text"] and "nothing ran" in bad[0]["text"]
    assert await ui(browser, tab, "[data-act=run]") == []

    # Deny runs nothing.
    ndjson.replies.append(Reply(f"Sure. {CALL}"))
    await say(page, "Try again")
    await click(browser, page, tab, "[data-act=deny]")
    denied = await until(
        lambda: ui(browser, tab, "[data-call]:not([data-bad]) [data-role=outcome]"), "the denied card"
    )
    assert denied[0]["text"] == "Denied: nothing ran."
    assert await tools.evaluate("() => window.calls") == 0
    assert len(ndjson.requests) == 2

    # An answer the stream parser cannot read: the call is caught from the page's DOM.
    ndjson.replies.append(Reply(f"In another format: {CALL}", format="other"))
    await say(page, "Once more")
    await click(browser, page, tab, "[data-act=run]")
    # Auto-send: the result goes back as the next message by itself.
    await until(lambda: asyncio.sleep(0, len(ndjson.requests) == 4), "the result sent back")
    back = ndjson.requests[3]["messages"][-1]["content"]
    assert back.startswith("[tool_result add]") and '"sum":5' in back.replace(" ", "")
    assert await tools.evaluate("() => window.calls") == 1
    assert all(BLOCK_HEAD not in r["messages"][-1]["content"] for r in ndjson.requests[1:])


async def test_a_site_not_enabled_is_never_touched(browser, sidecar_env, tmp_path, site_url, sse):
    add_adapter(sidecar_env, tmp_path, sse)
    tools, _ = await tools_page(browser, site_url)
    page, tab = await open_chat(browser, sse)  # the toolbar is offered, tools are off
    sse.replies.append(Reply(f"Calling {CALL}"))
    await say(page, "What is 2 + 3?")
    await until(lambda: page.evaluate("() => document.body.dataset.answers === '1'"), "the answer")
    await asyncio.sleep(1.0)  # time for any card to show up (none may)
    assert sse.requests[0]["messages"][-1]["content"] == "What is 2 + 3?"
    assert await page.evaluate("() => String(window.fetch).includes('[native code]')")
    assert await ui(browser, tab, "[data-call]") == []
    assert await tools.evaluate("() => window.calls") == 0
    # A page no adapter names gets nothing at all.
    assert await tools.evaluate("() => document.querySelector('webmcp-sidecar-chat')") is None
