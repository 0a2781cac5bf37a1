"""The native-messaging stdio channel: async frame reader and writer over stdin/stdout.

POSIX uses asyncio pipes (no thread hop on the hot path). Windows, where Chrome hands us anonymous
pipes that asyncio cannot poll, reads and writes through threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from typing import BinaryIO

from webmcp_sidecar.wire.codec import MAX_FROM_BROWSER, header

log = logging.getLogger(__name__)
_HDR = header("native")


class FrameReader:
    """Reads native frames; `None` at EOF. Oversized frames are skipped, not fatal."""

    def __init__(self, reader: asyncio.StreamReader, max_frame: int = MAX_FROM_BROWSER) -> None:
        self._r = reader
        self.max_frame = max_frame

    async def read(self) -> bytes | None:
        while True:
            try:
                hdr = await self._r.readexactly(4)
                (n,) = _HDR.unpack(hdr)
                if n > self.max_frame:
                    # Skip the declared bytes in blocks so the stream stays in step.
                    log.warning("dropping a %d-byte frame (limit %d)", n, self.max_frame)
                    while n:
                        block = await self._r.read(min(n, 1 << 20))
                        if not block:
                            return None
                        n -= len(block)
                    continue
                return await self._r.readexactly(n)
            except asyncio.IncompleteReadError:
                return None


class FrameWriter:
    def __init__(self, write: object) -> None:
        self._write = write  # callable(bytes) -> None, never blocks the loop

    def write(self, payload: bytes) -> None:
        self._write(_HDR.pack(len(payload)) + payload)  # type: ignore[operator]


async def open_stdio(
    stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> tuple[FrameReader, FrameWriter]:
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_FROM_BROWSER + 8)
    if sys.platform == "win32":
        return FrameReader(_threaded_reader(stdin, reader, loop)), FrameWriter(
            _threaded_writer(stdout)
        )
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, stdout)
    return FrameReader(reader), FrameWriter(transport.write)


def _threaded_reader(
    stdin: BinaryIO, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop
) -> asyncio.StreamReader:
    def pump() -> None:
        fd = stdin.fileno()
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                loop.call_soon_threadsafe(reader.feed_eof)
                return
            loop.call_soon_threadsafe(reader.feed_data, data)

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return reader


def _threaded_writer(stdout: BinaryIO) -> object:
    lock = threading.Lock()

    def write(data: bytes) -> None:
        with lock:
            stdout.write(data)
            stdout.flush()

    return write
