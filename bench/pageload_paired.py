"""Page load, paired in one browser: bare, the floor and ours take turns in the same instance.

bench/pageload.py compares three browsers launched side by side, and each browser instance
carries a bias of its own of several ms (bare against the floor moved 0.66-1.10x from one launch
to the next), as large as the 3% it is asked to show. Here one browser per WebMCP mode holds
both extensions, the floor (pageload.py's two empty content scripts) and ours with its host, and
a third that only switches them (`chrome.management.setEnabled`). States take turns in blocks:
*bare* (both off), *floor* (the floor on) and *ours* (ours on, its host connected again), the
order reversed every other block; each block loads every page `--per-block` times in a fresh
tab (pageload.py's `load_once`). So every state runs in the same process tree, cache and
machine conditions, and what differs between them is only the extension that is on.

    .venv/bin/python -m bench.pageload_paired [--blocks 8] [--per-block 3] [--pages ...] [--start site]

Prints, per mode, medians and p99 of DCL and load per state, ours/floor, the JS heap per frame,
and the median over blocks of each block's own ours/floor DCL ratio (a paired estimate).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from playwright.async_api import BrowserContext, Worker, async_playwright
from tests.support.browser import chromium_args, ignored_default_args, write_host_manifest

from bench._util import table
from bench.pageload import (
    MODES,
    PAGES,
    Series,
    bench_site,
    load_once,
    med,
    ours_env,
    p99,
    page_path,
    until_connected,
)
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.demo.chromium import extension_dir, find_chromium

STATES = ("bare", "floor", "ours")


def write_switch(root: Path) -> Path:
    """An extension that only turns the others on and off (its worker runs `chrome.management`)."""
    root.mkdir()
    (root / "sw.js").write_text("// chrome.management, driven by bench/pageload_paired.py\n")
    (root / "manifest.json").write_text(json.dumps({
        "manifest_version": 3, "name": "bench switch", "version": "1",
        "permissions": ["management"], "background": {"service_worker": "sw.js"},
    }))
    return root


@contextlib.asynccontextmanager
async def paired_browser(tmp: Path, mode: str, floor: Path, switch: Path) -> AsyncIterator[BrowserContext]:
    """One browser with ours (its host manifest in the profile, its own HOME), the floor and the
    switch loaded."""
    profile = tmp / f"profile-{mode}"
    write_host_manifest(profile)
    env = ours_env(tmp, mode)
    exts = Path(",".join(str(p) for p in (extension_dir(), floor, switch)))
    async with async_playwright() as p:
        ctx = await p.chromium.launch_persistent_context(
            str(profile), executable_path=find_chromium(), headless=True,
            args=chromium_args(exts, mode == "native"), ignore_default_args=ignored_default_args(False),
            env={**os.environ, **env})
        try:
            yield ctx
        finally:
            await ctx.close()


async def worker_of(ctx: BrowserContext, match: Callable[[str], bool], timeout: float = 30) -> Worker:
    """The service worker whose URL `match`es, once it runs."""
    deadline = time.monotonic() + timeout
    while True:
        for w in ctx.service_workers:
            if match(w.url):
                return w
        if time.monotonic() > deadline:
            raise TimeoutError("no such service worker")
        with contextlib.suppress(Exception):
            await ctx.wait_for_event("serviceworker", timeout=1000)


class Switch:
    """Sets a browser's state: which of the floor and ours is on."""

    def __init__(self, ctx: BrowserContext, settle: float) -> None:
        self.ctx = ctx
        self.settle = settle
        self.sw: Worker | None = None
        self.floor_id = ""

    async def start(self) -> None:
        self.sw = await worker_of(self.ctx, lambda url: url.endswith("/sw.js"))
        self.floor_id = await self.sw.evaluate(
            "async () => (await chrome.management.getAll()).find((e) => e.name === 'bench floor').id")

    async def set(self, state: str) -> None:
        assert self.sw is not None
        await self.sw.evaluate(
            """async ([ours, floor, onOurs, onFloor]) => {
                 await chrome.management.setEnabled(ours, onOurs);
                 await chrome.management.setEnabled(floor, onFloor);
               }""",
            [EXTENSION_ID, self.floor_id, state == "ours", state == "floor"])
        if state == "ours":
            w = await worker_of(self.ctx, lambda url: EXTENSION_ID in url)
            await until_connected(w)
            # Re-enabled, ours looks at the mode again and (if it was let go) registers its stub.
            await w.evaluate("() => globalThis.sidecar.pageStubs?.ready")
        # Ours just started its worker and host (a Python process: ~1 s of CPU): let that end, or
        # ours pays for its own start in the loads that follow.
        await asyncio.sleep(self.settle)


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--per-block", type=int, default=3)
    ap.add_argument("--pages", default="article,frames,tools,form")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--start", choices=("tab", "site"), default="tab", help="as bench/pageload.py's")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after each switch before loads")
    args = ap.parse_args()
    pages = [p for p in args.pages.split(",") if p in PAGES]
    modes = [m for m in args.modes.split(",") if m in MODES]
    results = {(m, p, s): Series() for m in modes for p in pages for s in STATES}
    # Each block's own ours/floor DCL median ratio, by (mode, page).
    paired: dict[tuple[str, str], list[float]] = {(m, p): [] for m in modes for p in pages}
    with bench_site("wms-paired-") as (tmp, floor, base):
        switch = write_switch(tmp / "switch_ext")
        async with contextlib.AsyncExitStack() as stack:
            switches: dict[str, Switch] = {}
            for mode in modes:
                ctx = await stack.enter_async_context(paired_browser(tmp / mode, mode, floor, switch))
                switches[mode] = Switch(ctx, args.settle)
                await switches[mode].start()
            t0 = time.monotonic()
            for b in range(args.blocks + 1):  # block 0 warms up (caches, each state's first start)
                order = STATES if b % 2 == 0 else STATES[::-1]
                block: dict[tuple[str, str, str], Series] = {}
                for mode in modes:
                    for state in order:
                        await switches[mode].set(state)
                        for _ in range(args.per_block):
                            for name in pages:
                                s = block.setdefault((mode, name, state), Series())
                                url = base + page_path(name)
                                await load_once(switches[mode].ctx, url, s, False, args.start)
                if b == 0:
                    continue
                for key, s in block.items():
                    results[key].add(s)
                for mode in modes:
                    for name in pages:
                        paired[(mode, name)].append(
                            med(block[(mode, name, "ours")].dcl) / med(block[(mode, name, "floor")].dcl))
                took = time.monotonic() - t0
                print(f"block {b}/{args.blocks} ({took:.0f} s)", file=sys.stderr, flush=True)
    load = os.getloadavg()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"bench.pageload_paired, {now}, {os.cpu_count()} cores, load average {load[0]:.1f}, {load[1]:.1f}, "
          f"{load[2]:.1f}; {args.blocks} blocks x {args.per_block} loads per state, start={args.start}\n")
    header = ["page", "DCL median b / f / o", "ours/floor", "paired (block medians)", "DCL p99 f / o",
              "load median b / f / o", "ours/floor", "heap/frame KB f / o", "ours−floor"]
    for mode in modes:
        rows = []
        for name in pages:
            b_, f, o = (results[(mode, name, s)] for s in STATES)
            pr = sorted(paired[(mode, name)])
            rows.append([
                name,
                f"{med(b_.dcl):.1f} / {med(f.dcl):.1f} / {med(o.dcl):.1f}",
                f"{med(o.dcl) / med(f.dcl):.2f}×",
                f"{med(pr):.2f}× ({pr[0]:.2f}–{pr[-1]:.2f})",
                f"{p99(f.dcl):.1f} / {p99(o.dcl):.1f}",
                f"{med(b_.load):.1f} / {med(f.load):.1f} / {med(o.load):.1f}",
                f"{med(o.load) / med(f.load):.2f}×",
                f"{med(f.heap) / 1024:.0f} / {med(o.heap) / 1024:.0f}",
                f"{(med(o.heap) - med(f.heap)) / 1024:+.0f}",
            ])
        print(table(f"{mode} (ms, KB; one browser, states taking turns)", header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
