"""The fast link (native_host/fast_link.py, background/fast-link.js) end to end: real Chromium,
host and MCP entry. Site calls and results take the loopback WebSocket the host offers; a page
cannot open it, even knowing its URL; a link that drops answers the call it held and comes back;
with the link off, the native port carries everything as before. The MCP entry here has its own
link off (its calls then take the host, and so the fast link: test_entry_link.py has the rest).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.support.browser import launch
from tests.support.links import PAGE_WS_PROBE
from tests.support.mcp_session import ENTRY_WITHOUT_LINK, McpSession
from webmcp_sidecar.native_host.app import LINK_DROPPED
from webmcp_sidecar.native_host.fast_link import FAST_LINK_ENV

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]

# Counts the results the worker sends over the fast link (its postText, wrapped).
COUNT_RESULTS = """() => {
  const fast = globalThis.sidecar.fastLink;
  const post = fast.postText.bind(fast);
  globalThis.fastResults = 0;
  fast.postText = (text) => {
    const sent = post(text);
    if (sent && JSON.parse(text).type === 'result') globalThis.fastResults++;
    return sent;
  };
}"""


@pytest.fixture
async def mcp(sidecar_env, browser):
    async with McpSession(sidecar_env, command=ENTRY_WITHOUT_LINK) as session:
        yield session


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


def host_log(env: dict[str, str]) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in Path(env["WEBMCP_SIDECAR_LOG_DIR"]).glob("*.log*")
    )


async def fast_link_state(worker) -> str:
    return await worker.evaluate("() => globalThis.sidecar.status().fastLink")


async def wait_open(worker) -> None:
    with anyio.fail_after(20):
        while await fast_link_state(worker) != "open":
            await anyio.sleep(0.05)


async def test_calls_take_the_fast_link_and_a_page_cannot_open_it(browser, mcp, site_url, sidecar_env):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    worker = await browser.worker()
    await wait_open(worker)
    await worker.evaluate(COUNT_RESULTS)
    for i in range(3):
        r = await mcp.call(f"{s}__add", {"a": i, "b": 40})
        assert not r.is_error and r.structured_content == {"sum": i + 40, "label": "A"}
    assert await worker.evaluate("() => globalThis.fastResults") == 3

    # The page learns the link's URL (token and all), and still cannot open it: its Origin is
    # not the extension's. Nor can it with a made-up token.
    url = await worker.evaluate("() => globalThis.sidecar.fastLink.ws.url")
    assert url.startswith("ws://127.0.0.1:")
    assert await page.evaluate(PAGE_WS_PROBE, url) == "closed 1006"
    wrong = url.rsplit("/", 1)[0] + "/" + "A" * 43
    assert await page.evaluate(PAGE_WS_PROBE, wrong) == "closed 1006"
    with anyio.fail_after(10):
        while "refused a connection to the fast link" not in host_log(sidecar_env):
            await anyio.sleep(0.05)
    assert f"Origin: {site_url.rstrip('/')}" in host_log(sidecar_env)
    # The extension's own link was not disturbed.
    assert await fast_link_state(worker) == "open"
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 1})
    assert not r.is_error and r.structured_content == {"sum": 2, "label": "A"}
    assert await worker.evaluate("() => globalThis.fastResults") == 4
    # The token is nowhere in the host's log.
    assert url.rsplit("/", 1)[1] not in host_log(sidecar_env)


async def test_a_dropped_link_answers_the_call_it_held_and_comes_back(browser, mcp, site_url):
    await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__never" in n)
    worker = await browser.worker()
    await wait_open(worker)
    async with anyio.create_task_group() as tg:
        results = []

        async def call_never() -> None:
            results.append(await mcp.call(f"{s}__never"))

        tg.start_soon(call_never)
        with anyio.fail_after(10):
            while not await worker.evaluate("() => globalThis.sidecar.pending.size"):
                await anyio.sleep(0.02)
        await worker.evaluate("() => globalThis.sidecar.fastLink.close()")
    (r,) = results
    assert r.is_error and LINK_DROPPED in r.content[0].text
    await wait_open(worker)  # the host offered it again
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 2})
    assert not r.is_error and r.structured_content == {"sum": 4, "label": "A"}


async def test_with_the_link_off_the_native_port_carries_the_calls(tmp_path, sidecar_env, mode, site_url):
    async with launch(tmp_path, {**sidecar_env, FAST_LINK_ENV: "0"}, mode) as browser:
        await browser.open(site_url + "tools.html")
        async with McpSession(sidecar_env, command=ENTRY_WITHOUT_LINK) as mcp:
            s = slug(site_url)
            await mcp.wait_tools(lambda n: f"{s}__add" in n)
            worker = await browser.worker()
            for i in range(3):
                r = await mcp.call(f"{s}__add", {"a": i, "b": 2})
                assert not r.is_error and r.structured_content == {"sum": i + 2, "label": "A"}
            assert await fast_link_state(worker) == "closed"
    assert "fast link open" not in host_log(sidecar_env)
