"""What runs in a page (issue 29, docs/PAGE_CODE.md "What runs in a page"), end to end with
the real worker, host and MCP entry, both modes: each mode registers only its own MAIN stub, a
page without tools gets only the stubs (the worker injects nothing into it), a page that
registers tools at document_start gets the rest of the page code once and its tools are listed
and callable, a tool form added after load is found, and a page forging the MAIN world's tool
list over and over gets one install.
"""

from __future__ import annotations

import anyio
import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

INSTALLS = "() => globalThis.sidecar.pageInstalls()"
# Our marks in a tab's isolated world (page/isolated/stub.js, relay.js), by the tab's URL.
MARKS = """async (urls) => {
  const out = [];
  const tabs = await chrome.tabs.query({});
  for (const url of urls) {
    const tab = tabs.find((t) => t.url === url);
    const [r] = await chrome.scripting.executeScript({target: {tabId: tab.id}, func: () => ({
      stub: !!globalThis[Symbol.for('webmcp-sidecar.isolated')],
      relay: !!globalThis[Symbol.for('webmcp-sidecar.relay')],
    })});
    out.push(r.result);
  }
  return out;
}"""

NAVIGATOR_FIRST_READ = """() => {
  const getter = () => String(Object.getOwnPropertyDescriptor(window, 'navigator').get);
  const kind = () => (getter().includes('[native code]') ? 'native' : 'ours');
  const before = kind();
  const mc = navigator.modelContext;
  const same = window.navigator.modelContext === mc;
  return { before, legacy: typeof mc?.registerTool, after: kind(), same };
}"""


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


async def test_a_tool_less_page_gets_only_the_stubs_and_one_with_tools_the_rest_once(browser, mcp, site_url):
    worker = await browser.worker()
    before = await worker.evaluate(INSTALLS)
    article = await browser.open(site_url + "article.html")  # waits for its load
    tools = await browser.open(site_url + "tools.html?label=W")
    s = slug(site_url)
    await mcp.wait_tools(lambda n: f"{s}__add" in n)
    r = await mcp.call(f"{s}__add", {"a": 2, "b": 3})
    assert not r.is_error and r.structured_content == {"sum": 5, "label": "W"}
    after = await worker.evaluate(INSTALLS)
    # The tools page's one install; the article, loaded first, asked for nothing.
    assert after["admitted"] - before["admitted"] == 1
    assert after["refused"] == before["refused"]
    # In each tab's isolated world: the stub, and the relay only where there are tools.
    marks = await worker.evaluate(MARKS, [site_url + "article.html", site_url + "tools.html?label=W"])
    assert marks == [{"stub": True, "relay": False}, {"stub": True, "relay": True}]
    # The article never read `navigator`: the stub's getter stands in the browser's until the
    # first read, which installs the older `navigator.modelContext` and puts the browser's back.
    seen = await article.evaluate(NAVIGATOR_FIRST_READ)
    assert seen == {"before": "ours", "legacy": "function", "after": "native", "same": True}
    await tools.close()
    await article.close()


async def test_a_tool_form_added_after_load_is_found(browser, mcp, site_url):
    page = await browser.open(site_url + "article.html?later")
    s = slug(site_url)
    await page.evaluate("""() => {
      const f = document.createElement('form');
      f.setAttribute('toolname', 'later_form');
      f.setAttribute('tooldescription', 'A form added after the page loaded');
      f.setAttribute('toolautosubmit', '');
      f.innerHTML = '<input name="q"><button>Go</button>';
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        const got = 'got ' + new FormData(f).get('q');
        if (e.agentInvoked && e.respondWith) e.respondWith(Promise.resolve(got));
      });
      document.body.append(f);
    }""")
    await mcp.wait_tools(lambda n: f"{s}__later_form" in n)
    r = await mcp.call(f"{s}__later_form", {"q": "tea"})
    assert not r.is_error, r
    assert "got tea" in str(r.content)
    await page.close()


@pytest.mark.parametrize("mode", ["polyfill"])
async def test_a_page_forging_its_tool_list_a_thousand_times_gets_one_install(browser, mcp, site_url, mode):
    worker = await browser.worker()
    before = await worker.evaluate(INSTALLS)
    page = await browser.open(site_url + "article.html?forger")
    s = slug(site_url)
    # The stub asks for the page code on the MAIN world's first non-empty list; the page forges
    # that list a thousand times (and the relay, once in, validates what it says, as ever).
    await page.evaluate("""() => {
      const detail = JSON.stringify({type: 'tools', tools: [{name: 'forged_x', description: 'x'}]});
      for (let i = 0; i < 1000; i++) dispatchEvent(new CustomEvent('webmcp-sidecar:page', {detail}));
    }""")
    await mcp.wait_tools(lambda n: f"{s}__forged_x" in n)
    with anyio.fail_after(10):
        while (after := await worker.evaluate(INSTALLS))["admitted"] == before["admitted"]:
            await anyio.sleep(0.05)
    assert after["admitted"] - before["admitted"] == 1
    assert after["refused"] == before["refused"]  # the stub asked once
    await page.close()


REGISTERED = "() => chrome.scripting.getRegisteredContentScripts().then((l) => l.map((s) => [s.world, s.js]))"
# What the page's MAIN world got: the polyfill's surface defines the WebMCP interfaces itself.
SURFACE = "() => ({ mc: typeof document.modelContext?.registerTool, event: typeof ToolActivatedEvent })"


async def test_each_mode_registers_only_its_own_main_stub(browser, site_url, mode):
    assert await browser.stubs(ready=True) == mode
    worker = await browser.worker()
    [(world, files)] = await worker.evaluate(REGISTERED)
    files = [f.lstrip("/").removeprefix("page/main/") for f in files]
    assert world == "MAIN" and files[0] == "base.js" and files[-1] == "start.js"
    # Neither mode compiles the other's installer in every document (bench/README.md, "Page load").
    if mode == "native":
        assert "native.js" in files and "surface.js" not in files and "selectors.js" not in files
    else:
        assert "surface.js" in files and "native.js" not in files
    page = await browser.open(site_url + "article.html")
    assert await page.evaluate(SURFACE) == {"mc": "function", "event": "function"}
    await page.close()
