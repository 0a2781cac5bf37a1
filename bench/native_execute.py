"""What Chromium's own `executeTool` costs in native mode, with nothing of ours in the page: a
bare page with one tool (`add`), no extension. Timed inside the page, 5 us clock (the page is
cross-origin isolated): back to back; with a `signal` (our content script passes one); after a
2 ms idle gap (a chain's call finds the page idle); and from an isolated world made with
`Page.createIsolatedWorld` (where our content script calls it). Series interleaved in rounds.

    .venv/bin/python -m bench.native_execute --calls 200 --rounds 4

bench/README.md, "The entry link", reads these against the chain's native/polyfill gap.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from playwright.async_api import async_playwright

from bench._util import Stats, stats_row, table
from webmcp_sidecar.demo.chromium import BASE_FLAGS, find_chromium

URL = "http://localhost:9/"  # routed, never fetched; localhost is a secure context
HTML = """<!doctype html><script>
document.modelContext.registerTool({ name: "add", description: "Add", inputSchema: { type: "object" },
  execute: ({ a, b }) => ({ sum: a + b }) });
</script>"""
# (n, gap ms, with a signal) -> the ms of each call, as JSON text.
RUN = """(async ([n, gap, withSignal]) => {
  const mc = document.modelContext;
  const tool = (await mc.getTools()).find((t) => t.name === "add");
  const ms = [];
  for (let i = 0; i < n; i++) {
    if (gap) await new Promise((r) => setTimeout(r, gap));
    const opts = withSignal ? { signal: new AbortController().signal } : undefined;
    const t = performance.now();
    await mc.executeTool(tool, { a: i, b: 1 }, opts);
    ms.push(performance.now() - t);
  }
  return JSON.stringify(ms);
})(%s)"""
SERIES = {
    "main world, back to back": ((0, False), False),
    "main world, with a signal": ((0, True), False),
    "main world, after 2 ms idle": ((2, False), False),
    "isolated world, with a signal": ((0, True), True),
}


async def run(args: argparse.Namespace) -> dict[str, Stats]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), headless=True,
                                          args=[*BASE_FLAGS, "--no-sandbox", "--enable-features=WebMCP"])
        try:
            page = await browser.new_page()
            isolated = {"Cross-Origin-Opener-Policy": "same-origin",
                        "Cross-Origin-Embedder-Policy": "require-corp"}
            await page.route(URL, lambda r: r.fulfill(body=HTML, content_type="text/html", headers=isolated))
            await page.goto(URL)
            cdp = await page.context.new_cdp_session(page)
            frame_id = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
            world = await cdp.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "bench"})

            async def series(n: int, gap: int, signal: bool, in_isolated: bool) -> list[float]:
                params: dict[str, object] = {"expression": RUN % json.dumps([n, gap, signal]),
                                             "awaitPromise": True, "returnByValue": True}
                if in_isolated:
                    params["contextId"] = world["executionContextId"]
                r = await cdp.send("Runtime.evaluate", params)
                if "exceptionDetails" in r:
                    raise RuntimeError(r["exceptionDetails"])
                return json.loads(r["result"]["value"])

            ms: dict[str, list[float]] = {name: [] for name in SERIES}
            for (gap, signal), in_isolated in SERIES.values():
                await series(args.warmup, gap, signal, in_isolated)
            for _ in range(args.rounds):
                for name, ((gap, signal), in_isolated) in SERIES.items():
                    ms[name] += await series(args.calls, gap, signal, in_isolated)
        finally:
            await browser.close()
    return {name: Stats.of_ms(v) for name, v in ms.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=200, help="calls per series per round")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=50)
    stats = asyncio.run(run(ap.parse_args()))
    header = ["", "n", "median", "p90", "p99", "max"]
    print(table("Chromium's executeTool alone (native, no extension), ms", header,
                [stats_row(name, s) for name, s in stats.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
