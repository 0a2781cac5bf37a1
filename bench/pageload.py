"""What the extension costs a page it has nothing to do with (issue 29), and one with tools.

Three browsers per WebMCP mode, launched together and driven interleaved (round by round, page
by page, browser by browser, so machine load hits all alike): bare Chromium; the *floor*, an
extension with one empty MAIN-world and one empty isolated-world content script at
document_start in every frame (the least any bridge needing both worlds pays), generated into a
temp dir; and ours, its host connected. Both modes: the polyfill (no flag) and native
(`--enable-features=WebMCP`).

Pages (generated into a temp dir, served on two origins, 127.0.0.1 and localhost, one port):
tool-less (a plain article; an article with 10 same-origin and 10 cross-origin iframes; a 1.2 MB
table) and with tools (tools registered by an inline script at document_start; a declarative
form; the demo site).

Per load, in a fresh tab: DOMContentLoaded and load (navigation timing, from the navigation's
start); the JS heap per frame after a full GC (`Runtime.getHeapUsage` of the page's renderer
plus one per out-of-process frame's site, over the frames); and, in traced loads of their own
(`--cpu-rounds`), the time the extension took in the page's renderers (a fresh renderer, as
the measured loads, unless `--start site`: V8 then finds the stub compiled already in its
cache), from a trace: its content scripts' injection (`ScriptInjection::InjectJs`: making the
isolated world, compiling and running the scripts) and its listeners (`FunctionCall`). V8's
sampling profiler, used before, charged compiling to `(program)`, and compiling our stub in
every document is most of what it costs.

    .venv/bin/python -m bench.pageload [--rounds 5] [--cpu-rounds 1] [--launches 1] [--pages article,...]

Each browser instance carries a bias of its own of several ms, as large as the effects measured
(bare against the floor moved 0.66-1.10x from one launch to the next): `--launches N` pools the
loads of N fresh sets of browsers and prints each launch's DCL ratio too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, Worker, async_playwright
from tests.support.browser import chromium_args, ignored_default_args, launch

from bench._util import percentile, table
from webmcp_sidecar.demo.chromium import find_chromium

DEMO_SITE = Path(__file__).parents[1] / "host" / "webmcp_sidecar" / "demo" / "site"
TOOLLESS = ("article", "frames", "large")
PAGES = ("article", "frames", "large", "tools", "form", "demo")
VARIANTS = ("bare", "floor", "ours")
MODES = ("polyfill", "native")

PARA = ("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
        "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
        "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.</p>\n")


def article(title: str, body: str = "") -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body><h1>{title}</h1>{PARA * 30}{body}</body></html>")


TOOLS_HEAD = """<script>
(() => {
  const mc = document.modelContext || navigator.modelContext;
  for (const name of ['add', 'sub', 'mul']) mc.registerTool({
    name, description: 'Arithmetic: ' + name,
    inputSchema: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}},
    execute: ({a, b}) => String(name === 'add' ? a + b : name === 'sub' ? a - b : a * b),
  });
})();
</script>"""

FORM = """<form toolname="subscribe" tooldescription="Subscribe an email address" action="#">
<label>Email <input name="email" type="email" required toolparamdescription="Where to send"></label>
<label>Topic <select name="topic"><option>news</option><option>offers</option></select></label>
<button>Subscribe</button></form>"""


def write_site(root: Path, other_origin: str) -> None:
    """The pages; `other_origin` (`http://localhost:PORT`) for the cross-origin iframes."""
    (root / "article.html").write_text(article("A plain article"))
    (root / "frame.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'></head><body>"
        f"<p>An embed.</p>{PARA * 3}</body></html>")
    frames = "".join(f"<iframe src='frame.html?{i}' width=200 height=80></iframe>" for i in range(10))
    frames += "".join(f"<iframe src='{other_origin}/frame.html?{i}' width=200 height=80></iframe>"
                      for i in range(10))
    (root / "frames.html").write_text(article("An article with 20 iframes", frames))
    row = "<tr>" + "".join(f"<td>cell {{i}} {c}</td>" for c in "abcdef") + "</tr>\n"
    rows = "".join(row.format(i=i) for i in range(14_000))
    (root / "large.html").write_text(article("A large table", f"<table>{rows}</table>"))
    (root / "tools.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Tools</title>"
        f"{TOOLS_HEAD}</head><body><h1>Tools at document_start</h1>{PARA * 30}</body></html>")
    (root / "form.html").write_text(article("A declarative form", FORM))
    shutil.copytree(DEMO_SITE, root / "demo")


def page_path(name: str) -> str:
    return "demo/index.html" if name == "demo" else f"{name}.html"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(root: Path) -> Iterator[int]:
    """`root` on loopback (both 127.0.0.1 and localhost reach it): the port."""
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def bench_site(prefix: str) -> Iterator[tuple[Path, Path, str]]:
    """A temp dir with the pages served (127.0.0.1 and localhost) and the floor extension
    written: (the dir, the floor's dir, the pages' base URL)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp_s:
        tmp = Path(tmp_s)
        site = tmp / "site"
        site.mkdir()
        with serve(site) as port:
            write_site(site, f"http://localhost:{port}")
            yield tmp, write_floor(tmp / "floor_ext"), f"http://127.0.0.1:{port}/"


