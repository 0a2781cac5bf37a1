"""One configured server while the manager runs it: start, tools, calls, crash, stop.

Each running server has an owner task that enters the SDK's `Client` over the SDK's transport
(stdio under our guard, Streamable HTTP, or SSE) and leaves it when told to stop or when the
transport ends (the server died): anyio scopes must be left by the task that entered them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import anyio
import mcp.types as types
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from webmcp_sidecar import __version__
from webmcp_sidecar.servers.config import ServerConfigError, ServerEntry
from webmcp_sidecar.servers.logfile import ServerLog
from webmcp_sidecar.servers.status import State
from webmcp_sidecar.servers.transports import open_transport, watched

START_TIMEOUT_S = 30.0
BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
MAX_CRASHES = 5  # in a row (a server up for STABLE_S starts the count again): then `failed`
STABLE_S = 60.0
MAX_TOOLS = 1000
ProgressFn = Callable[[float, float | None, str | None], None]


class ServerError(Exception):
    """A server could not be used; str() says why in plain words."""


def plain(e: BaseException) -> str:
    """An exception as words a user can act on (task groups wrap the real one)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    if isinstance(e, MCPError):
        return e.error.message
    if isinstance(e, TimeoutError):
        return "it did not answer in time"
    text = str(e).strip() or type(e).__name__
    name = type(e).__name__
    if "ConnectError" in name or isinstance(e, ConnectionError):
        return f"cannot connect ({text})"
    return text if isinstance(e, ServerConfigError | OSError) else f"{name}: {text}"


