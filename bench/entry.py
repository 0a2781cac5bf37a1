"""The MCP entry alone, A/B: its per-call cost without a browser, against another build of it.

The real host runs with a scripted browser (tests/support/fake_browser.py) that answers every
`call` of the `add(a, b)` tool at once, so a tools/call crosses client -> entry -> socket -> host
-> pipe -> fake browser and back, with no Chromium noise; or, as the worker does, the scripted
browser opens each entry's own link (the entry link, mcp_server/entry_link.py) and answers the
calls there: client -> entry -> loopback WebSocket -> fake browser. `--no-link` runs this
checkout's entry a second time with its link off, beside the first. Next to it, MCP `ping` (client <->
entry only). With `--base DIR` a second entry runs from DIR (a checkout's `host/` dir, e.g.
`git archive HEAD host | tar -x -C /tmp/base`) on the same host, and the series of both
entries run interleaved in blocks, so load on this shared machine hits them alike.

    .venv/bin/python -m bench.entry [--calls 2000] [--entry base=/tmp/base/host] [--rounds 3] [--no-link]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from typing import Any

import anyio
from tests.support.fake_browser import FakeBrowser
from websockets.asyncio.client import connect

from bench._util import Stats, TimedSession, against, cpu_seconds, sidecar_env, stats_row, table
from bench.chain_series import Series, chain_via, interleave, ping_via, timed_calls
from bench.chain_series import entry_command as chain_entry_command
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.mcp_server.entry_link import ENTRY_LINK_ENV
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

ORIGIN = f"chrome-extension://{EXTENSION_ID}"
SITE = "bench.test"
ADD = {
    "name": "add",
    "description": "Adds two numbers",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
}


def answer(msg: dict[str, Any]) -> dict[str, Any]:
    """A `call` of `add` answered as the page would (`type` and `id` first, as the worker writes)."""
    args = msg.get("args") or {}
    value = json.dumps({"sum": args.get("a", 0) + args.get("b", 0)}, separators=(",", ":"))
    return {"type": "result", "id": msg["id"], "ok": True, "value": value}


async def serve_entry_link(offer: dict[str, Any]) -> None:
    """The worker's side of an entry's link: opened with the extension's Origin, calls answered."""
    url = f"ws://127.0.0.1:{offer['port']}/link/{offer['token']}"
    async with connect(url, origin=ORIGIN, compression=None) as ws:  # type: ignore[arg-type]
        async for frame in ws:
            msg = json.loads(frame)
            if msg.get("type") == "call":
                await ws.send(json.dumps(answer(msg), separators=(",", ":")))


async def answer_calls(browser: FakeBrowser, links: list[asyncio.Task[None]], open_links: bool) -> None:
    """The scripted browser: every `call` answered at once; every entry link offered, opened
    (unless `open_links` is false: then every call takes the host)."""
    while True:
        msg = await browser.inbox.get()
        if msg.get("type") == "call":
            browser.send(answer(msg))
        elif msg.get("type") == "entry_link" and open_links:
            links.append(asyncio.ensure_future(serve_entry_link(msg)))


