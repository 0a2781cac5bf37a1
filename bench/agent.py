"""The side panel's agent, measured in headless Chromium with the real host and the panel page,
against the local LLM server (tests/support/fake_llm.py, OpenAI streaming wire format).

1. First token: from the fake server writing the model's first streamed token (its wall clock)
   to the panel having it in the chat's DOM (a MutationObserver in the panel page, on
   performance.timeOrigin + performance.now()). Covers the SDK's stream parsing, the agent,
   native messaging to the worker, the worker's relay to the panel port, and the render.
   The panel stamps with Date.now() (the system clock, as the server's time.time(); 1 ms steps):
   performance.timeOrigin is not synced to the system clock and was seen ~15 ms off.
2. Agent overhead per tool step: the host's own time in a step, model and tool excluded (from
   the model's stream ending to the tool call leaving, and from the tool's result to the next
   model request: the loop measures it and reports it in `turn_end`). Next to it, the whole gap
   the model server sees (end of the tool-call stream -> next request, which adds the SDK's
   HTTP, native messaging, the worker, the page) and the tool's own time in the worker.

    .venv/bin/python -m bench.agent [--turns 100]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from tests.support.browser import launch
from tests.support.fake_llm import Calls, FakeLLM, Text

from bench._util import Stats
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.demo.run import SITE_DIR
from webmcp_sidecar.demo.run import serve_site as serve_demo

PANEL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"

OBSERVE = """() => {
  window.__shown = [];
  window.__arrived = [];
  if (!window.__listening) {
    window.__listening = true;
    sidecarPanel.app.port.onMessage.addListener((m) => {
      if (m.type === 'agent_event' && m.event.kind === 'text' && window.__arrivedTurn !== m.turn_id) {
        window.__arrivedTurn = m.turn_id;
        window.__arrived.push(Date.now());
      }
    });
  }
  const list = document.querySelector('.messages');
  let count = list.querySelectorAll('.msg.assistant').length;
  new MutationObserver(() => {
    // A turn's answer is one bubble: a new one is its first token on screen.
    const now = list.querySelectorAll('.msg.assistant').length;
    if (now < count) count = now;  // a new conversation emptied the list
    if (now > count) {
      count = now;
      window.__shown.push(Date.now());  // the system's wall clock, as the server's time.time()
    }
  }).observe(list, { childList: true, subtree: true, characterData: true });
}"""


async def wait_js(page, expr: str, arg: object = None, timeout: float = 30) -> None:
    """Poll a predicate (extension pages' CSP forbids wait_for_function's eval)."""
    async with asyncio.timeout(timeout):
        while not await page.evaluate(expr, arg):  # noqa: ASYNC110 - the page has no event for us
            await asyncio.sleep(0.05)  # timings are stamped in the page: polling slowly disturbs less


async def run(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, serve_demo(SITE_DIR) as url, FakeLLM() as llm:
        env = {"WEBMCP_SIDECAR_SOCKET_DIR": f"{tmp}/sock", "WEBMCP_SIDECAR_LOG_DIR": f"{tmp}/log",
               "WEBMCP_SIDECAR_DATA_DIR": f"{tmp}/data"}
        async with launch(Path(tmp), env, "native") as browser:
            await browser.open(url)
            panel = await browser.ctx.new_page()
            await panel.goto(PANEL)
            await panel.wait_for_selector('#conn[data-state="connected"]', timeout=20_000)
            await wait_js(panel, "() => document.querySelector('#target').textContent.includes('4 tools')")
            await panel.evaluate("""([url]) => sidecarPanel.app.send({type: 'panel_settings', settings: {
                provider: 'custom', providers: {custom: {model: 'fake', base_url: url}}, mode: 'auto',
                max_tool_calls: 10, call_timeout_s: 10, turn_timeout_s: 60}})""", [llm.openai_url])
            await wait_js(panel, "() => sidecarPanel.views.chat.settings?.provider === 'custom'")

            async def turn(text: str) -> None:
                n = await panel.evaluate("sidecarPanel.views.chat.chat.items.length")
                await panel.fill(".composer-input", text)
                await panel.press(".composer-input", "Enter")
                await wait_js(
                    panel,
                    "([n]) => !sidecarPanel.views.chat.chat.running"
                    " && sidecarPanel.views.chat.chat.items.length > n",
                    [n])

            # 1. first token -> panel
            await panel.evaluate(OBSERVE)
            first: list[float] = []
            arrived: list[float] = []
            for i in range(turns + 5):
                if i % 20 == 0:
                    await panel.evaluate("sidecarPanel.app.send({type: 'panel_new'})")
                    await wait_js(panel, "() => sidecarPanel.views.chat.chat.items.length === 0")
                    await panel.evaluate(OBSERVE)
                llm.script(Text("Hello there, this is the answer.", pieces=4, delay=0.002))
                await turn(f"hi {i}")
                shown, got = await panel.evaluate("[window.__shown.at(-1), window.__arrived.at(-1)]")
                req = llm.requests[-1]
                if i >= 5 and req.first_token is not None:  # the first few warm up the SDK and the page
                    first.append(shown - req.first_token * 1000)
                    arrived.append(got - req.first_token * 1000)

            # 2. overhead per tool step
            own: list[float] = []
            gap: list[float] = []
            tool: list[float] = []
            for i in range(turns + 5):
                if i % 20 == 0:
                    await panel.evaluate("sidecarPanel.app.send({type: 'panel_new'})")
                    await wait_js(panel, "() => sidecarPanel.views.chat.chat.items.length === 0")
                llm.script(Calls([("listFlights", {})]), Text("Done."))
                before = len(llm.requests)
                await turn(f"list {i}")
                stats = await panel.evaluate("sidecarPanel.views.chat.chat.stats")
                ms = await panel.evaluate("sidecarPanel.views.log.entries.at(-1).ms")
                a, b = llm.requests[before], llm.requests[before + 1]
                if i >= 5:
                    own.extend(stats["overhead_ms"])
                    tool.append(ms)
                    gap.append((b.received - a.ended) * 1000)

    def row(name: str, xs: list[float]) -> str:
        st = Stats.of_ms(xs)
        return f"| {name} | {st.median:.2f} ms | {st.p99:.2f} ms | {st.n} |"

    print("| measure | median | p99 | n |")
    print("|---|---|---|---|")
    print(row("first streamed token -> shown in the panel", first))
    print(row("agent's own time per tool step (host; model and tool excluded)", own))
    print(row("model server's gap per tool step (tool-call stream end -> next request)", gap))
    print(row("  of which the tool in the worker (listFlights, call -> result)", tool))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=100)
    asyncio.run(run(ap.parse_args().turns))


if __name__ == "__main__":
    main()
