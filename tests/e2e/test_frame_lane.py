"""The frame lane (lib/frame-lanes.js, page/isolated/lane.js, page/bridge/lane.html) end to end:
real Chromium, host and MCP entry, native WebMCP and the polyfill. A frame's calls and results
take a MessageChannel to the worker once the lane is up, and the bridge frame that carried it is
gone; a page that loads the bridge itself and posts ports of its own pairs with nothing, has
them closed at once, and cannot answer a call; a page whose CSP allows no frames still gets its lane
(Chromium lets the extension's own frame in); a page with a lane still goes into the back/forward
cache, and gets a new lane after it.
"""

from __future__ import annotations

import json

import anyio
import pytest

from tests.support.browser import launch
from tests.support.mcp_session import McpSession

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# Counts, in the worker, the calls posted on frame lanes and the results that came back on them,
# from zero (the module's tests share a worker: its hooks go in once and are counted from there).
COUNT_LANE = """() => {
  globalThis.laneCalls = 0;
  globalThis.laneCancels = 0;
  globalThis.laneResults = 0;
  if (!globalThis.lanePost) {
    const post = globalThis.lanePost = MessagePort.prototype.postMessage;
    MessagePort.prototype.postMessage = function (msg, ...rest) {
      if (msg?.type === 'call') globalThis.laneCalls++;
      if (msg?.type === 'cancel') globalThis.laneCancels++;
      return post.call(this, msg, ...rest);
    };
  }
  for (const lane of globalThis.sidecar.frameLanes.values()) {
    if (lane.counted) continue;
    lane.counted = true;
    const on = lane.onmessage;
    lane.onmessage = (ev) => { if (ev.data?.type === 'result') globalThis.laneResults++; on(ev); };
  }
}"""

# What a hostile page does: loads the bridge itself, many times, and posts a port of its own
# with a well-formed nonce into each; then answers "calls" on all of them.
FORGE = """async ({url, n}) => {
  const fakes = [];
  await Promise.all(Array.from({length: n}, (_, i) => new Promise((resolve) => {
    const f = document.createElement('iframe');
    f.src = url;
    f.onload = () => {
      const chan = new MessageChannel();
      chan.port1.onmessage = (ev) => {
        if (ev.data?.type !== 'call') return;
        chan.port1.postMessage({type: 'result', id: ev.data.id, ok: true, value: '"forged"'});
      };
      fakes.push(chan.port1);
      f.contentWindow.postMessage({lane: i.toString(16).padStart(32, '0')}, '*', [chan.port2]);
      // And a stray result, as if for a call the page guessed.
      chan.port1.postMessage({type: 'result', id: 'guess', ok: true, value: '"forged"'});
      resolve();
    };
    document.body.append(f);
  })));
  window.fakes = fakes;
}"""


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


async def lanes(worker) -> int:
    return await worker.evaluate("() => globalThis.sidecar.frameLanes.size")


async def first_call(mcp, s: str) -> None:
    """A document gets its lane on its first call, which takes the runtime port."""
    r = await mcp.call(f"{s}__add", {"a": 0, "b": 0})
    assert not r.is_error and r.structured_content == {"sum": 0, "label": "A"}


async def wait_lanes(worker, n: int) -> None:
    with anyio.fail_after(20):
        while await lanes(worker) < n:
            await anyio.sleep(0.05)


