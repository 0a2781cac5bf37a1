"""The whole chain, measured: MCP SDK client -> `webmcp-sidecar mcp` -> host -> native messaging ->
service worker -> tab -> page, on a trivial page tool `add(a, b)` (bench/site/bench.html).

1. Round trip: sequential calls through the chain, next to the same tool run in the page
   (executeTool timed with performance.now()), the Playwright page.evaluate round trip, and the
   peer (chrome-devtools-mcp's execute_webmcp_tool, its own Chromium with WebMCP, in both modes'
   blocks). The series run interleaved in blocks, so load on this shared machine hits them alike.
2. Propagation: registerTool (or its abort) in the page -> list_changed at the MCP client.
3. Throughput: 4 MCP clients (4 `webmcp-sidecar mcp` processes) calling at once; every answer
   is checked.
4. Large result: a tool returning a 5 MiB string, checked byte for byte.
With --hops, also each sub-path of the chain on its own (where the time goes: bench/chain_hops.py).

    .venv/bin/python -m bench.chain [--calls 500] [--mode native|polyfill] [--no-peer] [--hops]
                                    [--entry LABEL=DIR]   # the chain also through another entry
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from playwright.async_api import Page, Worker
from tests.support.browser import launch
from tests.support.mcp_session import text as result_text

from bench._util import (
    Stats,
    TimedSession,
    fmt,
    say,
    serve_site,
    sidecar_env,
    site_of,
    stats_row,
    table,
)
from bench.chain_hops import hops, hops_report
from bench.chain_series import (
    MIB,
    PATTERN,
    BlockFn,
    ModeResult,
    Series,
    chain_via,
    entry_command,
    in_page_block,
    interleave,
    timed_calls,
)
from bench.peer_devtools_mcp import PeerSession, PeerUnavailable
from webmcp_sidecar.mcp_server.entry_link import ENTRY_LINK_ENV
from webmcp_sidecar.paths import socket_dir

# --- round trip ----------------------------------------------------------------------------------


def lanes_off(worker: Worker, block: BlockFn) -> BlockFn:
    """A block of calls with the worker's frame lanes off (docs/PROTOCOL.md, "The frame
    lane"): the same page, host and entry, over the frame's runtime port."""
    async def run(start: int, n: int) -> tuple[list[float], int]:
        await worker.evaluate("() => globalThis.sidecar.setLanes(false)")
        try:
            return await block(start, n)
        finally:
            await worker.evaluate("() => globalThis.sidecar.setLanes(true)")

    return run


LANE_OFF = "chain, frame lane off (runtime port)"
LINK_OFF = "chain, entry link off (through the host)"


async def wait_entry_link(worker: Worker) -> None:
    """Until the MCP entry's own link is open (docs/PROTOCOL.md, "The entry link")."""
    deadline = time.monotonic() + 10
    js = "() => Object.values(globalThis.sidecar.status().entryLinks).includes('open')"
    while not await worker.evaluate(js):
        if time.monotonic() > deadline:
            raise RuntimeError("the entry link did not come up")
        await anyio.sleep(0.02)


async def wait_lane(worker: Worker) -> bool:
    """Until the page's frame lane is up (it comes a moment after the page's first call); False
    when it does not within 10 s. It does not on bench.html, which is cross-origin isolated (a
    known problem of its own): the run goes on, the calls taking the frame's runtime port, and
    "Frame lane on vs off" then compares that port with itself."""
    deadline = time.monotonic() + 10
    while not await worker.evaluate("() => globalThis.sidecar.frameLanes.size"):
        if time.monotonic() > deadline:
            return False
        await anyio.sleep(0.02)
    return True


