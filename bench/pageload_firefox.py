"""What the extension costs a page in Firefox ESR (issue 32, beside bench/pageload.py's Chromium):
three Firefoxes driven interleaved (round by round, page by page, browser by browser): bare; the
*floor* (an extension with one empty MAIN-world and one empty isolated-world content script at
document_start in every frame, bench/pageload.py's, given a gecko id); and ours, its host
connected (the polyfill: Firefox has no WebMCP). The pages are bench/pageload.py's.

Per load, in a fresh tab (WebDriver BiDi, `wait: complete`): DOMContentLoaded and load from the
navigation's start (navigation timing). Firefox's BiDi gives no heap or profiler: those are
Chromium-only numbers.

    .venv/bin/python -m bench.pageload_firefox [--rounds 11] [--pages article,frames,...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
from pathlib import Path

import anyio
from tests.support.firefox import firefox_env, launch_firefox

from bench._util import percentile, table
from bench.pageload import PAGES, page_path, serve, write_floor, write_site
from webmcp_sidecar.demo.firefox import launch

VARIANTS = ("bare", "floor", "ours")
TIMING = """(() => { const n = performance.getEntriesByType('navigation')[0];
  return [n.domContentLoadedEventEnd - n.startTime, n.loadEventEnd - n.startTime]; })()"""


async def main(rounds: int, pages: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="wmp-") as tmp:
        root = Path(tmp) / "site"
        root.mkdir()
        with serve(root) as port:
            write_site(root, f"http://localhost:{port}")
            floor = write_floor(Path(tmp) / "floor")
            m = json.loads((floor / "manifest.json").read_text())
            m["browser_specific_settings"] = {"gecko": {"id": "bench-floor@webmcp.io"}}
            (floor / "manifest.json").write_text(json.dumps(m))
            async with contextlib.AsyncExitStack() as stack:
                env = {**os.environ, "HOME": tmp}
                browsers = {
                    "bare": await stack.enter_async_context(launch(Path(tmp) / "bare", env)),
                    "floor": await stack.enter_async_context(
                        launch(Path(tmp) / "floor-profile", env, floor)),
                }
                ours = await stack.enter_async_context(
                    launch_firefox(Path(tmp) / "ours", firefox_env(Path(tmp) / "ours")))
                browsers["ours"] = ours.ff
                await ours.wait_log("connected (Firefox ", 30)
                got: dict[tuple[str, str], list[tuple[float, float]]] = {}
                base = f"http://127.0.0.1:{port}/"
                for r in range(rounds + 1):  # the first round warms the caches and is dropped
                    for page in pages:
                        for v in VARIANTS:
                            ff = browsers[v]
                            ctx = await ff.new_tab()
                            await ff.navigate(ctx, base + page_path(page))
                            dcl, load = await ff.evaluate(ctx, TIMING)
                            await ff.close_tab(ctx)
                            if r:
                                got.setdefault((page, v), []).append((dcl, load))
                rows = []
                for page in pages:
                    med = {v: [percentile(sorted(x[i] for x in got[(page, v)]), 0.5)
                               for i in (0, 1)] for v in VARIANTS}
                    p99 = {v: percentile(sorted(x[0] for x in got[(page, v)]), 0.99)
                           for v in VARIANTS}
                    rows.append([page, *(f"{med[v][0]:.1f}" for v in VARIANTS),
                                 f"{med['ours'][0] / med['floor'][0]:.2f}",
                                 f"{med['ours'][0] / med['bare'][0]:.2f}",
                                 *(f"{med[v][1]:.1f}" for v in VARIANTS),
                                 f"{med['ours'][1] / med['floor'][1]:.2f}",
                                 f"{p99['ours']:.1f}"])
                print(table(f"Firefox ESR page load, ms, median of {rounds} rounds",
                            ["page", "DCL bare", "floor", "ours", "ours/floor", "ours/bare",
                             "load bare", "floor", "ours", "ours/floor", "DCL p99 ours"], rows))


def cli() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--pages", default=",".join(PAGES))
    a = p.parse_args()
    anyio.run(main, a.rounds, a.pages.split(","))


if __name__ == "__main__":
    cli()