async def with_lane(browser, mcp, url: str, page_name: str = "tools.html"):
    """The page open, its tools listed, no lane until its first call; then the lane up."""
    page = await browser.open(url + page_name)
    s = slug(url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    worker = await browser.worker()
    assert await lanes(worker) == 0  # no call yet: no lane, no bridge frame
    await first_call(mcp, s)
    await wait_lanes(worker, 1)
    return page, s, worker


async def test_calls_and_results_take_the_lane_and_the_bridge_frame_goes(browser, mcp, site_url):
    page, s, worker = await with_lane(browser, mcp, site_url)
    await worker.evaluate(COUNT_LANE)
    for i in range(3):
        r = await mcp.call(f"{s}__add", {"a": i, "b": 40})
        assert not r.is_error and r.structured_content == {"sum": i + 40, "label": "A"}
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneResults]") == [3, 3]
    # A long result comes back in parts on the lane, whole.
    r = await mcp.call(f"{s}__big", {"n": 300_000})
    assert not r.is_error and r.content[0].text == "x" * 300_000
    assert await worker.evaluate("() => globalThis.laneResults") == 4
    # The bridge frame was removed once the lane was up: the page keeps its own DOM.
    assert await page.evaluate("() => document.querySelectorAll('iframe').length") == 0


async def test_a_cancel_follows_its_call_on_the_lane(browser, mcp, site_url):
    page, s, worker = await with_lane(browser, mcp, site_url)  # tools.html has `never` too
    await worker.evaluate(COUNT_LANE)
    with anyio.move_on_after(1):
        await mcp.call(f"{s}__never")
    # The page learns of it: the tool's signal (polyfill) or Chromium's toolcancel event.
    await page.wait_for_function("window.cancelLog.length > 0", timeout=10_000)
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneCancels]") == [1, 1]


async def test_a_page_cannot_forge_a_lane_flood_the_worker_or_answer_a_call(browser, mcp, site_url):
    page, s, worker = await with_lane(browser, mcp, site_url)
    url = await worker.evaluate("() => chrome.runtime.getURL('page/bridge/lane.html')")
    await page.evaluate(FORGE, {"url": url, "n": 40})
    with anyio.fail_after(10):  # the worker has had them all, and closed each at once
        while (await worker.evaluate("() => globalThis.sidecar.lanesWaiting()"))["refused"] < 40:
            await anyio.sleep(0.05)
    waiting = await worker.evaluate("() => globalThis.sidecar.lanesWaiting()")
    assert waiting == {"claimed": 0, "refused": 40}  # nothing kept
    assert await lanes(worker) == 1  # none of the page's ports became a lane
    await worker.evaluate(COUNT_LANE)
    for i in range(3):
        r = await mcp.call(f"{s}__add", {"a": i, "b": 1})
        assert not r.is_error and r.structured_content == {"sum": i + 1, "label": "A"}
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneResults]") == [3, 3]
    assert await page.evaluate("() => window.calls") == 4  # the first call and these three, all the page's


# A page that gets in the way: posts into the bridge first (a capture listener runs before the
# content script's), and fires made-up `load` and `pagehide` events the moment the frame is added.
INTERFERE = """() => {
  window.interfered = 0;
  document.addEventListener('load', (ev) => {
    const f = ev.target;
    if (f.tagName !== 'IFRAME' || !f.src.startsWith('chrome-extension://')) return;
    f.contentWindow.postMessage({lane: '0'.repeat(32)}, '*', [new MessageChannel().port2]);
    window.interfered++;
  }, true);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.tagName !== 'IFRAME') continue;
      n.dispatchEvent(new Event('load'));
      dispatchEvent(new Event('pagehide'));
      window.interfered++;
    }
  }).observe(document.documentElement, {childList: true});
}"""


async def test_a_page_that_gets_in_the_way_of_the_bridge_still_gets_its_lane(browser, mcp, site_url):
    page = await browser.open(site_url + "tools.html")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    worker = await browser.worker()
    refused = "() => globalThis.sidecar.lanesWaiting().refused"  # since the worker started
    before = await worker.evaluate(refused)
    await page.evaluate(INTERFERE)
    await first_call(mcp, s)
    await wait_lanes(worker, 1)
    # The observer once; the capture listener twice (its own made-up load, into about:blank, and
    # the real one, into the bridge, ahead of the content script).
    assert await page.evaluate("() => window.interfered") == 3
    assert await worker.evaluate(refused) - before == 1  # the page's
    await worker.evaluate(COUNT_LANE)
    r = await mcp.call(f"{s}__add", {"a": 1, "b": 2})
    assert not r.is_error and r.structured_content == {"sum": 3, "label": "A"}
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneResults]") == [1, 1]


