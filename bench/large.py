"""A 5 MiB page result through the whole chain, by client: the Python MCP SDK's and the
TypeScript SDK's (`@modelcontextprotocol/sdk`, bench/ts_client.mjs), each starting its own
`webmcp-sidecar mcp` the SDK's default way, next to the same result without MCP (a raw socket
link to the host, as the entry speaks it: host -> native messaging -> worker -> page and back)
and the page's own time for it (executeTool timed in the page). So a slow client reader is told
apart from our entry's cost, and that from the browser's.

The page tool `blob` (bench/site/bench.html) returns a string of n ASCII bytes; every answer is
checked byte for byte. The series run interleaved one call at a time after one warm-up each.

    .venv/bin/python -m bench.large [--calls 10] [--mode native|polyfill] [--mib 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Page
from tests.support.browser import launch
from tests.support.mcp_session import text as result_text

from bench._util import Stats, TimedSession, fmt, say, serve_site, sidecar_env, site_of, stats_row, table
from bench.chain_hops import RawHostLink
from bench.chain_series import PATTERN, Series, interleave, timed_calls
from webmcp_sidecar.paths import socket_dir
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps, parse_payload
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[1]
TS_CLIENT = ROOT / "bench" / "ts_client.mjs"
MIB = 1024 * 1024

IN_PAGE = """async ([n]) => {
  const mc = document.modelContext;
  const tool = (await mc.getTools()).find((t) => t.name === 'blob');
  const t = performance.now();
  const r = await mc.executeTool(tool, { n });
  return { ms: performance.now() - t, len: typeof r === 'string' ? r.length : -1 };
}"""


class RawBlob(RawHostLink):
    """The entry's socket link without MCP: a `call` of `blob`, timed until its whole result."""

    async def blob(self, n: int) -> bool:
        self._seq += 1
        call_id = f"{self.conn}.{self._seq}"
        call = {
            "type": "call",
            "id": call_id,
            "site": self.site,
            "tool": "blob",
            "args": {"n": n},
            "timeout_ms": 120000,
            "max_bytes": 64 * MIB,
        }
        self.writer.write(localsock.frame(dumps(call)))
        while True:
            payload = await localsock.read_frame(self.reader)
            if payload is None:
                raise ConnectionError("the host closed the link")
            msg = parse_payload(payload)  # the entry parses it too
            if msg.get("type") == "result" and msg.get("id") == call_id:
                value = msg.get("value")
                return msg.get("ok") is True and isinstance(value, str) and len(value) == n


SW_BLOB = """async ([site, n]) => {
  const entry = [...globalThis.sidecar.framePorts.values()].find((e) => e.site === site);
  const port = entry.port;
  const id = `bench-sw-${globalThis.benchSeq = (globalThis.benchSeq || 0) + 1}`;
  const t = performance.now();
  const parts = [];  // a long result comes in pieces first (lib/result-parts.js)
  const msg = await new Promise((resolve) => {
    const on = (m) => {
      if (m?.type === 'result_part' && m.id === id) parts.push(m.data);
      if (m?.type !== 'result' || m.id !== id) return;
      port.onMessage.removeListener(on);
      resolve({ ...m, value: parts.join('') + m.value });
    };
    port.onMessage.addListener(on);
    port.postMessage({ type: 'call', id, tool: 'blob', args: { n }, timeout_ms: 120000,
                       max_bytes: 67108864 });
  });
  return { ms: performance.now() - t, len: typeof msg.value === 'string' ? msg.value.length : -1 };
}"""


class LinearClient:
    """A bare JSON-RPC client of the entry that reads lines in linear time (asyncio's readuntil
    keeps its scan offset): the entry's own cost, without an SDK client's reader."""

    async def __aenter__(self) -> LinearClient:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "webmcp_sidecar",
            "mcp",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=256 * MIB,
            env={k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "USER", "LOGNAME")},
        )
        self._id = 0
        await self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench-linear", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdout
        self._id += 1
        self._send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        while True:
            line = await self.proc.stdout.readuntil(b"\n")
            msg = json.loads(line)
            if msg.get("id") == self._id:
                return dict(msg)

    async def name_of(self, site: str, tool: str) -> str:
        for _ in range(300):
            for t in (await self.request("tools/list", {}))["result"]["tools"]:
                meta = t.get("_meta") or {}
                if meta.get("io.webmcp.sidecar/site") == site and meta.get("io.webmcp.sidecar/tool") == tool:
                    return str(t["name"])
            await asyncio.sleep(0.1)
        raise LookupError(f"{tool} of {site} never showed up")

    async def __aexit__(self, *exc: object) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()


