"""An MCP client session against our real `webmcp-sidecar mcp`, recording list_changed.

Handshake-era clients get `notifications/tools/list_changed`; 2026-07-28 clients must hold a
subscriptions/listen stream open, which this wrapper does so tests can check both.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types

# The entry with its own link to the browser off (mcp_server/entry_link.py): its site calls take
# the host, as a client config's `env` would set it. For tests of what lies behind the host.
ENTRY_WITHOUT_LINK = ["/usr/bin/env", "WEBMCP_SIDECAR_ENTRY_LINK=0", sys.executable, "-m", "webmcp_sidecar"]


class McpSession:
    """The entry starts exactly as an MCP client's SDK starts it by default: no `env`, so it gets
    only HOME, LOGNAME, PATH, SHELL, TERM and USER of this process (nothing else of `env`).

    `env` is the test's sidecar environment (what its browser's host got). Only its HOME matters
    to the entry, and it must be this process's HOME already (`private_home` sets it), else the
    entry would look for hosts somewhere else.
    """

    def __init__(self, env: dict[str, str] | None = None, mode: str = "legacy",
                 name: str = "tests", extra_args: list[str] | None = None,
                 command: list[str] | None = None) -> None:
        home = (env or {}).get("HOME")
        if home is not None and home != os.environ.get("HOME"):
            raise ValueError(f"HOME of this process is {os.environ.get('HOME')!r}, not the "
                             f"test's {home!r}: set it with monkeypatch.setenv (or use the "
                             "private_home fixture)")
        # `command` runs another build of the entry (the PyInstaller bundle); default: this venv.
        cmd = command or [sys.executable, "-m", "webmcp_sidecar"]
        self.params = StdioServerParameters(
            command=cmd[0], args=[*cmd[1:], "mcp", *(extra_args or [])],
        )
        self.mode = mode
        self.name = name
        self.changes = 0
        self._changed = anyio.Event()
        self._stack = contextlib.AsyncExitStack()
        self.client: Client | None = None

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._note_change()

    def _note_change(self) -> None:
        self.changes += 1
        self._changed.set()
        self._changed = anyio.Event()

    async def __aenter__(self) -> McpSession:
        self.client = await self._stack.enter_async_context(
            Client(self.params, mode=self.mode, message_handler=self._on_message,
                   client_info=types.Implementation(name=self.name, version="1"),
                   read_timeout_seconds=120)
        )
        if self.client.protocol_version == "2026-07-28":
            # The SDK tees listen events to message_handler too; counting happens there.
            await self._stack.enter_async_context(self.client.listen(tools_list_changed=True))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    @property
    def protocol_version(self) -> str:
        assert self.client
        return self.client.protocol_version

    async def tools(self) -> list[types.Tool]:
        assert self.client
        return (await self.client.list_tools()).tools

    async def names(self) -> set[str]:
        return {t.name for t in await self.tools()}

    async def call(self, name: str, args: dict[str, Any] | None = None, **kw: Any) -> types.CallToolResult:
        assert self.client
        return await self.client.call_tool(name, args or {}, **kw)

    async def wait_change(self, timeout: float = 15) -> None:
        event = self._changed
        with anyio.fail_after(timeout):
            await event.wait()

    async def wait_changes(self, after: int, timeout: float = 15) -> None:
        """Wait until more than `after` list_changed notifications have come. A tools/list can
        show a change before its notification arrives (the list is served at once; the
        notification goes out from the entry's notifier task), so a test that saw the new list
        waits for the notification rather than asserting it is already there."""
        with anyio.fail_after(timeout):
            while self.changes <= after:
                await self._changed.wait()

    async def wait_tools(self, pred: Callable[[set[str]], bool], timeout: float = 20) -> set[str]:
        """Wait until the tool names satisfy `pred` (re-listing on each change notification)."""
        with anyio.fail_after(timeout):
            while True:
                event = self._changed
                names = await self.names()
                if pred(names):
                    return names
                with anyio.move_on_after(1):  # a change may land between list and wait
                    await event.wait()


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