async def round_trip(res: ModeResult, page: Page, worker: Worker, mcp: TimedSession, add: str, url: str,
                     args: argparse.Namespace) -> None:
    async def chain_one(i: int) -> bool:
        assert mcp.client
        r = await mcp.client.call_tool(add, {"a": i, "b": 1})
        return not r.is_error and r.structured_content == {"sum": i + 1}

    async def evaluate_one(i: int) -> bool:
        return await page.evaluate("([a, b]) => window.addOnce(a, b)", [i, 1]) == f'{{"sum":{i + 1}}}'

    series = [
        Series("chain (MCP client -> page)", args.calls, timed_calls(chain_one)),
        Series("in-page executeTool", args.calls, in_page_block(page)),
        Series("page.evaluate(executeTool)", args.calls, timed_calls(evaluate_one)),
        Series(LANE_OFF, args.calls, lanes_off(worker, timed_calls(chain_one))),
    ]
    async with contextlib.AsyncExitStack() as stack:
        # The same entry with its own link off: its calls go through the host, as before it.
        no_link = await stack.enter_async_context(
            TimedSession(mcp.env, name="bench-no-link", command=[
                "/usr/bin/env", f"{ENTRY_LINK_ENV}=0", sys.executable, "-m", "webmcp_sidecar"])
        )
        no_link_add = await no_link.tool_name(site_of(url), "add")
        series.append(Series(LINK_OFF, args.calls, timed_calls(chain_via(no_link, no_link_add))))
        # Other builds of the entry (--entry LABEL=DIR), on the same host and page: an A/B.
        for label, base in (e.split("=", 1) for e in args.entry):
            other = await stack.enter_async_context(
                TimedSession(mcp.env, name=f"bench-{label}", command=entry_command(base))
            )
            series.append(Series(f"chain via entry {label}", args.calls,
                                 timed_calls(chain_via(other, await other.tool_name(site_of(url), "add")))))
        # The peer (its own Chromium, WebMCP on) in both modes' blocks, so each mode's
        # comparison with it is interleaved.
        if args.peer:
            try:
                peer = await stack.enter_async_context(PeerSession(url + "bench.html"))
                series.append(Series(f"chrome-devtools-mcp {peer.version}", args.peer_calls,
                                     timed_calls(peer.call)))
            except PeerUnavailable as e:
                res.peer_problem = str(e)
        await interleave(series, args.warmup, args.block)
    for s in series:
        res.rtt[s.name] = Stats.of_ms(s.ms)
        res.rtt_errors[s.name] = s.errors
    res.in_page_mean_ms = statistics.fmean(series[1].ms)


def on_off(what: str, off_series: str, results: list[ModeResult]) -> str:
    """The chain against its `off_series` (the same calls with `what` off), per mode."""
    rows = []
    for r in results:
        on, off = r.rtt.get("chain (MCP client -> page)"), r.rtt.get(off_series)
        if on and off:
            rows.append([r.mode, fmt(on.median), fmt(off.median), f"{on.median / off.median:.2f}",
                         fmt(on.p99), fmt(off.p99), f"{on.p99 / off.p99:.2f}"])
    return table(f"{what} on vs off (same run, interleaved), ms", [
        "mode", "median on", "off", "ratio", "p99 on", "off", "ratio"], rows)


# --- propagation ---------------------------------------------------------------------------------


async def clock_offset_ms(page: Page) -> float:
    """Page wall clock minus Python's, from the tightest of 20 round trips (should be ~0)."""
    best = (math.inf, 0.0)
    for _ in range(20):
        t0 = time.time()
        wall = await page.evaluate("window.wallMs()")
        t1 = time.time()
        best = min(best, (t1 - t0, wall - (t0 + t1) / 2 * 1000))
    return best[1]


async def propagation(res: ModeResult, page: Page, mcp: TimedSession, reps: int) -> None:
    res.clock_offset_ms = await clock_offset_ms(page)
    lat: dict[str, list[float]] = {"registerTool": [], "abort": []}
    for rep in range(reps):
        adding = rep % 2 == 0
        before = len(mcp.changed_at)
        changed = mcp.next_change()
        t_page = await page.evaluate("window.registerExtra()" if adding else "window.abortExtra()")
        with anyio.fail_after(15):
            await changed.wait()
        lat["registerTool" if adding else "abort"].append(mcp.changed_at[before] * 1000 - t_page)
        # Not timed: check the list really changed, and let stray notifications show up.
        await mcp.wait_tools(lambda names, a=adding: any(n.endswith("__extra") for n in names) == a)
        await anyio.sleep(0.1)
        res.extra_notifications += len(mcp.changed_at) - before - 1
    res.propagation = {k: Stats.of_ms(v) for k, v in lat.items()}
    res.propagation["both"] = Stats.of_ms(lat["registerTool"] + lat["abort"])


# --- throughput ----------------------------------------------------------------------------------


