"""Stdio for the MCP server over asyncio pipes, instead of the SDK's worker threads.

The SDK's `stdio_server()` reads and writes through `anyio.wrap_file`, a thread round trip per
line each way; on a 2-core machine that was the largest single cost of a tool call. We hand it
streams built on asyncio pipes instead (POSIX only; Windows keeps the SDK's default).

As the SDK does, fd 0 and fd 1 are diverted while we serve (stdin to /dev/null, stdout to
stderr) so a stray print or a child process can never corrupt the JSON-RPC stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.stdio import stdio_server

MAX_LINE = 256 * 1024 * 1024


class _Lines:
    """The async line iterator `stdio_server` reads from."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _Out:
    """The async writer `stdio_server` writes to; `flush` applies back-pressure."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@contextlib.asynccontextmanager
async def fast_stdio_server() -> AsyncIterator[tuple[Any, Any]]:
    if sys.platform == "win32":
        async with stdio_server() as streams:
            yield streams
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    rfile = os.fdopen(wire_in, "rb", buffering=0)
    wfile = os.fdopen(wire_out, "wb", buffering=0)
    try:
        reader = asyncio.StreamReader(limit=MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), rfile)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, wfile
        )
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        async with stdio_server(_Lines(reader), _Out(writer)) as streams:  # type: ignore[arg-type]
            yield streams
        with contextlib.suppress(ConnectionError):
            await writer.drain()
    finally:
        rfile.close()
        wfile.close()
