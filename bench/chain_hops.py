"""bench.chain --hops: each sub-path of the chain on its own, interleaved like the round trip, and
the CPU each process of the chain spends per call (where the time goes)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page, Worker

from bench._util import Stats, TimedSession, cpu_seconds, fmt, site_of, stats_row, table
from bench.chain_series import (
    MIB,
    ModeResult,
    Series,
    chain_via,
    in_page_block,
    interleave,
    ping_via,
    timed_calls,
)
from bench.peer_devtools_mcp import PeerSession
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps, parse_payload
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

# Runs in the service worker: the hop SW -> content script -> page -> SW, on the frame port the
# worker itself uses (its own listener ignores these ids: they are not in its `pending`).
SW_BLOCK = """async ([site, start, n]) => {
  const entry = [...globalThis.sidecar.framePorts.values()].find((e) => e.site === site);
  const port = entry.port;
  const one = (a) => new Promise((resolve) => {
    const id = `bench-sw-${globalThis.benchSeq = (globalThis.benchSeq || 0) + 1}`;
    const on = (msg) => {
      if (msg?.type !== 'result' || msg.id !== id) return;
      port.onMessage.removeListener(on);
      resolve(msg);
    };
    port.onMessage.addListener(on);
    port.postMessage({ type: 'call', id, tool: 'add', args: { a, b: 1 }, timeout_ms: 60000,
                       max_bytes: 16777216 });
  });
  const ms = [];
  let wrong = 0;
  for (let i = start; i < start + n; i++) {
    const t = performance.now();
    const r = await one(i);
    ms.push(performance.now() - t);
    if (r.value !== JSON.stringify({ sum: i + 1 })) wrong++;
  }
  return { ms, wrong };
}"""


HOP_CHAIN = "chain: MCP client -> entry -> host -> SW -> page"
HOP_PING = "MCP ping: client <-> entry only"
HOP_PEER_PING = "MCP ping: client <-> chrome-devtools-mcp only"
HOP_META = "MCP tools/call list_site_tools (entry only)"
HOP_SOCKET = "socket -> host -> native msg -> SW -> page (no MCP)"
HOP_SW = "SW -> content script -> page -> SW"
HOP_PAGE = "in-page executeTool"


class RawHostLink:
    """What the MCP entry does on the socket, without MCP: hello, then call frames by id."""

    def __init__(self, sock_dir: str, site: str) -> None:
        self.sock_dir = Path(sock_dir)
        self.site = site
        self._seq = 0

    async def __aenter__(self) -> RawHostLink:
        (path,) = self.sock_dir.glob("host-*.sock")
        self.reader, self.writer = await localsock.connect(localsock.Endpoint(path))
        self.writer.write(localsock.frame(dumps({"type": "entry_hello", "protocol": PROTOCOL_VERSION,
                                                 "client": "bench", "pid": 1})))
        self.conn = str((await self._next("welcome"))["conn"])
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.writer.close()

    async def _next(self, kind: str, call_id: str | None = None) -> dict[str, Any]:
        while True:
            payload = await localsock.read_frame(self.reader)
            if payload is None:
                raise ConnectionError("the host closed the link")
            msg = parse_payload(payload)
            if msg.get("type") == kind and (call_id is None or msg.get("id") == call_id):
                return msg

    async def call(self, i: int) -> bool:
        self._seq += 1
        call_id = f"{self.conn}.{self._seq}"
        self.writer.write(localsock.frame(dumps({
            "type": "call", "id": call_id, "site": self.site, "tool": "add", "args": {"a": i, "b": 1},
            "timeout_ms": 60000, "max_bytes": 16 * MIB,
        })))
        msg = await self._next("result", call_id)
        return bool(msg.get("ok")) and msg.get("value") == f'{{"sum":{i + 1}}}'


async def hops(res: ModeResult, page: Page, worker: Worker, mcp: TimedSession, add: str, url: str,
               sock_dir: str, args: argparse.Namespace) -> None:
    """Each sub-path of the chain on its own, interleaved like the round trip."""
    site = site_of(url)
    client = mcp.client
    assert client
    chain_one, ping_one = chain_via(mcp, add), ping_via(mcp)

    async def meta_one(i: int) -> bool:
        return not (await client.call_tool("list_site_tools", {"site": site})).is_error

    async def sw_block(start: int, n: int) -> tuple[list[float], int]:
        out = await worker.evaluate(SW_BLOCK, [site, start, n])
        return list(out["ms"]), int(out["wrong"])

    async with contextlib.AsyncExitStack() as stack:
        raw = await stack.enter_async_context(RawHostLink(sock_dir, site))
        series = [
            Series(HOP_CHAIN, args.calls, timed_calls(chain_one)),
            Series(HOP_PING, args.calls, timed_calls(ping_one)),
            Series(HOP_META, args.calls, timed_calls(meta_one)),
            Series(HOP_SOCKET, args.calls, timed_calls(raw.call)),
            Series(HOP_SW, args.calls, sw_block),
            Series(HOP_PAGE, args.calls, in_page_block(page)),
        ]
        if res.mode == "native" and args.peer and not res.peer_problem:
            # The peer's own MCP floor, next to our entry's (same SDK client on both).
            peer = await stack.enter_async_context(PeerSession(url + "bench.html"))
            series.insert(2, Series(HOP_PEER_PING, args.calls, timed_calls(peer.ping)))
        await interleave(series, args.warmup, args.block)
    res.hops = {s.name: Stats.of_ms(s.ms) for s in series}
    res.hop_errors = sum(s.errors for s in series)
    res.cpu_per_call = await cpu_per_call(chain_one, sock_dir, args.calls)


def chain_processes(sock_dir: str) -> dict[int, str]:
    """pid -> role of every process on the chain (Linux /proc): this client, its MCP entry, the
    host (its pid names its socket) and the Chromium processes of this run's profile."""
    profile = str(Path(sock_dir).parent)
    (sock,) = Path(sock_dir).glob("host-*.sock")
    roles = {os.getpid(): "MCP client (this process)", int(sock.stem.split("-")[1]): "host"}
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or int(proc.name) in roles:
                continue
            # Chromium's child processes rewrite their argv into one space-joined string.
            args = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            continue
        if ppid == os.getpid() and "webmcp_sidecar" in args and "mcp" in args:
            roles[int(proc.name)] = "MCP entry (webmcp-sidecar mcp)"
        elif any(a.startswith("--user-data-dir=" + profile) for a in args):
            kind = next((a.split("=", 1)[1] for a in args if a.startswith("--type=")), "browser")
            if kind == "renderer":
                kind = "renderer: extension" if "--extension-process" in args else "renderers: pages"
            roles[int(proc.name)] = f"chromium {kind}"
    return roles


