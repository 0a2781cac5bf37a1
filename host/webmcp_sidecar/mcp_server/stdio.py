"""Stdio for the MCP server over asyncio pipes, instead of the SDK's worker threads and tasks.

The SDK's `stdio_server()` reads and writes through `anyio.wrap_file` (a worker-thread round trip
per line each way) and puts a task and a zero-buffer memory stream on each side (every anyio
memory-stream hop costs the event loop a few turns: a checkpoint on send, one on receive, a task
wake-up). On a 2-core machine that was the largest cost of a tool call. So on POSIX we hand
`Server.run` our own read and write streams (the SDK's public `ReadStream` / `WriteStream`
protocols, what any transport implements), built on asyncio pipes:

- `PipeReadStream.receive` reads a line and parses it into a `SessionMessage` in the task that
  asks for it (the SDK's serving loop), exactly as the SDK's reader parses it (a line that is not
  a JSON-RPC message is handed on as the exception, which the dispatcher logs and drops);
- `PipeWriteStream.send` writes the message's line in the task that sends it (one `write` of the
  whole line, so concurrent answers never interleave), waiting only while the pipe is full.

Speed only (bench.entry, "MCP entry alone"): drop it when the SDK's `stdio_server()` is within
the A/A noise of these streams there. Windows keeps the SDK's default. As the SDK does, fd 0 and
fd 1 are diverted while we serve (stdin to /dev/null, stdout to stderr) so a stray print or a
child process can never corrupt the JSON-RPC stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

import anyio
from mcp import types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from webmcp_sidecar.mcp_server.fastlane import FastLane

MAX_LINE = 256 * 1024 * 1024


class PipeReadStream:
    """The server's read stream: JSON-RPC messages (or the parse error) line by line."""

    def __init__(self, reader: asyncio.StreamReader, lane: FastLane | None = None) -> None:
        self._reader = reader
        self._lane = lane
        self._closed = False

    async def receive(self) -> SessionMessage | Exception:
        taken = 0
        while True:
            if self._closed:
                raise anyio.ClosedResourceError
            line = await self._reader.readline()
            if not line:
                if self._lane is not None:
                    self._lane.close()
                raise anyio.EndOfStream
            # As the SDK's reader: the text decoded with errors="replace", then pydantic's parse.
            try:
                message = types.jsonrpc_message_adapter.validate_json(
                    line.decode("utf-8", errors="replace"), by_name=False
                )
            except Exception as exc:
                return exc
            if self._lane is None or not self._lane.inbound(message):
                return SessionMessage(message)
            # The lane took it. readline() does not yield while lines are buffered, so a client
            # pipelining many lane requests would keep their tasks from running: let them.
            taken += 1
            if taken % 32 == 0:
                await asyncio.sleep(0)

    def __aiter__(self) -> PipeReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> PipeReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class PipeWriteStream:
    """The server's write stream: each message as one JSON line, written by the sending task."""

    def __init__(self, writer: asyncio.StreamWriter, lane: FastLane | None = None) -> None:
        self._writer = writer
        self._lane = lane
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._lane is not None:
            self._lane.outbound(item.message)
        # The same bytes as the SDK's writer.
        await self.write_line(
            (item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
        )

    async def write_line(self, line: bytes) -> None:
        """One whole line in one write (concurrent senders never interleave), then wait while
        the client is not reading."""
        if self._writer.transport.is_closing():
            raise anyio.BrokenResourceError
        self._writer.write(line)
        try:
            await self._writer.drain()  # returns at once unless the client stopped reading
        except ConnectionError as e:
            raise anyio.BrokenResourceError from e

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> PipeWriteStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@contextlib.asynccontextmanager
async def fast_stdio_server(lane: FastLane | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The server's streams over stdio; with `lane`, its requests go past the SDK (POSIX)."""
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
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, wfile)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        out = PipeWriteStream(writer, lane)
        if lane is None:
            yield PipeReadStream(reader), out
        else:
            async with lane.running(out.write_line):
                yield PipeReadStream(reader, lane), out
        with contextlib.suppress(ConnectionError):
            await writer.drain()
    finally:
        rfile.close()
        wfile.close()