def entry_pids() -> dict[tuple[str | None, bool], int]:
    """This process's MCP entries (Linux /proc), by the package dir they run from (None: ours)
    and whether their link is off."""
    out: dict[tuple[str | None, bool], int] = {}
    if not sys.platform.startswith("linux"):
        return out
    for proc in os.scandir("/proc"):
        try:
            if not proc.name.isdigit():
                continue
            with open(f"{proc.path}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"{proc.path}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            if ppid != os.getpid() or b"webmcp_sidecar" not in cmd or b"mcp" not in cmd:
                continue
            with open(f"{proc.path}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
        except (OSError, ValueError):
            continue
        base = env.get(b"PYTHONPATH")
        no_link = env.get(ENTRY_LINK_ENV.encode()) == b"0"
        out[(base.decode() if base else None, no_link)] = int(proc.name)
    return out


def entry_command(base: str | None, no_link: bool = False) -> list[str] | None:
    """How to start the entry: this checkout's (None), or the one whose package dir is `base`;
    with its link off."""
    cmd = [sys.executable, "-m", "webmcp_sidecar"] if base is None else chain_entry_command(base)
    if no_link:
        return ["/usr/bin/env", f"{ENTRY_LINK_ENV}=0", *cmd]
    return None if base is None else cmd


async def series_for(label: str, mcp: TimedSession, calls: int) -> list[Series]:
    name = await mcp.tool_name(SITE, "add")
    call_one, ping_one = chain_via(mcp, name), ping_via(mcp)
    return [
        Series(f"{label}: tools/call add", calls, timed_calls(call_one)),
        Series(f"{label}: ping", calls, timed_calls(ping_one)),
    ]


async def run(args: argparse.Namespace) -> tuple[list[dict[str, Stats]], list[dict[str, float]]]:
    rounds: list[dict[str, Stats]] = []
    cpu: list[dict[str, float]] = []  # per round: entry label -> CPU ms per request
    with tempfile.TemporaryDirectory(prefix="wmb-") as tmp, sidecar_env(tmp) as env:
        browser = FakeBrowser(env)
        await browser.start()
        links: list[asyncio.Task[None]] = []
        responder = asyncio.ensure_future(answer_calls(browser, links, args.link))
        try:
            browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                          "extension_version": "0.1.0", "browser": "Fake"})
            browser.send({"type": "registry", "sites": {SITE: [ADD]}})
            async with contextlib.AsyncExitStack() as stack:
                entries: list[tuple[str, str | None, bool]] = [("tree", None, False)] if args.tree else []
                entries += [("no-link", None, True)] if args.no_link else []
                entries += [(*e.split("=", 1), False) for e in args.entry]  # type: ignore[misc]
                sessions = []
                for label, base, no_link in entries:
                    mcp = TimedSession(env, name=f"bench-{label}", command=entry_command(base, no_link))
                    sessions.append((label, await stack.enter_async_context(mcp)))
                if args.link:  # until every entry's own link is open (the rest have it off)
                    async with asyncio.timeout(10):
                        while len(links) < sum(1 for _, _, off in entries if not off):  # noqa: ASYNC110
                            await asyncio.sleep(0.02)
                    await asyncio.sleep(0.2)
                pids = entry_pids()
                by_label = {label: pids.get((base, no_link)) for label, base, no_link in entries}
                for _ in range(args.rounds):
                    cpu0 = {label: cpu_seconds(pid) for label, pid in by_label.items() if pid}
                    series: list[Series] = []
                    for label, mcp in sessions:
                        series += await series_for(label, mcp, args.calls)
                    # By call type, entries alternating within it: A call, B call, A ping, B ping.
                    series.sort(key=lambda s: s.name.split(": ")[1])
                    await interleave(series, args.warmup, args.block)
                    rounds.append({s.name: Stats.of_ms(s.ms) for s in series})
                    requests = 2 * (args.calls + args.warmup)  # calls and pings of each entry
                    cpu.append(
                        {
                            label: (cpu_seconds(by_label[label] or 0) - t) * 1000 / requests
                            for label, t in cpu0.items()
                        }
                    )
                    errors = sum(s.errors for s in series)
                    if errors:
                        raise SystemExit(f"{errors} wrong answers")
        finally:
            responder.cancel()
            for task in links:
                task.cancel()
            await browser.close()
    return rounds, cpu


def report(rounds: list[dict[str, Stats]], cpu: list[dict[str, float]], args: argparse.Namespace) -> str:
    out: list[str] = []
    for k, r in enumerate(rounds, 1):
        rows = [stats_row(name, s) for name, s in r.items()]
        rows += [
            [f"{label}: entry CPU per request", "", f"{ms:.3f}", "", "", ""]
            for label, ms in cpu[k - 1].items()
        ]
        out.append(
            table(
                f"Round {k}: ms, {args.calls} calls a series after {args.warmup} warm-up, "
                f"interleaved in blocks of {args.block}",
                ["", "n", "median", "p90", "p99", "max"],
                rows,
            )
        )
    labels = list(dict.fromkeys(name.split(": ")[0] for name in rounds[0])) if rounds else []
    if len(labels) > 1:
        ref = labels[0]
        pairs: list[tuple[str, Stats, Stats]] = []
        for k, r in enumerate(rounds, 1):
            for kind in ("tools/call add", "ping"):
                base = r[f"{ref}: {kind}"]
                pairs += [(f"round {k}: {kind}, {b}", r[f"{b}: {kind}"], base) for b in labels[1:]]
        out.append(against(ref, pairs, lambda x: f"{x:.3f}"))
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--calls", type=int, default=2000, help="sequential calls per series")
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--block", type=int, default=50, help="calls per block when interleaving")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--entry",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="another entry to compare: the package dir it runs from (repeatable)",
    )
    ap.add_argument("--no-tree", dest="tree", action="store_false", help="leave out this checkout's entry")
    ap.add_argument("--no-link", action="store_true",
                    help="also this checkout's entry with its own link off (calls through the host)")
    ap.add_argument("--host-only", dest="link", action="store_false",
                    help="the scripted browser opens no entry link: every call through the host")
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    rounds, cpu = anyio.run(run, args)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"bench.entry, {started}, {os.cpu_count()} cores, load average {load0:.1f} at the start, "
        f"{load} at the end"
    )
    print(report(rounds, cpu, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