async def cpu_per_call(one: Callable[[int], Awaitable[bool]], sock_dir: str, calls: int) -> dict[str, float]:
    """CPU milliseconds each process of the chain spends per sequential call. On 2 cores the
    sum, not just the critical path, bounds throughput and feeds the tail latency."""
    if not sys.platform.startswith("linux"):
        return {}
    roles = chain_processes(sock_dir)
    before = {pid: cpu_seconds(pid) for pid in roles}
    for i in range(calls):
        await one(i)
    out: dict[str, float] = {}
    for pid, role in roles.items():
        out[role] = out.get(role, 0.0) + (cpu_seconds(pid) - before[pid]) * 1000 / calls
    return out



def hops_report(r: ModeResult) -> str:
    h = r.hops
    rows = [stats_row(name, st) for name, st in h.items()]
    out = [table(f"Where the time goes ({r.mode}), ms, interleaved; wrong answers: {r.hop_errors}",
                 ["", "n", "median", "p90", "p99", "max"], rows)]

    def diff(a: str, b: str | None) -> list[str]:
        lo_med = h[b].median if b else 0.0
        lo_p99 = h[b].p99 if b else 0.0
        return [fmt(h[a].median - lo_med), fmt(h[a].p99 - lo_p99)]

    out.append(table(f"Per hop ({r.mode}), by subtraction, ms (p99 column: difference of p99s, rough)",
                     ["hop", "median", "p99"], [
        ["MCP client + stdio + entry (chain - socket path)", *diff(HOP_CHAIN, HOP_SOCKET)],
        ["socket + host + native messaging (socket path - SW path)", *diff(HOP_SOCKET, HOP_SW)],
        ["SW <-> tab IPC + content script (SW path - in-page)", *diff(HOP_SW, HOP_PAGE)],
        ["page: executeTool", *diff(HOP_PAGE, None)],
    ]))
    if r.cpu_per_call:
        cpu = sorted(r.cpu_per_call.items(), key=lambda kv: -kv[1])
        rows = [[role, f"{ms:.2f}"] for role, ms in cpu if ms >= 0.005]
        rows.append(["total", f"{sum(ms for _, ms in cpu):.2f}"])
        out.append(table(f"CPU per call by process ({r.mode}), ms (/proc, sequential calls)",
                         ["process", "CPU ms"], rows))
    return "\n".join(out)
