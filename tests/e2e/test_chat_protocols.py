"""Every shipped chat-site adapter on a replica of its site's current protocol (issue 33,
docs/CHAT_SITES.md): tests/support/chat_protocols.py serves each site's endpoint and stream format,
the replica page (`?protocol=`) sends that site's request, and the shipped adapter's own `request`
and `response` read it, end to end with a local MCP server's tool. Its own module (the helpers are
test_chat_sites.py's) so the two test workers share the chat tests. Polyfill mode, as there.
The tests share one browser and host (tests/e2e/conftest.py), with the local server added once;
each leaves its site as it found it."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_chat_sites import (
    BLOCK_HEAD,
    BUILTIN,
    EVERYTHING,
    add_server,
    cli,
    click,
    enable,
    open_chat,
    run_get_sum_and_send,
    say,
    sum_call,
    ui,
    until,
    verified_adapter,
)
from tests.support.browser import Browser
from tests.support.chat_protocols import PROTOCOLS
from tests.support.chat_replica import Replica, Reply, serve_replica

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def mode() -> str:
    return "polyfill"  # as test_chat_sites.py: the chat path does not depend on it


@pytest.fixture(scope="module")
def module_envs(module_envs: Any) -> Any:
    """The conftest's, its one environment (the tests share a browser and host) with a config
    dir of the module's, where the servers CLI adds the local MCP server once, before the
    browser starts: each adapter has a name and each replica a host of its own."""
    env = module_envs.get("polyfill")
    env["WEBMCP_SIDECAR_CONFIG_DIR"] = str(module_envs.base / "config")
    if EVERYTHING.exists():
        add_server(env)
    return module_envs


@pytest.fixture(autouse=True)
async def _sites_left_as_found(browser: Browser, sidecar_env: dict[str, str]) -> AsyncIterator[None]:
    """The tests share a host and browser: each removes the adapter it added (the CLI's
    `remove`) and turns its chat site's prefs off, should a later replica get this one's port."""
    yield
    for info in json.loads(cli(sidecar_env, "list", "--json").stdout):
        if info["origin"].startswith("user"):
            cli(sidecar_env, "remove", info["name"])
    worker = await browser.worker()
    await worker.evaluate("""async () => {
      const cs = globalThis.sidecar.chatSites;
      for (const site of Object.keys(cs.prefs)) {
        await cs.setPrefs(site, { enabled: false, autoRun: false, autoSend: false, chosen: [], allowed: [] });
      }
    }""")


def shipped_on_replica(env: dict[str, str], tmp_path: Path, name: str, replica: Replica) -> str:
    """The shipped adapter `name`, its request and response as shipped, named for the replica's
    host (and the replica page's elements), added as the user's `<name>-replica`."""
    doc = json.loads((BUILTIN / f"{name}.chat.json").read_text())
    host = replica.url.split("/")[2]
    # A request the live site sends to another host (Tongyi's) goes to the replica's own origin,
    # on the same path.
    doc["request"]["url"] = re.sub(r"^https://[^/]+", "", doc["request"]["url"])
    doc.update(
        name=f"{name}-replica",
        hostnames=[host],
        selectors={"input": "#input", "send": "#send", "last_answer": ".answer"},
    )
    f = tmp_path / f"{name}-replica.chat.json"
    f.write_text(json.dumps(doc))
    cli(env, "add", str(f))
    return host


@pytest.mark.skipif(not EVERYTHING.exists(), reason="npm dev dependencies not installed (npm ci)")
@pytest.mark.parametrize("site", sorted(PROTOCOLS))
async def test_each_shipped_adapter_round_trips_on_a_replica_of_its_protocol(
    browser, sidecar_env, tmp_path, site
):
    # A replica speaking the site's current protocol (tests/support/chat_protocols.py: DeepSeek's op stream,
    # ChatGPT's delta encoding on /backend-anon/, Doubao's named events, Qwen's phases, Kimi's Connect-RPC
    # frames, Claude's content blocks, Tongyi's whole-answer events; Gemini's StreamGenerate under /u/1/, read
    # from the page), read with the shipped adapter's own request and response: the block goes into the site's
    # request (Kimi's binary envelope rewritten), the call at the answer's very first token is caught from the
    # stream (the page shows no text to read, but for Gemini), the thinking's call of another tool is not, the
    # local server's tool runs, its result goes back, and the next answer reads well: the adapter is verified.
    with serve_replica(site) as replica:
        shipped_on_replica(sidecar_env, tmp_path, site, replica)
        page, tab = await open_chat(browser, replica, f"?protocol={site}")
        await enable(browser, page, tab, keys=("mcp:everything/get-sum",))
        replica.replies.append(Reply(f"{sum_call(2, 3)} Then I wait.", pieces=8))
        if site == "gemini":
            # Its request is a form, not JSON: the tools go in through the input box, and the
            # answer is read from the page (under /u/1/, another signed-in account).
            await click(browser, page, tab, "[data-act=add-to-input]")
            in_box = "() => document.getElementById('input').value.startsWith('[Tools from')"
            await until(lambda: page.evaluate(in_box), "the block in the box")
            await page.focus("#input")
            await page.keyboard.press("End")
            await page.keyboard.insert_text("What is 2 + 3?")
            sent = len(replica.requests)
            await page.click("#send")
            await until(lambda: asyncio.sleep(0, len(replica.requests) > sent), "the message at the replica")
        else:
            await say(replica, page, "What is 2 + 3?")
        first = replica.messages[0]
        assert first.startswith(BLOCK_HEAD) and "- get-sum:" in first and first.endswith("What is 2 + 3?")
        await run_get_sum_and_send(browser, page, tab)
        await until(lambda: asyncio.sleep(0, len(replica.messages) == 2), "the second request")
        assert (
            replica.messages[1].startswith("[tool_result get-sum]") and BLOCK_HEAD not in replica.messages[1]
        )
        await verified_adapter(sidecar_env, f"{site}-replica")
        outcomes = [o["text"] for o in await ui(browser, tab, "[data-call] [data-role=outcome]")]
        assert outcomes == ["Done: the result is in the input box."]  # no card for the thinking's call
        assert await ui(browser, tab, "[data-role=stale]:not([hidden])") == []
        health = await ui(browser, tab, "[data-role=health]:not([hidden])")
        assert health and health[0]["text"] == "working"
