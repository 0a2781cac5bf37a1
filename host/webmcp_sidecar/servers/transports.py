"""How the manager reaches a configured server: the SDK's transport for it (stdio under our
guard process, Streamable HTTP, or SSE), with its secrets resolved and its program found, and a
read stream that says when the server's side has ended (the runner's crash detection).

Kept apart from runner.py, which owns a running server's life (start, tools, calls, restart)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

from webmcp_sidecar.servers.config import ServerConfigError, ServerEntry
from webmcp_sidecar.servers.logfile import ServerLog

if TYPE_CHECKING:
    from webmcp_sidecar.servers.secrets import Resolved


def guard_argv() -> list[str]:
    """How to run servers/guard.py: through this program when frozen, else `python -m`."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "_server-guard"]
    return [sys.executable, "-m", "webmcp_sidecar.servers.guard"]


def find_command(command: str, env: dict[str, str], cwd: str | None) -> str:
    """The program's path, or ServerConfigError saying plainly that it is not there."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = Path(cwd or ".", command) if not os.path.isabs(command) else Path(command)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        raise ServerConfigError(f"The command {command!r} does not exist or cannot be run.")
    found = shutil.which(command, path=env.get("PATH") or os.defpath)
    if found is None:
        raise ServerConfigError(
            f"The command {command!r} was not found on the PATH. Install it, or give its full path."
        )
    return found


def _prepare(name: str, entry: ServerEntry) -> tuple[Resolved, str | None]:
    """(the entry's values, the command's path): the secrets read, the program found (blocking)."""
    from webmcp_sidecar.servers import secrets

    values = secrets.resolve(name, entry)
    if entry.command is None:
        return values, None
    if entry.cwd is not None and not Path(entry.cwd).is_dir():
        raise ServerConfigError(f"The folder {entry.cwd!r} (cwd) does not exist.")
    return values, find_command(entry.command, get_default_environment() | values.env, entry.cwd)


async def open_transport(entry: ServerEntry, name: str, log: ServerLog, stack: AsyncExitStack) -> Any:
    """The SDK transport (not entered yet) for `entry`; what it opens besides is left on `stack`."""
    values, command = await anyio.to_thread.run_sync(_prepare, name, entry)
    headers = values.headers
    if values.url is not None:
        log.note(f"connecting to {entry.target()} ({entry.kind})")  # secrets masked
        if entry.kind == "sse":
            from mcp.client.sse import sse_client

            return sse_client(values.url, headers=headers or None)
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = await stack.enter_async_context(create_mcp_http_client(headers=headers or None))
        return streamable_http_client(values.url, http_client=http)
    assert command is not None
    guard = guard_argv()
    params = StdioServerParameters(
        command=guard[0],
        args=[*guard[1:], str(os.getpid()), "--", command, *values.args],
        env=values.env,
        cwd=entry.cwd,
        encoding_error_handler="replace",
    )
    log.note(f"starting {entry.target()}".rstrip())  # secrets masked
    errlog = log.pipe()
    stack.callback(errlog.close)  # the server keeps its own copy
    return _closing_errlog(stdio_client(params, errlog=errlog), errlog)


class _WatchedRead:
    """The transport's read stream, telling `on_end` when the server's side ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner, self._on_end = inner, on_end

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except (StopAsyncIteration, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def __aenter__(self) -> _WatchedRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[Any]:
    async with transport as (read, write):
        yield _WatchedRead(read, on_end), write


@asynccontextmanager
async def _closing_errlog(transport: Any, errlog: Any) -> AsyncIterator[Any]:
    """Our copy of the stderr pipe's write end closes once the server has its own."""
    async with transport as streams:
        errlog.close()
        yield streams