def write_floor(root: Path) -> Path:
    """The floor extension: one empty MAIN-world and one empty isolated-world content script
    where ours has its (every http(s) frame, document_start)."""
    root.mkdir()
    (root / "main.js").write_text("// empty\n")
    (root / "isolated.js").write_text("// empty\n")
    cs = {"matches": ["http://*/*", "https://*/*"], "run_at": "document_start", "all_frames": True,
          "match_about_blank": True, "match_origin_as_fallback": True}
    (root / "manifest.json").write_text(json.dumps({
        "manifest_version": 3, "name": "bench floor", "version": "1",
        "content_scripts": [{**cs, "js": ["main.js"], "world": "MAIN"}, {**cs, "js": ["isolated.js"]}],
    }))
    return root


@contextlib.asynccontextmanager
async def plain_browser(profile: Path, ext: Path | None, native: bool) -> AsyncIterator[BrowserContext]:
    async with async_playwright() as p:
        ctx = await p.chromium.launch_persistent_context(
            str(profile), executable_path=find_chromium(), headless=True,
            args=chromium_args(ext, native), ignore_default_args=ignored_default_args(False))
        try:
            yield ctx
        finally:
            await ctx.close()


@dataclass
class Series:
    dcl: list[float] = field(default_factory=list)
    load: list[float] = field(default_factory=list)
    heap: list[float] = field(default_factory=list)  # bytes per frame
    ext_ms: list[float] = field(default_factory=list)  # ms the extension took in the page (traced)

    def add(self, other: Series) -> None:
        """Pools `other`'s loads into these."""
        self.dcl += other.dcl
        self.load += other.load
        self.heap += other.heap
        self.ext_ms += other.ext_ms


TIMING = """() => { const n = performance.getEntriesByType('navigation')[0];
  return [n.domContentLoadedEventEnd - n.startTime, n.loadEventEnd - n.startTime]; }"""


async def heap_per_frame(ctx: BrowserContext, page: Page) -> float:
    """Used JS heap of the page's renderer plus one out-of-process frame per site (frames of
    one site in one tab share a renderer), after a GC in each, over the page's frames."""
    sessions = [await ctx.new_cdp_session(page)]
    main_site = page.url.split("/")[2].split(":")[0]
    seen = {main_site}
    for f in page.frames[1:]:
        site = f.url.split("/")[2].split(":")[0] if "://" in f.url else main_site
        if site in seen:
            continue
        seen.add(site)
        with contextlib.suppress(Exception):  # not out of process after all
            sessions.append(await ctx.new_cdp_session(f))
    total = 0.0
    for s in sessions:
        await s.send("HeapProfiler.collectGarbage")
        total += (await s.send("Runtime.getHeapUsage"))["usedSize"]
        await s.detach()
    return total / len(page.frames)


def site_blank(url: str) -> str:
    """A page of `url`'s site that runs nothing (the bench site's frame.html; the demo's CSS)."""
    if "/demo/" in url:
        return url.replace("index.html", "style.css")
    return url.rsplit("/", 1)[0] + "/frame.html"


