"""Scale: tools/list latency and list_changed propagation as open sites and MCP clients grow.

Sites: 127.0.0.1 on different ports are different sites; each serves bench/site/scale.html, which
registers 20 tools (`?tools=N`). Tabs open one site each, up to the largest count (default 1, 10,
50); at each count the MCP clients (each its own `webmcp-sidecar mcp` process, the SDK's default
way) go 1, 4, 8. At every point:

- tools/list: sequential calls from the first client (the others connected and idle), each
  answer checked to hold every site tool;
- propagation: a tool registered in (or aborted from) the first site's page, from just before
  the page's call (its wall clock) to `notifications/tools/list_changed` at each client (ours);
  `first` is the earliest client's, `all` the last client's.

    .venv/bin/python -m bench.scale [--sites 1,10,50] [--clients 1,4,8] [--tools 20]
                                    [--lists 50] [--changes 20] [--mode polyfill|native]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
from playwright.async_api import Page
from tests.support.browser import launch

from bench._util import Stats, TimedSession, fmt, say, serve_site, sidecar_env, site_of, table
from bench.chain import clock_offset_ms
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION


@dataclass
class Point:
    sites: int
    clients: int
    tools: int  # site tools each client listed
    list_ms: Stats
    list_bytes: int
    first: Stats
    all: Stats


@contextlib.contextmanager
def many_sites(n: int) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(serve_site()) for _ in range(n)]


def site_tool_count(names: set[str]) -> int:
    return sum(1 for n in names if "__tool_" in n)


async def list_series(mcp: TimedSession, expected: int, calls: int) -> tuple[Stats, int]:
    assert mcp.client
    ms: list[float] = []
    size = 0
    for _ in range(calls):
        t = time.perf_counter()
        result = await mcp.client.list_tools()
        ms.append((time.perf_counter() - t) * 1000)
        got = site_tool_count({tool.name for tool in result.tools})
        if got != expected:
            raise SystemExit(f"tools/list held {got} site tools, not {expected}")
        size = len(result.model_dump_json(by_alias=True, exclude_none=True))
    return Stats.of_ms(ms), size


async def propagation(page: Page, clients: list[TimedSession], changes: int) -> tuple[Stats, Stats]:
    offset = await clock_offset_ms(page)  # page wall clock minus ours, ~0 on one machine
    first: list[float] = []
    last: list[float] = []
    for rep in range(changes):
        adding = rep % 2 == 0
        before = [len(c.changed_at) for c in clients]
        changed = [c.next_change() for c in clients]
        t_page = await page.evaluate("window.registerExtra()" if adding else "window.abortExtra()")
        t_page -= offset
        with anyio.fail_after(30):
            for event in changed:
                await event.wait()
        lat = [c.changed_at[b] * 1000 - t_page for c, b in zip(clients, before, strict=True)]
        first.append(min(lat))
        last.append(max(lat))
        await anyio.sleep(0.05)  # let each client re-list if it does; then the next change
    return Stats.of_ms(first), Stats.of_ms(last)


async def run(args: argparse.Namespace) -> list[Point]:
    site_levels = sorted(int(x) for x in args.sites.split(","))
    client_levels = sorted(int(x) for x in args.clients.split(","))
    points: list[Point] = []
    with (
        many_sites(site_levels[-1]) as urls,
        tempfile.TemporaryDirectory(prefix="webmcp-scale-") as tmp,
        sidecar_env(tmp) as env,
    ):
        async with launch(Path(tmp), env, args.mode) as browser, contextlib.AsyncExitStack() as stack:
            pages: list[Page] = []
            first = await stack.enter_async_context(TimedSession(env, name="scale-0"))
            for level in site_levels:
                say(f"[{args.mode}] opening tabs up to {level} sites ...")
                while len(pages) < level:
                    pages.append(await browser.open(f"{urls[len(pages)]}scale.html?tools={args.tools}"))
                expected = level * args.tools
                await first.wait_tools(lambda names, e=expected: site_tool_count(names) == e, timeout=120)
                async with contextlib.AsyncExitStack() as more:
                    clients = [first]
                    for target in client_levels:
                        while len(clients) < target:
                            c = await more.enter_async_context(
                                TimedSession(env, name=f"scale-{len(clients)}")
                            )
                            await c.wait_tools(
                                lambda names, e=expected: site_tool_count(names) == e, timeout=120
                            )
                            clients.append(c)
                        say(f"[{args.mode}] {level} sites x {args.tools} tools, {target} clients ...")
                        list_ms, size = await list_series(first, expected, args.lists)
                        f, a = await propagation(pages[0], clients, args.changes)
                        points.append(Point(level, target, expected, list_ms, size, f, a))
            assert site_of(urls[0])
    return points


def scale_tool(i: int) -> dict[str, object]:
    """As scale.html registers them."""
    return {
        "name": f"tool_{i:02d}",
        "description": f"Scale tool {i}: looks up an item by its id and returns its "
        "fields (a description of ordinary length).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "maxLength": 64},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            },
            "required": ["id"],
        },
        "annotations": {"readOnlyHint": True},
    }


async def run_fake(args: argparse.Namespace) -> str:
    """No Chromium: the host with a scripted browser holding the sites' tools, and tools/list
    from the Python SDK client and from a bare JSON-RPC client (bench.large's LinearClient), so the
    entry's cost is told from the client's."""
    from tests.support.fake_browser import FakeBrowser

    from bench.large import LinearClient

    rows = []
    for level in sorted(int(x) for x in args.sites.split(",")):
        with tempfile.TemporaryDirectory(prefix="wmb-") as tmp, sidecar_env(tmp) as env:
            browser = FakeBrowser(env)
            await browser.start()
            try:
                browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                              "extension_version": "0.1.0", "browser": "Fake"})
                tools = [scale_tool(i) for i in range(args.tools)]
                browser.send(
                    {"type": "registry", "sites": {f"127.0.0.1:{9000 + k}": tools for k in range(level)}}
                )
                expected = level * args.tools
                async with TimedSession(env) as mcp, LinearClient() as linear:
                    await mcp.wait_tools(lambda names, e=expected: site_tool_count(names) == e, timeout=60)
                    sdk, linear_ms = [], []
                    for _ in range(args.lists):
                        t = time.perf_counter()
                        r = await linear.request("tools/list", {})
                        linear_ms.append((time.perf_counter() - t) * 1000)
                        assert site_tool_count({x["name"] for x in r["result"]["tools"]}) == expected
                        stats, _size = await list_series(mcp, expected, 1)
                        sdk.append(stats.median)
                    a, b = Stats.of_ms(linear_ms), Stats.of_ms(sdk)
                    rows.append(
                        [f"{level} x {args.tools}", fmt(a.median), fmt(a.p99), fmt(b.median), fmt(b.p99)]
                    )
            finally:
                await browser.close()
    return table(
        f"tools/list without Chromium ({args.lists} calls each, alternating), ms",
        ["sites x tools", "bare client median", "p99", "Python SDK client median", "p99"],
        rows,
    )


def report(points: list[Point], args: argparse.Namespace) -> str:
    rows = [
        [
            f"{p.sites} x {args.tools}",
            str(p.clients),
            str(p.tools),
            f"{p.list_bytes / 1024:.0f}",
            fmt(p.list_ms.median),
            fmt(p.list_ms.p99),
            fmt(p.first.median),
            fmt(p.first.p99),
            fmt(p.all.median),
            fmt(p.all.p99),
        ]
        for p in points
    ]
    return table(
        f"tools/list ({args.lists} calls, first client) and list_changed propagation "
        f"({args.changes} changes, register/abort alternating), {args.mode}, ms",
        [
            "sites x tools",
            "clients",
            "site tools",
            "list KiB",
            "list median",
            "list p99",
            "changed: first median",
            "first p99",
            "all median",
            "all p99",
        ],
        rows,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--sites", default="1,10,50")
    ap.add_argument("--clients", default="1,4,8")
    ap.add_argument("--tools", type=int, default=20)
    ap.add_argument("--lists", type=int, default=50)
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--mode", choices=["native", "polyfill"], default="polyfill")
    ap.add_argument("--fake", action="store_true", help="no Chromium: tools/list by client only")
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    if args.fake:
        out = anyio.run(run_fake, args)
        print(
            f"bench.scale --fake, {started}, load average {load0:.1f} at the start, "
            f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end{out}"
        )
        return 0
    points = anyio.run(run, args)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"bench.scale, {started}, {os.cpu_count()} cores, load average {load0:.1f} at the start, "
        f"{load} at the end"
    )
    print(report(points, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