async def test_a_page_whose_csp_allows_no_frames_still_gets_its_lane(browser, mcp, site_url):
    # Chromium lets the extension's own web-accessible frame in whatever the page's CSP says
    # (156 does), so the lane comes up; a Chromium that did not would leave the calls on the port.
    page, s, worker = await with_lane(browser, mcp, site_url, "csp-tools.html")
    csp = await page.evaluate("() => document.querySelector('meta[http-equiv]')?.content")
    assert csp == "frame-src 'none'"
    await worker.evaluate(COUNT_LANE)
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 3})
    assert not r.is_error and r.structured_content == {"sum": 5, "label": "A"}
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneResults]") == [1, 1]
    assert await page.evaluate("() => [window.calls, document.querySelectorAll('iframe').length]") == [2, 0]


@pytest.mark.fresh_browser  # its own browser, with the bfcache on
async def test_a_page_with_a_lane_goes_into_the_bfcache_and_gets_a_new_lane_after(
    tmp_path, sidecar_env, mode, site_url
):
    async with launch(tmp_path, sidecar_env, mode, bfcache=True) as browser, McpSession(sidecar_env) as mcp:
        await bfcache_round(browser, mcp, site_url)


async def bfcache_round(browser, mcp, site_url: str) -> None:
    page, s, worker = await with_lane(browser, mcp, site_url)
    await page.evaluate(
        "window.events = []; addEventListener('pageshow', (e) => e.persisted && events.push('restored'))"
    )
    await page.goto(site_url + "nav-result.html")
    with anyio.fail_after(10):  # the page's port closed on the way in, and its lane with it
        while await lanes(worker):
            await anyio.sleep(0.05)
    await page.go_back(wait_until="commit")
    await page.wait_for_function("window.events && window.events.includes('restored')", timeout=10_000)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    await first_call(mcp, s)  # on the new port; it asks for a new lane
    await wait_lanes(worker, 1)
    await worker.evaluate(COUNT_LANE)
    r = await mcp.call(f"{s}__add", {"a": 5, "b": 5})
    assert not r.is_error and r.structured_content == {"sum": 10, "label": "A"}
    assert await worker.evaluate("() => [globalThis.laneCalls, globalThis.laneResults]") == [1, 1]


@pytest.mark.fresh_browser  # its own browser, with or without the bfcache
@pytest.mark.parametrize("bfcache", [False, True], ids=["no-bfcache", "bfcache"])
async def test_a_form_that_navigates_answers_from_the_next_page_when_its_call_took_the_lane(
    tmp_path, sidecar_env, mode, site_url, bfcache
):
    """The form's notice that its document is going travels on the port, which then closes:
    the call follows to the next page, as it does without a lane."""
    async with (
        launch(tmp_path, sidecar_env, mode, bfcache=bfcache) as browser,
        McpSession(sidecar_env) as mcp,
    ):
        page = await browser.open(site_url + "nav-form.html?ping")
        s = slug(site_url)
        await mcp.wait_tools(lambda n: f"{s}__ping" in n and f"{s}__book_table" in n)
        worker = await browser.worker()
        r = await mcp.call(f"{s}__ping")
        assert not r.is_error and r.content[0].text == "pong"
        await wait_lanes(worker, 1)
        await worker.evaluate(COUNT_LANE)
        r = await mcp.call(f"{s}__book_table", {"who": "Lane", "guests": 3})
        assert not r.is_error, r.content[0].text
        got = r.structured_content or json.loads(r.content[0].text)
        assert "nav-result.html?who=Lane&guests=3" in got["url"] and got["title"] == "Reservation received"
        assert await worker.evaluate("() => globalThis.laneCalls") == 1
        await page.wait_for_url(got["url"])
