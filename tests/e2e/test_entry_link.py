"""The entry link (mcp_server/entry_link.py, background/entry-links.js) end to end: real
Chromium, host and MCP entry, both modes. Site calls and their results go between the entry and
the worker with no host in between; a page cannot open the entry's port, even knowing its URL; a
link that drops answers the call it held and comes back; with the link off, calls take the host
(and the native port) as before.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from pathlib import Path

import anyio
import pytest

from tests.support.links import PAGE_WS_PROBE
from tests.support.mcp_session import ENTRY_WITHOUT_LINK, McpSession
from webmcp_sidecar.mcp_server.entry_link import LINK_DROPPED

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]

# Counts the results the worker sends over entry links and over the native port to the host.
COUNT_RESULTS = """() => {
  globalThis.sent = { entry: 0, host: 0 };
  // The results that go back by an open entry link's reply (background/reply.js).
  for (const linked of globalThis.sidecar.entryLinks.links.values()) {
    const post = linked.reply.post;
    linked.reply.post = (msg) => {
      const sent = post(msg);
      if (sent) globalThis.sent.entry++;
      return sent;
    };
  }
  const port = globalThis.sidecar.nativeLink.port;
  const postMessage = port.postMessage.bind(port);
  port.postMessage = (msg) => {
    if (msg?.type === 'result') globalThis.sent.host++;
    return postMessage(msg);
  };
}"""
SENT = "() => globalThis.sent"
LINKS = "() => globalThis.sidecar.status().entryLinks"


def host_log(env: dict[str, str]) -> str:
    logs = Path(env["WEBMCP_SIDECAR_LOG_DIR"]).glob("*.log*")
    return "\n".join(p.read_text(errors="replace") for p in logs)


async def until_pending(worker, ok) -> None:
    """Until the worker's count of site calls still out satisfies `ok`."""
    with anyio.fail_after(10):
        while not ok(await worker.evaluate("() => globalThis.sidecar.pending.size")):
            await anyio.sleep(0.02)


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


async def wait_open(worker) -> dict[str, str]:
    with anyio.fail_after(20):
        while "open" not in (links := await worker.evaluate(LINKS)).values():
            await anyio.sleep(0.05)
    return links


async def test_calls_take_the_entry_link_and_a_page_cannot_open_it(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    worker = await browser.worker()
    (conn,) = (await wait_open(worker)).keys()
    await worker.evaluate(COUNT_RESULTS)
    for i in range(3):
        r = await mcp.call(f"{s}__add", {"a": i, "b": 40})
        assert not r.is_error and r.structured_content == {"sum": i + 40, "label": "A"}
    assert await worker.evaluate(SENT) == {"entry": 3, "host": 0}

    # The page learns the link's URL (token and all) and still cannot open it: its Origin is
    # not the extension's. Nor with a made-up token.
    url = await worker.evaluate("(c) => globalThis.sidecar.entryLinks.links.get(c).link.ws.url", conn)
    assert url.startswith("ws://127.0.0.1:")
    assert await page.evaluate(PAGE_WS_PROBE, url) == "closed 1006"
    assert await page.evaluate(PAGE_WS_PROBE, url.rsplit("/", 1)[0] + "/" + "A" * 43) == "closed 1006"
    # The link was not disturbed.
    assert await worker.evaluate(LINKS) == {conn: "open"}
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 1})
    assert not r.is_error and r.structured_content == {"sum": 2, "label": "A"}
    assert await worker.evaluate(SENT) == {"entry": 4, "host": 0}


# Counts the chunks the worker sends over the native port to the host.
COUNT_CHUNKS = """() => {
  globalThis.nativeChunks = 0;
  const port = globalThis.sidecar.nativeLink.port;
  const postMessage = port.postMessage.bind(port);
  port.postMessage = (msg) => {
    if (msg?.type === 'chunk') globalThis.nativeChunks++;
    return postMessage(msg);
  };
}"""


async def test_a_long_result_comes_back_whole_on_the_entry_link(browser, mcp, site_url):
    """A 5 MiB result takes the way its call went: in pieces on the entry link, none of them on
    the native port (mcp_server/entry_link.py joins them)."""
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__big" in n)
    worker = await browser.worker()
    await wait_open(worker)
    await worker.evaluate(COUNT_RESULTS)
    await worker.evaluate(COUNT_CHUNKS)
    n = 5 * 1024 * 1024
    r = await mcp.call(f"{s}__big", {"n": n})
    assert not r.is_error and r.content[0].text == "x" * n
    r = await mcp.call(f"{s}__big", {"n": 200_000, "ch": "\U0001f600é"})
    assert not r.is_error and r.content[0].text == "\U0001f600é" * 200_000
    assert await worker.evaluate(SENT) == {"entry": 2, "host": 0}
    assert await worker.evaluate("() => globalThis.nativeChunks") == 0


async def test_a_dropped_entry_link_ends_the_call_it_held_and_comes_back(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__never" in n)
    worker = await browser.worker()
    (conn,) = (await wait_open(worker)).keys()
    async with anyio.create_task_group() as tg:
        results = []

        async def call_never() -> None:
            results.append(await mcp.call(f"{s}__never"))

        tg.start_soon(call_never)
        await until_pending(worker, lambda n: n > 0)
        # The worker's end closes: it stops the call the link brought, and the entry answers it.
        await worker.evaluate("(c) => globalThis.sidecar.entryLinks.close(c)", conn)
    (r,) = results
    assert r.is_error
    # Which comes first is a race: the entry seeing the drop, or the page's own `cancelled`.
    text = r.content[0].text
    assert LINK_DROPPED in text or "cancelled" in text.lower(), text
    await until_pending(worker, lambda n: n == 0)  # the page was told to stop
    await wait_open(worker)  # the entry offered it again
    await worker.evaluate(COUNT_RESULTS)
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 2})
    assert not r.is_error and r.structured_content == {"sum": 4, "label": "A"}
    assert await worker.evaluate(SENT) == {"entry": 1, "host": 0}


async def test_an_entry_killed_mid_call_has_its_call_stopped_by_the_worker(browser, sidecar_env, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    worker = await browser.worker()
    async with McpSession(sidecar_env) as mcp:
        await mcp.wait_tools(lambda n: f"{s}__never" in n)
        await wait_open(worker)
        # The entry's pid, as the host logged it at its hello.
        found = re.findall(r"MCP entry c\d+ connected \(.*, pid (\d+)\)", host_log(sidecar_env))
        (pid,) = {int(p) for p in found}
        async with anyio.create_task_group() as tg:

            async def call_never() -> None:
                with contextlib.suppress(Exception):
                    await mcp.call(f"{s}__never")

            tg.start_soon(call_never)
            await until_pending(worker, lambda n: n > 0)
            # No goodbye, no cancel: only its link closing tells the worker.
            os.kill(pid, signal.SIGKILL)
            await until_pending(worker, lambda n: n == 0)
            assert await worker.evaluate(LINKS) == {}
            tg.cancel_scope.cancel()


async def test_with_the_entry_link_off_calls_take_the_host(browser, sidecar_env, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    async with McpSession(sidecar_env, command=ENTRY_WITHOUT_LINK) as mcp:
        await mcp.wait_tools(lambda n: f"{s}__add" in n)
        worker = await browser.worker()
        await worker.evaluate(COUNT_RESULTS)
        for i in range(2):
            r = await mcp.call(f"{s}__add", {"a": i, "b": 2})
            assert not r.is_error and r.structured_content == {"sum": i + 2, "label": "A"}
        assert await worker.evaluate(SENT) == {"entry": 0, "host": 2}
        assert await worker.evaluate(LINKS) == {}