async def throughput(res: ModeResult, env: dict[str, str], site: str, clients: int,
                     per_client: int) -> None:
    async with contextlib.AsyncExitStack() as stack:
        sessions = [await stack.enter_async_context(TimedSession(env, name=f"bench-{k}"))
                    for k in range(clients)]
        names = [await s.tool_name(site, "add") for s in sessions]
        errors = 0
        lat: list[float] = []

        async def run(k: int, n: int, timed: bool) -> None:
            nonlocal errors
            client = sessions[k].client
            assert client
            for i in range(n):
                a = k * 1_000_000 + i
                t = time.perf_counter()
                try:
                    r = await client.call_tool(names[k], {"a": a, "b": 7})
                    ok = not r.is_error and r.structured_content == {"sum": a + 7}
                except Exception:  # a lost or failed call counts, whatever it raised
                    ok = False
                if timed:
                    lat.append((time.perf_counter() - t) * 1000)
                    errors += not ok

        async with anyio.create_task_group() as tg:  # warm-up, all clients at once
            for k in range(clients):
                tg.start_soon(run, k, 20, False)
        t0 = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for k in range(clients):
                tg.start_soon(run, k, per_client, True)
        wall = time.perf_counter() - t0
    res.throughput_calls = len(lat)
    res.throughput_cps = len(lat) / wall
    res.throughput_errors = errors + (clients * per_client - len(lat))
    res.throughput_lat = Stats.of_ms(lat)


# --- large result --------------------------------------------------------------------------------