class Runner:
    def __init__(
        self, name: str, entry: ServerEntry, log: ServerLog, on_change: Callable[[str], None]
    ) -> None:
        self.name, self.entry, self.log = name, entry, log
        self._on_change = on_change
        self.state: State = "stopped"
        self.last_error: str | None = None
        self.tools: list[types.Tool] = []
        self.client: Client | None = None
        self.inflight = 0
        self.last_used = time.monotonic()
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self._lock = asyncio.Lock()
        self._crashes = 0
        self._next_try = 0.0
        self._started_at = 0.0
        self._refresh: asyncio.Task[None] | None = None
        self._restart: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.log.server_pid if self.state in ("starting", "running") else None

    def _set(self, state: State, error: str | None = None) -> None:
        changed = state != self.state or (error is not None and error != self.last_error)
        self.state = state
        if error is not None:
            self.last_error = error
        if changed:
            self._on_change(self.name)

    # --- starting ------------------------------------------------------------------------------

    async def ensure(self) -> Client:
        """The connected client, starting the server if needed; ServerError when it cannot."""
        self.last_used = time.monotonic()
        async with self._lock:
            if self.state == "running" and self.client is not None:
                return self.client
            wait = self._next_try - time.monotonic()
            if self.state == "failed" and wait > 0:
                raise ServerError(f"The server {self.name!r} is not running: {self.last_error}")
            if wait > 0:  # crashed a moment ago: back off before the next start
                await asyncio.sleep(wait)
            await self._start()
            assert self.client is not None
            return self.client

    async def _start(self) -> None:
        self._stopping = False
        self._wake = asyncio.Event()
        self._ready = ready = asyncio.get_running_loop().create_future()
        self._set("starting")
        self._task = asyncio.create_task(self._own(ready), name=f"mcp-server:{self.name}")
        # Shielded: a caller that gives up leaves the start going for the next caller.
        await asyncio.shield(ready)

    def _failed(self, message: str) -> None:
        self._crashes += 1
        self._next_try = time.monotonic() + BACKOFF_S[min(self._crashes, len(BACKOFF_S)) - 1]
        self.log.note(f"failed: {message}")
        self._set("failed", message)

    async def _own(self, ready: asyncio.Future[None]) -> None:
        """The owner task: connect, serve until told to stop or the server ends, disconnect."""
        error: str | None = None
        try:
            async with AsyncExitStack() as stack:
                transport = await open_transport(self.entry, self.name, self.log, stack)
                client = Client(
                    watched(transport, self._wake.set),
                    mode="legacy",
                    cache=None,
                    message_handler=self._on_message,
                    read_timeout_seconds=START_TIMEOUT_S,
                    client_info=types.Implementation(name="webmcp-sidecar", version=__version__),
                )
                # No fail_after around this: the client's scopes must not nest in one we leave
                # first. Its requests' own timeout (read_timeout_seconds) bounds the handshake.
                await stack.enter_async_context(client)
                tools = await self._list(client)
                self.client, self.tools = client, tools
                self._started_at = time.monotonic()
                self.log.note(f"running ({len(tools)} tools)")
                self._set("running")
                ready.set_result(None)
                await self._wake.wait()
                self.client = None
        except Exception as e:
            error = await self._explain(e)
        finally:
            self.client = None
            self._kill_leftovers()
            if not ready.done():  # never started: also when cancelled (stop() while starting)
                message = error or "it was stopped while starting"
                ready.set_exception(ServerError(f"The server {self.name!r} could not start: {message}"))
                ready.exception()  # marked retrieved: the starter, if still there, reports it
                if self._stopping:
                    self._set("stopped")
                else:
                    self._failed(message)
                return  # noqa: B012 -- a cancelled start ends here, quietly
        if error is not None and not self._stopping:
            self.log.note(f"error: {error}")
        if self._stopping:
            self.log.note("stopped")
            self._set("stopped")
            return
        if self.entry.command is not None:
            await anyio.to_thread.run_sync(self.log.wait_eof, 1.0)  # its last words, for the message
        self._crashed()

    async def _list(self, client: Client) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while len(tools) < MAX_TOOLS:
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools[:MAX_TOOLS]

    async def _explain(self, e: BaseException) -> str:
        text = plain(e)
        if "connection closed" in text.lower() and self.entry.command is not None:
            # The server ended: its last words on stderr say why (read once the pipe ends).
            await anyio.to_thread.run_sync(self.log.wait_eof, 1.0)
            text = f"it stopped: {self.log.tail[-1]}" if self.log.tail else "it stopped at once"
        return text

    # --- running -------------------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):  # e.g. a line on stdout that is not MCP
            self.log.note(f"ignored what the server sent: {str(message)[:300]}")
            return
        if isinstance(message, types.ToolListChangedNotification) and self.state == "running":
            if self._refresh is None or self._refresh.done():
                self._refresh = asyncio.create_task(self._refresh_tools())

    async def _refresh_tools(self) -> None:
        client = self.client
        if client is None:
            return
        try:
            self.tools = await self._list(client)
        except Exception as e:
            self.log.note(f"tools/list after list_changed failed: {plain(e)}")
            return
        self._on_change(self.name)

    def _crashed(self) -> None:
        message = "it stopped by itself"
        if self.log.tail:
            message += f": {self.log.tail[-1]}"
        if time.monotonic() - self._started_at > STABLE_S:
            self._crashes = 0
        self._crashes += 1
        self.log.note(f"crashed ({message})")
        if self._crashes > MAX_CRASHES:
            self._next_try = time.monotonic() + BACKOFF_S[-1]
            self._set("failed", f"it keeps stopping ({self._crashes} times in a row): {message}")
            return
        self._next_try = time.monotonic() + BACKOFF_S[self._crashes - 1]
        self._set("crashed", message)
        self._restart = asyncio.create_task(self._restart_later())

    async def _restart_later(self) -> None:
        with contextlib.suppress(ServerError):
            await self.ensure()

    def _kill_leftovers(self) -> None:
        """What the server left in its process group after the transport closed (POSIX)."""
        pgid = self.log.guard_pid
        if pgid and hasattr(os, "killpg"):
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)

    # --- calls ---------------------------------------------------------------------------------

    async def call(
        self, tool: str, args: dict[str, Any], timeout_s: float, on_progress: ProgressFn | None
    ) -> types.CallToolResult:
        client = await self.ensure()
        progress = None if on_progress is None else _Progress(on_progress)
        self.inflight += 1
        try:
            return await client.call_tool(
                tool, args, read_timeout_seconds=timeout_s, progress_callback=progress
            )
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:
                raise ServerError(
                    f"The server {self.name!r} did not answer {tool} within {timeout_s:g} s; the call "
                    "was cancelled."
                ) from None
            if e.code == CONNECTION_CLOSED:
                await asyncio.sleep(0.1)  # let the log reader catch the server's last words
                tail = f": {self.log.tail[-1]}" if self.log.tail else ""
                raise ServerError(f"The server {self.name!r} stopped during the call{tail}.") from None
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"The server refused the call: {plain(e)}")],
                is_error=True,
            )
        except (ServerError, asyncio.CancelledError):
            raise
        except Exception as e:
            if self.entry.url is not None:  # a remote server gone away: reconnect next time
                self._wake.set()
            raise ServerError(f"The call to {self.name!r} failed: {plain(e)}") from None
        finally:
            self.inflight -= 1
            self.last_used = time.monotonic()

    # --- stopping ------------------------------------------------------------------------------

    async def stop(self) -> None:
        for t in (self._restart, self._refresh):
            if t is not None and t is not asyncio.current_task():
                t.cancel()
        task = self._task
        if task is None or task.done():
            if self.state not in ("failed", "crashed"):
                self._set("stopped")
            return
        self._stopping = True
        self._wake.set()
        if self.state == "starting":
            task.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), 15)

    def reset_backoff(self) -> None:
        self._crashes, self._next_try = 0, 0.0


class _Progress:
    """The SDK's async progress callback, around the caller's plain one (errors kept out)."""

    def __init__(self, fn: ProgressFn) -> None:
        self._fn = fn

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        try:
            self._fn(progress, total, message)
        except Exception:
            pass  # the caller's display must not break the call
