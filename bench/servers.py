"""Local MCP servers through the host (docs/SERVERS.md), measured:

1. Warm call: server-everything's `echo`, called through the host's panel path — a
   `panel_servers` `call` message on the native link (what the side panel's Inspector sends; the
   worker only relays it) -> the host's servers plugin -> ServerManager -> the server over stdio
   -> back — next to the same server called directly with the `mcp` SDK's client. The
   difference is our overhead per call. Interleaved in blocks.
2. Cold first call: a fresh host, the server not running: the first `call` (server start and
   the MCP handshake included).

The browser side is tests/support/fake_browser.py (the real host, started as Chrome starts it,
speaking native messaging), so no Chromium runs here.

    .venv/bin/python -m bench.servers [--calls 300] [--cold 10]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters
from tests.support.fake_browser import FakeBrowser

from bench._util import Stats, stats_row, table
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = REPO / "node_modules" / ".bin" / "mcp-server-everything"
_ids = itertools.count(1)


def env_for(tmp: Path) -> dict[str, str]:
    config = tmp / "config"
    config.mkdir(parents=True, exist_ok=True)
    servers = {"mcpServers": {"everything": {"command": str(EVERYTHING), "args": ["stdio"]}}}
    (config / "servers.json").write_text(json.dumps(servers))
    return {"HOME": str(tmp), "WEBMCP_SIDECAR_CONFIG_DIR": str(config),
            "WEBMCP_SIDECAR_LOG_DIR": str(tmp / "log"), "WEBMCP_SIDECAR_DATA_DIR": str(tmp / "data")}


async def host_call(browser: FakeBrowser, text: str) -> float:
    call_id = f"b{next(_ids)}"
    t = time.perf_counter()
    browser.send({"type": "panel_servers", "id": call_id, "op": "call", "server": "everything",
                  "tool": "echo", "args": {"message": text}})
    while True:
        msg = await browser.expect("agent_servers", timeout=60)
        if msg.get("id") == call_id:
            break
    ms = (time.perf_counter() - t) * 1000
    result = msg.get("result") or {}
    if not result.get("ok") or text not in json.dumps(result.get("value")):
        raise RuntimeError(f"wrong answer: {msg}")
    return ms


async def host_of(tmp: Path) -> FakeBrowser:
    browser = FakeBrowser(env_for(tmp))
    await browser.start()
    browser.send({"type": "hello", "extension_version": "bench", "browser": "bench",
                  "protocol": PROTOCOL_VERSION})
    return browser


async def warm(calls: int, block: int) -> dict[str, Stats]:
    out: dict[str, list[float]] = {"through the host (panel path)": [],
                                   "direct, mcp SDK client": []}
    with tempfile.TemporaryDirectory() as tmp:
        browser = await host_of(Path(tmp))
        params = StdioServerParameters(command=str(EVERYTHING), args=["stdio"])
        async with Client(params, mode="legacy") as direct:
            for i in range(20):  # warm up both (the host starts its server on first use)
                await host_call(browser, f"w{i}")
                await direct.call_tool("echo", {"message": f"w{i}"})
            for rnd in range(calls // block):
                for label in (list(out) if rnd % 2 == 0 else list(reversed(out))):
                    for i in range(block):
                        text = f"m{rnd}.{i}"
                        if label.startswith("through"):
                            out[label].append(await host_call(browser, text))
                        else:
                            t = time.perf_counter()
                            r = await direct.call_tool("echo", {"message": text})
                            out[label].append((time.perf_counter() - t) * 1000)
                            if text not in json.dumps(r.model_dump(mode="json")):
                                raise RuntimeError("wrong direct answer")
        await browser.close()
    return {k: Stats.of_ms(v) for k, v in out.items()}


async def cold(n: int) -> Stats:
    ms = []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as tmp:
            browser = await host_of(Path(tmp))
            await browser.expect("host_hello", timeout=30)
            ms.append(await host_call(browser, "first"))
            await browser.close()
    return Stats.of_ms(ms)


def main() -> int:
    ap = argparse.ArgumentParser(
        description="Local MCP servers: warm calls through the host vs direct; cold call.")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--block", type=int, default=25)
    ap.add_argument("--cold", type=int, default=10)
    args = ap.parse_args()

    async def run() -> tuple[dict[str, Stats], Stats]:
        return await warm(args.calls, args.block), await cold(args.cold)

    started = time.strftime("%Y-%m-%d %H:%M")
    w, c = asyncio.run(run())
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    header = ["series", "n", "median", "p90", "p99", "max"]
    print(f"bench.servers, {started}, {os.cpu_count()} cores, load average at the end {load}")
    print(table("Warm call of server-everything's echo (ms)", header,
                [stats_row(k, v) for k, v in w.items()]))
    print(table("Cold first call through a fresh host: server start + handshake + call (ms)", header,
                [stats_row("first call", c)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
