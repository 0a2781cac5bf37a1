"""A stand-in for the browser side of native messaging, for host tests without Chromium.

It starts the real host as Chrome does (argv[1] = the extension origin, pipes on stdin/stdout)
and speaks the native framing to it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.wire.codec import FrameDecoder, Reassembler, dumps, encode_frame


class FakeBrowser:
    def __init__(self, env: dict[str, str], argv: list[str] | None = None) -> None:
        """`argv`: the host's arguments (default: Chrome's, the extension origin)."""
        self.env = env
        self.argv = argv or [f"chrome-extension://{EXTENSION_ID}/"]
        self.proc: asyncio.subprocess.Process | None = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.frame_sizes: list[int] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "webmcp_sidecar",
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, **self.env},
        )
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc and self.proc.stdout
        dec = FrameDecoder(max_frame=1 << 30)
        chunks = Reassembler()
        while data := await self.proc.stdout.read(1 << 16):
            for payload in dec.feed(data):
                self.frame_sizes.append(len(payload))
                msg = json.loads(payload)
                if msg.get("type") == "chunk":
                    text = chunks.add(msg["cid"], msg["seq"], msg["last"], msg["data"])
                    if text is None:
                        continue
                    msg = json.loads(text)
                await self.inbox.put(msg)

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(dumps(message))

    def send_raw(self, payload: bytes) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(encode_frame(payload))

    def send_bytes(self, data: bytes) -> None:
        assert self.proc and self.proc.stdin
        self.proc.stdin.write(data)

    async def expect(self, kind: str, timeout: float = 10) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.inbox.get()
                if msg.get("type") == kind:
                    return msg

    async def close(self) -> int:
        assert self.proc and self.proc.stdin
        self.proc.stdin.close()
        code = await asyncio.wait_for(self.proc.wait(), 10)
        if self._task:
            self._task.cancel()
        return code