class TsClient:
    """bench/ts_client.mjs as a subprocess: one call per request line."""

    async def __aenter__(self) -> TsClient:
        cmd = json.dumps([sys.executable, "-m", "webmcp_sidecar"])
        self.proc = await asyncio.create_subprocess_exec(
            "node",
            str(TS_CLIENT),
            cmd,
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        ready = json.loads(await self._line())
        self.version = str(ready["version"])
        return self

    async def _line(self) -> bytes:
        assert self.proc.stdout
        line = await self.proc.stdout.readline()
        if not line:
            raise ConnectionError("the TypeScript client ended")
        return line

    async def call(self, req: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(req).encode() + b"\n")
        return dict(json.loads(await self._line()))

    async def __aexit__(self, *exc: object) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()


async def run_mode(mode: str, url: str, args: argparse.Namespace) -> dict[str, Stats]:
    site = site_of(url)
    n = args.mib * MIB
    expected = PATTERN * (n // len(PATTERN))
    with tempfile.TemporaryDirectory(prefix="webmcp-bench-") as tmp, sidecar_env(tmp) as env:
        async with launch(Path(tmp), env, mode) as browser:
            page: Page = await browser.open(url + "bench.html")
            worker = await browser.worker()

            async def page_block(start: int, k: int) -> tuple[list[float], int]:
                ms, wrong = [], 0
                for _ in range(k):
                    r = await page.evaluate(IN_PAGE, [n])
                    ms.append(float(r["ms"]))
                    wrong += r["len"] != n
                return ms, wrong

            async def sw_block(start: int, k: int) -> tuple[list[float], int]:
                ms, wrong = [], 0
                for _ in range(k):
                    r = await worker.evaluate(SW_BLOB, [site, n])
                    ms.append(float(r["ms"]))
                    wrong += r["len"] != n
                return ms, wrong

            first = [
                Series("in-page executeTool", args.calls, page_block),
                Series("SW -> content script -> page -> SW", args.calls, sw_block),
            ]
            return await client_series(env, site, n, expected, args, env["HOME"], first)


BLOB_TOOL = {
    "name": "blob",
    "description": "Returns a string of n bytes",
    "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
}


async def run_fake(args: argparse.Namespace) -> dict[str, Stats]:
    """No browser: the real host with a scripted one (tests/support/fake_browser.py) that answers
    each `blob` call at once, so what is left is host, entry and client, without Chromium."""
    from tests.support.fake_browser import FakeBrowser

    n = args.mib * MIB
    expected = PATTERN * (n // len(PATTERN))
    site = "bench.test"
    with tempfile.TemporaryDirectory(prefix="wmb-") as tmp, sidecar_env(tmp) as env:
        browser = FakeBrowser(env)
        await browser.start()
        tail = dumps({"ok": True, "value": expected, "tab_id": 1})[1:]

        async def answer() -> None:
            while True:
                msg = await browser.inbox.get()
                if msg.get("type") == "call":
                    browser.send_raw(b'{"type":"result","id":' + dumps(msg["id"]) + b"," + tail)

        responder = asyncio.ensure_future(answer())
        try:
            browser.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                          "extension_version": "0.1.0", "browser": "Fake"})
            browser.send({"type": "registry", "sites": {site: [BLOB_TOOL]}})
            return await client_series(env, site, n, expected, args, str(Path(tmp) / "home"))
        finally:
            responder.cancel()
            await browser.close()


async def client_series(
    env: dict[str, str],
    site: str,
    n: int,
    expected: str,
    args: argparse.Namespace,
    home: str,
    first: list[Series] | None = None,
) -> dict[str, Stats]:
    async with contextlib.AsyncExitStack() as stack:
        mcp = await stack.enter_async_context(TimedSession(env))
        blob = await mcp.tool_name(site, "blob")
        raw = await stack.enter_async_context(RawBlob(str(socket_dir()), site))
        linear = await stack.enter_async_context(LinearClient())
        linear_name = await linear.name_of(site, "blob")

        async def raw_one(i: int) -> bool:
            return await raw.blob(n)

        async def linear_one(i: int) -> bool:
            r = await linear.request("tools/call", {"name": linear_name, "arguments": {"n": n}})
            content = r.get("result", {}).get("content") or [{}]
            return content[0].get("text") == expected

        async def python_one(i: int) -> bool:
            assert mcp.client
            r = await mcp.client.call_tool(blob, {"n": n})
            return not r.is_error and result_text(r) == expected

        series = [
            *(first or []),
            Series("raw socket -> host -> browser -> page (no MCP)", args.calls, timed_calls(raw_one)),
            Series("linear JSON-RPC client -> entry -> ... -> page", args.calls, timed_calls(linear_one)),
            Series("Python MCP SDK client -> entry -> ... -> page", args.calls, timed_calls(python_one)),
        ]
        if args.ts:
            ts = await stack.enter_async_context(TsClient())
            req = {"site": site, "tool": "blob", "args": {"n": n}, "pattern": PATTERN}

            async def ts_block(start: int, k: int) -> tuple[list[float], int]:
                ms, wrong = [], 0
                for _ in range(k):
                    r = await ts.call(req)
                    ms.append(float(r["ms"]))
                    wrong += not r["ok"]
                return ms, wrong

            series.append(
                Series(
                    f"TypeScript MCP SDK {ts.version} client -> entry -> ... -> page", args.calls, ts_block
                )
            )
        await interleave(series, 1, 1)
        if errors := sum(s.errors for s in series):
            raise SystemExit(f"{errors} wrong answers")
        return {s.name: Stats.of_ms(s.ms) for s in series}


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--mib", type=int, default=5)
    ap.add_argument(
        "--mode",
        choices=["native", "polyfill"],
        action="append",
        help="WebMCP flavour (repeatable; default: both)",
    )
    ap.add_argument(
        "--fake",
        action="store_true",
        help="no Chromium: the host with a scripted browser (host, entry and clients only)",
    )
    ap.add_argument("--no-ts", dest="ts", action="store_false", help="skip the TypeScript client")
    args = ap.parse_args()
    if args.ts and not (shutil.which("node") and (ROOT / "node_modules/@modelcontextprotocol/sdk").is_dir()):
        say("no node or no node_modules/@modelcontextprotocol/sdk (npm install): skipping the TS client")
        args.ts = False
    modes = ["fake browser"] if args.fake else args.mode or ["native", "polyfill"]

    async def run() -> list[tuple[str, dict[str, Stats]]]:
        if args.fake:
            return [("fake browser", await run_fake(args))]
        with serve_site() as url:
            out = []
            for mode in modes:
                say(f"[{mode}] {args.mib} MiB results ...")
                out.append((mode, await run_mode(mode, url, args)))
            return out

    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    results = anyio.run(run)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"bench.large, {started}, {os.cpu_count()} cores, load average {load0:.1f} at the start, "
        f"{load} at the end"
    )
    for mode, stats in results:
        rows = [stats_row(name, s) for name, s in stats.items()]
        print(
            table(
                f"{mode}: a {args.mib} MiB result, ms ({args.calls} calls a series, interleaved "
                "one by one; every answer checked)",
                ["", "n", "median", "p90", "p99", "max"],
                rows,
            )
        )
        names = list(stats)
        rows = []
        if not args.fake:
            page, sw = stats[names[0]], stats[names[1]]
            rows += [
                ["SW <-> content script <-> page (SW path - in-page)", fmt(sw.median - page.median)],
                [
                    "native messaging + host + socket (raw socket path - SW path)",
                    fmt(stats[names[2]].median - sw.median),
                ],
            ]
            names = names[2:]
        raw = stats[names[0]]
        for name in names[1:]:
            rows.append(
                [
                    f"{name.split(' client')[0]} client + entry (its chain - raw socket path)",
                    fmt(stats[name].median - raw.median),
                ]
            )
        print(table(f"{mode}: by subtraction, medians, ms", ["part", "ms"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
