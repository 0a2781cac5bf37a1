"""A bare socket client of the host (what the MCP entry does, without MCP), for host tests."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION


async def open_link(
    timeout: float = 10,
) -> tuple[localsock.Endpoint, asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the first host's endpoint, once there is one. A host binds its socket (the
    file appears) a moment before it listens: a connection then is refused, so it is tried again,
    as the MCP entry's pool does at its next scan (mcp_server/hosts.py)."""
    async with asyncio.timeout(timeout):
        while True:
            eps = localsock.list_endpoints()
            if eps:
                try:
                    reader, writer = await localsock.connect(eps[0])
                    return eps[0], reader, writer
                except (ConnectionRefusedError, FileNotFoundError):
                    pass
            await asyncio.sleep(0.05)


class RawEntry:
    def __init__(self) -> None:
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.welcome: dict[str, Any] = {}

    @classmethod
    async def connect(cls, timeout: float = 10) -> RawEntry:
        self = cls()
        _, self.reader, self.writer = await open_link(timeout)
        self.send({"type": "entry_hello", "protocol": PROTOCOL_VERSION, "client": "raw", "pid": 1})
        self.welcome = await self.recv()
        return self

    def send(self, msg: dict[str, Any]) -> None:
        assert self.writer
        self.writer.write(localsock.frame(dumps(msg)))

    async def recv(self, kind: str | None = None, timeout: float = 10) -> dict[str, Any]:
        assert self.reader
        async with asyncio.timeout(timeout):
            while True:
                payload = await localsock.read_frame(self.reader)
                if payload is None:
                    raise ConnectionError("host closed the link")
                msg = json.loads(payload)
                if kind is None or msg.get("type") == kind:
                    return msg

    def close(self) -> None:
        if self.writer:
            self.writer.close()