async def load_once(ctx: BrowserContext, url: str, s: Series, traced: bool, start: str = "tab") -> None:
    """One load of `url` in a fresh tab. `start` "site": the tab shows a blank page of the same
    site first, so the measured navigation stays in that renderer (no process start in it)."""
    page = await ctx.new_page()
    try:
        if start == "site":
            await page.goto(site_blank(url))
        if traced:
            cdp = await ctx.new_cdp_session(page)
            events: list[dict[str, Any]] = []
            done = asyncio.Event()
            cdp.on("Tracing.dataCollected", lambda e: events.extend(e["value"]))
            cdp.on("Tracing.tracingComplete", lambda _: done.set())
            await cdp.send("Tracing.start", {"traceConfig": {"includedCategories": TRACE_CATEGORIES},
                                             "transferMode": "ReportEvents"})
            await page.goto(url, wait_until="load")
            await cdp.send("Tracing.end")
            await done.wait()
            await cdp.detach()
            s.ext_ms.append(ext_script_ms(events))
            return
        await page.goto(url, wait_until="load")
        dcl, load = await page.evaluate(TIMING)
        while load <= 0:  # the load event's end is stamped after its handlers
            await asyncio.sleep(0.01)
            dcl, load = await page.evaluate(TIMING)
        s.dcl.append(dcl)
        s.load.append(load)
        s.heap.append(await heap_per_frame(ctx, page))
    finally:
        await page.close()


TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-v8.compile", "extensions"]


def ext_script_ms(events: list[dict[str, Any]]) -> float:
    """Time (ms) the browser's extension took in a page's renderers, from a trace: its content
    scripts' injection (`ScriptInjection::InjectJs`: compiling and running them, and making the
    isolated world; each browser here has one extension, so every injection is its), and its
    scripts run later (`EvaluateScript`, `FunctionCall` of chrome-extension:// scripts: a
    listener of ours), each thread's outermost events only."""
    def ours(e: dict[str, Any]) -> bool:
        if e.get("ph") != "X":
            return False
        if e.get("name") == "ScriptInjection::InjectJs":
            return True
        url = str(((e.get("args") or {}).get("data") or {}).get("url", ""))
        return e.get("name") in ("EvaluateScript", "FunctionCall") and url.startswith("chrome-extension://")
    spans = sorted((e["pid"], e["tid"], e["ts"], e["ts"] + e.get("dur", 0)) for e in events if ours(e))
    total = 0.0
    end: dict[tuple[int, int], float] = {}
    for pid, tid, start, stop in spans:
        if start >= end.get((pid, tid), -1.0):  # not inside the last one counted on this thread
            total += stop - start
            end[(pid, tid)] = stop
    return total / 1000


def med(xs: list[float]) -> float:
    return percentile(sorted(xs), 0.5)


def p99(xs: list[float]) -> float:
    return percentile(sorted(xs), 0.99)


