"""What Chromium's transports cost on this machine, with nothing of ours on the way: a bare
extension (bench/floor_ext/) whose worker answers at once, and a bare native host
(bench/floor_host.py) that only relays. A round trip from this process goes socket -> host ->
worker and back, over native messaging or over a loopback WebSocket from the worker to the host
(the host's fast link, removed in issue 30), or over a WebSocket to this process with no host
(what the entry link does), and optionally on to a content script and back (the way a site call
goes): over the content script's runtime port, or over a MessageChannel whose end an extension
frame handed the worker (what the frame lane does). The series run interleaved in blocks; each
gets warm-up calls first.

    .venv/bin/python -m bench.floor --calls 500

The chain's own numbers (bench.chain --hops) read against these: what our code adds is the
difference. See bench/README.md, "The fast link (removed)".
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright
from websockets.asyncio.server import ServerConnection, serve

from bench._util import Stats, fmt, serve_site, table
from webmcp_sidecar.demo.chromium import BASE_FLAGS, find_chromium
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps, parse_payload

EXT = Path(__file__).parent / "floor_ext"
HOST_NAME = "io.webmcp.sidecar.benchfloor"
SERIES = {
    "native messaging: socket -> host -> worker -> back": ("nm", "sw"),
    "WebSocket: socket -> host -> worker -> back": ("ws", "sw"),
    "native messaging, then worker -> content script -> worker": ("nm", "cs"),
    "WebSocket, then worker -> content script -> worker": ("ws", "cs"),
    "WebSocket, then worker -> content script over a MessagePort -> worker": ("ws", "mp"),
    "WebSocket to this process, no host: worker -> content script (MessagePort) -> worker": ("direct", "mp"),
    "WebSocket to this process, no host: worker -> back": ("direct", "sw"),
}


def extension_id(path: Path) -> str:
    """Chromium's id of an unpacked extension: from the sha256 of its absolute path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


class Relay:
    """This process's end: frames to the bare host over its socket, answers matched by `i`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.i = 0
        # The worker's WebSocket to this process (the "direct" series: no host on the way).
        self.direct: ServerConnection | None = None
        self.direct_opened = asyncio.Event()

    async def on_direct(self, conn: ServerConnection) -> None:
        self.direct = conn
        self.direct_opened.set()
        await conn.wait_closed()

    async def direct_trip(self, to: str, timeout: float) -> float:
        assert self.direct is not None
        self.i += 1
        t = time.perf_counter()
        self.direct.protocol.send_text(dumps({"via": "direct", "to": to, "i": self.i}))
        self.direct.send_data()
        async with asyncio.timeout(timeout):
            while True:
                if parse_payload(await self.direct.recv(decode=False)).get("i") == self.i:
                    return (time.perf_counter() - t) * 1000

    async def next(self, match: dict[str, object], timeout: float) -> dict[str, object]:
        async with asyncio.timeout(timeout):
            while True:
                payload = await localsock.read_frame(self.reader)
                if payload is None:
                    raise ConnectionError("the bench host closed")
                msg = parse_payload(payload)
                if all(msg.get(k) == v for k, v in match.items()):
                    return msg

    async def trip(self, via: str, to: str, timeout: float = 10) -> float:
        if via == "direct":
            return await self.direct_trip(to, timeout)
        self.i += 1
        t = time.perf_counter()
        self.writer.write(localsock.frame(dumps({"via": via, "to": to, "i": self.i})))
        await self.next({"i": self.i}, timeout)
        return (time.perf_counter() - t) * 1000


async def run(args: argparse.Namespace) -> dict[str, Stats]:
    with tempfile.TemporaryDirectory(prefix="webmcp-floor-") as tmp, serve_site() as url:
        profile = Path(tmp) / "profile"
        (profile / "NativeMessagingHosts").mkdir(parents=True)
        launcher = Path(tmp) / "floor-host"
        launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m bench.floor_host\n")
        launcher.chmod(0o700)
        (profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").write_text(json.dumps({
            "name": HOST_NAME, "description": "bench floor", "path": str(launcher), "type": "stdio",
            "allowed_origins": [f"chrome-extension://{extension_id(EXT)}/"],
        }))
        sock = Path(tmp) / "floor.sock"
        path = os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
        relay_box: list[Relay] = []

        async def on_direct(conn: ServerConnection) -> None:
            while not relay_box:  # noqa: ASYNC110 (the relay is made once the host is up)
                await asyncio.sleep(0.01)
            await relay_box[0].on_direct(conn)

        direct = await serve(on_direct, "127.0.0.1", 0, compression=None)
        direct_port = direct.sockets[0].getsockname()[1]
        env = {**os.environ, "BENCH_FLOOR_SOCK": str(sock), "PYTHONPATH": path,
               "BENCH_FLOOR_DIRECT_PORT": str(direct_port)}
        async with async_playwright() as p:
            ctx = await p.chromium.launch_persistent_context(
                str(profile), executable_path=find_chromium(), headless=True,
                args=[*BASE_FLAGS, "--no-sandbox", f"--load-extension={EXT}",
                      f"--disable-extensions-except={EXT}"],
                ignore_default_args=["--disable-extensions"], env=env,
            )
            try:
                page = await ctx.new_page()
                await page.goto(url + "bench.html")
                async with asyncio.timeout(20):
                    while not sock.exists():  # noqa: ASYNC110 (a file the host makes)
                        await asyncio.sleep(0.05)
                relay = Relay(*await asyncio.open_unix_connection(str(sock)))
                relay_box.append(relay)
                await relay.next({"ready": True}, 20)
                await asyncio.wait_for(relay.direct_opened.wait(), 20)
                async with asyncio.timeout(20):  # until the worker's WebSocket is open
                    while True:
                        try:
                            await relay.trip("ws", "sw", timeout=0.2)
                            break
                        except TimeoutError:
                            pass
                ms: dict[str, list[float]] = {name: [] for name in SERIES}
                for via, to in SERIES.values():
                    for _ in range(args.warmup):
                        await relay.trip(via, to)
                for _ in range(max(1, args.calls // args.block)):
                    for name, (via, to) in SERIES.items():
                        ms[name] += [await relay.trip(via, to) for _ in range(args.block)]
                relay.writer.close()
            finally:
                await ctx.close()
                direct.close()
    return {name: Stats.of_ms(v) for name, v in ms.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=500, help="round trips per series")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--block", type=int, default=50, help="round trips per block when interleaving")
    stats = asyncio.run(run(ap.parse_args()))
    rows = [[name, str(s.n), fmt(s.median), fmt(s.p90), fmt(s.p99), fmt(s.max)]
            for name, s in stats.items()]
    header = ["", "n", "median", "p90", "p99", "max"]
    print(table("The transports alone (bare extension and host), ms", header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
