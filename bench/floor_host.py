"""bench/floor.py's native host: relays frames between one local socket client (the bench) and
the bench extension's worker, over native messaging or a loopback WebSocket as each frame asks
(`"via": "ws"`), with nothing else on the way. Started by Chromium; BENCH_FLOOR_SOCK names the
socket."""

from __future__ import annotations

import asyncio
import os
import sys

from websockets.asyncio.server import ServerConnection, serve

from webmcp_sidecar.native_host.stdio import open_stdio
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps


async def main() -> None:
    reader, to_browser = await open_stdio()
    bench: list[asyncio.StreamWriter] = []
    ws_conn: list[ServerConnection] = []

    def to_bench(payload: bytes) -> None:
        for w in bench:
            w.write(localsock.frame(payload))

    async def on_ws(conn: ServerConnection) -> None:
        ws_conn.append(conn)
        async for msg in conn:
            to_bench(msg.encode() if isinstance(msg, str) else msg)

    ready: list[bytes] = []  # the worker's `ready` (its content script is there), for late clients

    async def on_bench(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        bench.append(w)
        for payload in ready:
            w.write(localsock.frame(payload))
        while (payload := await localsock.read_frame(r)) is not None:
            if b'"via":"ws"' in payload:
                if ws_conn:  # else dropped: the bench asks again until the worker has opened it
                    ws_conn[0].protocol.send_text(payload)
                    ws_conn[0].send_data()
            else:
                to_browser.write(payload)

    server = await serve(on_ws, "127.0.0.1", 0, compression=None)
    await asyncio.start_unix_server(on_bench, os.environ["BENCH_FLOOR_SOCK"])
    to_browser.write(dumps({"ws_port": server.sockets[0].getsockname()[1]}))
    if direct := os.environ.get("BENCH_FLOOR_DIRECT_PORT"):
        # The bench's own WebSocket server: the worker opens it too (no host on that way).
        to_browser.write(dumps({"direct_port": int(direct)}))
    while (payload := await reader.read()) is not None:
        if b'"ready"' in payload:
            ready.append(payload)
        to_bench(payload)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