def fmt(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


HEADER = ["page", "DCL median", "ours/floor", "DCL p99 f/o", "load median", "ours/floor", "load p99 f/o",
          "heap/frame KB", "ours−floor", "ext script ms f/o"]


def report(results: dict[tuple[str, str, str], Series], modes: list[str], pages: list[str],
           rounds: int, label: str = "ours") -> None:
    for mode in modes:
        rows = []
        for name in pages:
            b, f, o = (results[(mode, name, v)] for v in ("bare", "floor", label))
            rows.append([
                name,
                f"{fmt(med(b.dcl))} / {fmt(med(f.dcl))} / {fmt(med(o.dcl))}",
                f"{med(o.dcl) / med(f.dcl):.2f}×",
                f"{fmt(p99(f.dcl))} / {fmt(p99(o.dcl))}",
                f"{fmt(med(b.load))} / {fmt(med(f.load))} / {fmt(med(o.load))}",
                f"{med(o.load) / med(f.load):.2f}×",
                f"{fmt(p99(f.load))} / {fmt(p99(o.load))}",
                f"{med(b.heap) / 1024:.0f} / {med(f.heap) / 1024:.0f} / {med(o.heap) / 1024:.0f}",
                f"{(med(o.heap) - med(f.heap)) / 1024:+.0f}",
                f"{med(f.ext_ms):.1f} / {med(o.ext_ms):.1f}" if o.ext_ms else "-",
            ])
        print(table(f"{label}, {mode} ({rounds} rounds; ms, KB; bare / floor / {label})", HEADER, rows))


def rss_kb(pid: str, key: str = "Rss:") -> int:
    """Resident (or with `key` "Pss:", proportional: shared pages divided among their users) KB."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return 0


def idle_memory(profile: Path) -> str:
    """Resident memory, idle: our host (started by this profile's browser) and the extension
    renderer that holds our service worker (a child of that browser)."""
    procs: dict[str, tuple[str, list[bytes]]] = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                ppid = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
                procs[pid] = (ppid, Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"))
    browser = next((pid for pid, (_, cmd) in procs.items()
                    if any(c == f"--user-data-dir={profile}".encode() for c in cmd)), None)

    def descendants(root: str) -> list[str]:
        out, todo = [], [root]
        while todo:
            parent = todo.pop()
            kids = [p for p, (pp, _) in procs.items() if pp == parent]
            out += kids
            todo += kids
        return out

    if browser is None:
        return "browser process not found"
    kids = descendants(browser)
    host = [p for p in kids if any(b"webmcp_sidecar" in c or b"webmcp-sidecar" in c for c in procs[p][1])]
    # Renderers come from the zygote (not children of the browser), but name the profile.
    flag = f"--user-data-dir={profile}".encode()
    # (a renderer rewrites its command line as one string: match within it)
    ext = [p for p, (_, cmd) in procs.items()
           if any(b"--extension-process" in c for c in cmd) and any(flag + b" " in c + b" " for c in cmd)]
    def mb(pids: list[str], key: str) -> str:
        return f"{sum(rss_kb(p, key) for p in pids) / 1024:.1f}"

    return (f"host RSS {mb(host, 'Rss:')} MB, PSS {mb(host, 'Pss:')} MB ({len(host)} processes); "
            f"extension renderer (the worker) RSS {mb(ext, 'Rss:')} MB, PSS {mb(ext, 'Pss:')} MB "
            f"({len(ext)} processes)")


def builds(specs: list[str]) -> dict[str, str]:
    """`--ext LABEL=DIR` flags: each label's extension dir, absolute."""
    return {label: str(Path(d).resolve()) for label, d in (e.split("=", 1) for e in specs)}


def ours_env(tmp: Path, mode: str) -> dict[str, str]:
    """The environment our browser (so its host) runs in: a HOME, logs and data of its own."""
    home = tmp / f"home-{mode}"
    home.mkdir(parents=True)
    return {"HOME": str(home), "WEBMCP_SIDECAR_LOG_DIR": str(tmp / f"log-{mode}"),
            "WEBMCP_SIDECAR_DATA_DIR": str(tmp / f"data-{mode}")}


async def until_connected(worker: Worker, timeout: float = 30) -> None:
    """Until our worker's host is connected."""
    deadline = time.monotonic() + timeout
    while not await worker.evaluate("() => globalThis.sidecar?.status().connected === true"):
        if time.monotonic() > deadline:
            raise TimeoutError("our host did not connect")
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def ours_browser(tmp: Path, mode: str, ext: str | None) -> AsyncIterator[BrowserContext]:
    """Our extension (or the build at `ext`) with its own host, once the host is connected."""
    env = ours_env(tmp, mode)
    saved = os.environ.get("WEBMCP_SIDECAR_EXTENSION_DIR")
    if ext:
        os.environ["WEBMCP_SIDECAR_EXTENSION_DIR"] = ext
    try:
        cm = launch(tmp, env, mode)
        ours = await cm.__aenter__()
    finally:
        if ext:
            if saved is None:
                os.environ.pop("WEBMCP_SIDECAR_EXTENSION_DIR", None)
            else:
                os.environ["WEBMCP_SIDECAR_EXTENSION_DIR"] = saved
    try:
        await until_connected(await ours.worker())
        await ours.stubs(ready=True)  # this mode's own stub, not the first moments' either-mode one
        yield ours.ctx
    finally:
        await cm.__aexit__(None, None, None)


async def one_launch(run: Path, floor: Path, base: str, modes: list[str], pages: list[str],
                     variants: tuple[str, ...], extra: dict[str, str], args: argparse.Namespace,
                     results: dict[tuple[str, str, str], Series],
                     per_launch: dict[tuple[str, str, str], list[float]]) -> dict[tuple[str, str], str]:
    """One set of browsers, its rounds added to `results`; the launch's own DCL ratios to
    `per_launch`; the idle memory of ours at its end."""
    mine: dict[tuple[str, str, str], Series] = {k: Series() for k in results}
    async with contextlib.AsyncExitStack() as stack:
        ctxs: dict[tuple[str, str], BrowserContext] = {}
        for mode in modes:
            native = mode == "native"
            ctxs[(mode, "bare")] = await stack.enter_async_context(
                plain_browser(run / f"bare-{mode}", None, native))
            ctxs[(mode, "floor")] = await stack.enter_async_context(
                plain_browser(run / f"floor-{mode}", floor, native))
            for label in ("ours", *extra):
                ctxs[(mode, label)] = await stack.enter_async_context(
                    ours_browser(run / label, mode, extra.get(label)))
        # One warm-up load of each page in each browser (caches, renderer spare).
        for mode in modes:
            for name in pages:
                for v in variants:
                    await load_once(ctxs[(mode, v)], base + page_path(name), Series(), False)
        t0 = time.monotonic()
        for r in range(args.rounds + args.cpu_rounds):
            traced = r >= args.rounds
            for name in pages:
                for mode in modes:
                    order = variants if r % 2 == 0 else variants[::-1]
                    for v in order:
                        if traced and v == "bare":
                            continue
                        await load_once(ctxs[(mode, v)], base + page_path(name),
                                        mine[(mode, name, v)], traced, args.start)
            print(f"round {r + 1}/{args.rounds + args.cpu_rounds} "
                  f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
        await asyncio.sleep(args.idle)  # let the worker and the host go idle
        mem = {(label, m): idle_memory(run / label / f"profile-{m}")
               for label in ("ours", *extra) for m in modes}
    for key, s in mine.items():
        results[key].add(s)
        floor_s = mine[(key[0], key[1], "floor")]
        if s.dcl and floor_s.dcl:
            per_launch[key].append(med(s.dcl) / med(floor_s.dcl))
    return mem


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu-rounds", type=int, default=1)
    ap.add_argument("--launches", type=int, default=1,
                    help="fresh sets of browsers, their loads pooled (each instance has a bias of its own)")
    ap.add_argument("--pages", default=",".join(PAGES))
    ap.add_argument("--idle", type=float, default=5, help="seconds idle before memory is read")
    ap.add_argument("--ext", action="append", default=[], metavar="LABEL=DIR",
                    help="another build of our extension (an A/B), its host connected too")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--start", choices=("tab", "site"), default="tab",
                    help="tab: each load in a fresh tab (a new renderer each time); site: the fresh tab on a "
                         "blank page of the site first, the load in its renderer (no process start measured)")
    args = ap.parse_args()
    pages = [p for p in args.pages.split(",") if p]
    modes = [m for m in args.modes.split(",") if m]
    extra = builds(args.ext)
    variants = (*VARIANTS, *extra)
    results: dict[tuple[str, str, str], Series] = {
        (m, p, v): Series() for m in MODES for p in PAGES for v in variants}
    per_launch: dict[tuple[str, str, str], list[float]] = {
        (m, p, v): [] for m in MODES for p in PAGES for v in variants}
    with bench_site("wms-pageload-") as (tmp, floor, base):
        mem: dict[tuple[str, str], str] = {}
        for launch in range(args.launches):
            # Each browser instance carries a bias of its own of several ms (measured: 0.66-1.10x
            # between bare and the floor from one launch to the next), so loads are pooled over
            # `--launches` fresh sets of browsers; per launch, the DCL ratio is kept too.
            run = tmp / f"launch{launch}"
            mem = await one_launch(run, floor, base, modes, pages, variants, extra, args,
                                   results, per_launch)
            print(f"launch {launch + 1}/{args.launches} done", file=sys.stderr, flush=True)
    print(f"bench.pageload, {time.strftime('%Y-%m-%d %H:%M')} UTC, {os.cpu_count()} cores, "
          f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for label in ("ours", *extra):
        report(results, modes, pages, args.rounds * args.launches, label)
        if args.launches > 1:
            for mode in modes:
                for name in pages:
                    ratios = " ".join(f"{x:.2f}" for x in per_launch[(mode, name, label)])
                    print(f"  {label}, {mode}, {name}: DCL ours/floor per launch {ratios}")
    for (label, m), line in mem.items():
        print(f"\nidle, {label}, {m}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