async def large_result(res: ModeResult, mcp: TimedSession, blob: str, calls: int) -> None:
    assert mcp.client
    size = 5 * MIB
    expected = PATTERN * (size // len(PATTERN))
    await mcp.client.call_tool(blob, {"n": size})  # warm-up
    secs: list[float] = []
    for _ in range(calls):
        t = time.perf_counter()
        r = await mcp.client.call_tool(blob, {"n": size})
        secs.append(time.perf_counter() - t)
        text = result_text(r)
        res.large_bytes = len(text.encode())
        res.large_ok += not r.is_error and text == expected
    res.large = Stats.of_seconds(secs)


# --- one mode ------------------------------------------------------------------------------------


async def run_mode(mode: str, url: str, args: argparse.Namespace) -> ModeResult:
    res = ModeResult(mode)
    site = site_of(url)
    # Paths private to this run, so leftover hosts never mix in. Default log level (INFO).
    with tempfile.TemporaryDirectory(prefix="webmcp-bench-") as tmp, sidecar_env(tmp) as env:
        async with launch(Path(tmp), env, mode) as browser:
            page = await browser.open(url + "bench.html")
            async with TimedSession(env) as mcp:
                add = await mcp.tool_name(site, "add")
                blob = await mcp.tool_name(site, "blob")
                say(f"[{mode}] round trip ...")
                worker = await browser.worker()
                await mcp.client.call_tool(add, {"a": 0, "b": 0})  # the first call opens the lane
                if not await wait_lane(worker):
                    say(f"[{mode}] the page's frame lane did not come up (bench.html is cross-origin "
                        "isolated, a known problem): its calls take the runtime port")
                await wait_entry_link(worker)
                await round_trip(res, page, worker, mcp, add, url, args)
                if args.propagation:
                    say(f"[{mode}] propagation ...")
                    await propagation(res, page, mcp, args.propagation)
                if args.hops:
                    say(f"[{mode}] hops ...")
                    await hops(res, page, worker, mcp, add, url, str(socket_dir()), args)
                if args.large_calls:
                    say(f"[{mode}] large result ...")
                    await large_result(res, mcp, blob, args.large_calls)
            say(f"[{mode}] throughput ...")
            await throughput(res, env, site, args.clients, args.per_client)
    return res


# --- report --------------------------------------------------------------------------------------


def report(results: list[ModeResult], args: argparse.Namespace) -> str:
    out: list[str] = []
    hdr = ["", "n", "median", "p90", "p99", "max"]
    rows: list[list[str]] = []
    for r in results:
        for name, s in r.rtt.items():
            errs = r.rtt_errors.get(name, 0)
            rows.append(stats_row(f"{r.mode}: {name}" + (f" ({errs} wrong)" if errs else ""), s))
    out.append(table(
        f"Page tool round trip, add(a,b), ms (sequential, after {args.warmup} warm-up calls each; "
        f"series interleaved in blocks of {args.block})", hdr, rows,
    ))
    over: list[list[str]] = []
    for r in results:
        chain = r.rtt.get("chain (MCP client -> page)")
        page = r.rtt.get("in-page executeTool")
        if chain and page:
            over.append([r.mode, fmt(chain.median - page.median), fmt(chain.p99 - page.p99),
                         fmt(page.median), fmt(r.in_page_mean_ms)])
    out.append(table("Chain overhead = chain - in-page, ms", [
        "mode", "median", "p99", "in-page median", "in-page mean"], over))
    rows = []
    for r in results:
        chain = r.rtt.get("chain (MCP client -> page)")
        peer = next((st for name, st in r.rtt.items() if name.startswith("chrome-devtools")), None)
        if chain and peer:
            rows.append([r.mode, fmt(chain.median), fmt(peer.median), f"{chain.median / peer.median:.2f}",
                         fmt(chain.p99), fmt(peer.p99), f"{chain.p99 / peer.p99:.2f}"])
    if rows:
        out.append(table("Chain vs chrome-devtools-mcp (same mode block, interleaved), ms", [
            "our chain", "median", "peer median", "ratio", "p99", "peer p99", "ratio"], rows))
    out.append(on_off("Frame lane", LANE_OFF, results))
    out.append(on_off("Entry link", LINK_OFF, results))
    for r in results:
        if r.peer_problem:
            out.append(f"\nchrome-devtools-mcp could not run: {r.peer_problem}")

    rows = []
    for r in results:
        for kind, s in r.propagation.items():
            rows.append(stats_row(f"{r.mode}: {kind} -> list_changed", s))
    out.append(table(f"Propagation, ms ({args.propagation} changes, alternating; target < 50)", hdr, rows))
    out.append("clock check (page minus Python wall clock): " + ", ".join(
        f"{r.mode} {fmt(r.clock_offset_ms)} ms" for r in results
    ) + "; extra list_changed notifications: " + ", ".join(
        f"{r.mode} {r.extra_notifications}" for r in results))

    rows = [[r.mode, str(r.throughput_calls), f"{r.throughput_cps:.0f}", str(r.throughput_errors),
             fmt(r.throughput_lat.median if r.throughput_lat else None),
             fmt(r.throughput_lat.p99 if r.throughput_lat else None)] for r in results]
    out.append(table(
        f"Throughput: {args.clients} MCP clients x {args.per_client} calls at once",
        ["mode", "calls", "calls/s", "errors", "median ms", "p99 ms"], rows,
    ))

    rows = [[r.mode, str(r.large.n) if r.large else "0", fmt(r.large.median if r.large else None),
             fmt(r.large.max if r.large else None),
             fmt(5 / (r.large.median / 1000) if r.large else None),
             f"{r.large_bytes} ({r.large_ok}/{r.large.n if r.large else 0} exact)"] for r in results]
    out.append(table("Large result: a 5 MiB string", [
        "mode", "calls", "median ms", "max ms", "MiB/s", "bytes received"], rows))
    for r in results:
        if r.hops:
            out.append(hops_report(r))
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--calls", type=int, default=500, help="sequential calls per series")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--block", type=int, default=50, help="calls per block when interleaving")
    ap.add_argument("--mode", choices=["native", "polyfill"], action="append",
                    help="WebMCP flavour (repeatable; default: both)")
    ap.add_argument("--no-peer", dest="peer", action="store_false",
                    help="skip chrome-devtools-mcp")
    ap.add_argument("--peer-calls", type=int, default=300)
    ap.add_argument("--propagation", type=int, default=40, help="tool-set changes to time")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--per-client", type=int, default=250)
    ap.add_argument("--large-calls", type=int, default=10)
    ap.add_argument("--entry", action="append", default=[], metavar="LABEL=DIR",
                    help="also time the chain through another build of the entry (its package dir)")
    ap.add_argument("--hops", action="store_true",
                    help="also time each sub-path of the chain (where the time goes)")
    args = ap.parse_args()
    modes = args.mode or ["native", "polyfill"]

    async def run() -> list[ModeResult]:
        with serve_site() as url:
            return [await run_mode(mode, url, args) for mode in modes]

    started = time.strftime("%Y-%m-%d %H:%M")
    results = anyio.run(run)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"bench.chain, {started}, {os.cpu_count()} cores, load average at the end {load}")
    print(report(results, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
