"""`ServerManager`: the user's local MCP servers, as the host's side-panel agent, Inspector and
panel use them. Nothing starts at construction: a server starts on first use (`tools`, `call`),
is reused, restarts with backoff after a crash, stops after `idle_s` without use and on `aclose`.

servers.json is read again whenever it changed on disk (a stat per use): a server whose command,
url, env, headers or cwd changed restarts on its next use; disabling stops it; `disabledTools`
and `timeout` apply at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp.types as types

from webmcp_sidecar import paths
from webmcp_sidecar.servers.config import ServerConfigError, ServerEntry, ServersConfig
from webmcp_sidecar.servers.logfile import ServerLog
from webmcp_sidecar.servers.runner import ProgressFn, Runner, ServerError
from webmcp_sidecar.servers.status import STATUS_FILE, ServerStatus, load_status, save_status

__all__ = [
    "STATUS_FILE", "ServerError", "ServerManager", "ServerStatus", "load_status", "save_status",
]

log = logging.getLogger(__name__)
# What a restart is needed for when it changes (the rest applies to a running server at once).
_CONNECTION_KEYS = ("command", "args", "env", "cwd", "url", "headers", "transport")


def _connection(entry: ServerEntry) -> dict[str, Any]:
    return entry.model_dump(mode="json", include=set(_CONNECTION_KEYS))


class ServerManager:
    def __init__(
        self, config_path: Path | None = None, log_dir: Path | None = None, *, idle_s: float = 300.0
    ) -> None:
        self.config = ServersConfig(config_path)
        self.log_dir = Path(log_dir) if log_dir is not None else paths.log_dir() / "servers"
        self.idle_s = idle_s
        self.on_change: Callable[[str], None] | None = None
        self._entries: dict[str, ServerEntry] = {}
        self._runners: dict[str, Runner] = {}
        self._stamp: tuple[int, int] | None = None
        self._config_error: str | None = None
        self._closed = False
        self._idle: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # --- the API -------------------------------------------------------------------------------

    async def tools(self, name: str | None = None) -> dict[str, list[types.Tool]]:
        """Enabled servers' enabled tools, by server (started as needed). For all servers, one
        that cannot start is left out (its status says why); for one named, ServerError."""
        self._check_open()
        self._sync()
        if name is not None:
            runner = self._enabled(name)
            await runner.ensure()
            return {name: self._visible(runner)}
        names = [n for n, e in self._entries.items() if not e.disabled]
        results = await asyncio.gather(*(self._runner(n).ensure() for n in names), return_exceptions=True)
        out: dict[str, list[types.Tool]] = {}
        for n, r in zip(names, results, strict=True):
            if isinstance(r, asyncio.CancelledError):
                raise r
            if not isinstance(r, BaseException):
                out[n] = self._visible(self._runners[n])
        self._watch_idle()
        return out

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        *,
        timeout_s: float = 60,
        on_progress: ProgressFn | None = None,
    ) -> types.CallToolResult:
        """Run one tool. A tool's own failure is a result with is_error; ServerError when the
        server cannot be reached, stopped during the call, or did not answer within the timeout
        (the server's `timeout`, when set, replaces `timeout_s`). Cancelling the awaiting task
        cancels the call at the server (`notifications/cancelled`)."""
        self._check_open()
        self._sync()
        runner = self._enabled(server)
        if tool in runner.entry.disabled_tools:
            raise ServerError(f"The tool {tool} of server {server!r} is switched off.")
        timeout = runner.entry.timeout or timeout_s
        try:
            return await runner.call(tool, args, timeout, on_progress)
        finally:
            self._watch_idle()

    def status(self) -> list[ServerStatus]:
        self._sync()
        return self._status()

    def _status(self) -> list[ServerStatus]:
        out = []
        for name, entry in self._entries.items():
            r = self._runners.get(name)
            out.append(
                ServerStatus(
                    name=name,
                    kind=entry.kind,
                    enabled=not entry.disabled,
                    state=r.state if r else "stopped",
                    tools=len(self._visible(r)) if r else 0,
                    last_error=r.last_error if r else None,
                    pid=r.pid if r else None,
                )
            )
        return out

    @property
    def config_error(self) -> str | None:
        """Why servers.json could not be read (the last good version stays in use), or None."""
        return self._config_error

    async def restart(self, name: str) -> None:
        self._check_open()
        self._sync()
        runner = self._enabled(name)
        await runner.stop()
        runner.reset_backoff()
        await runner.ensure()

    async def stop(self, name: str) -> None:
        runner = self._runners.get(name)
        if runner is not None:
            await runner.stop()

    async def aclose(self) -> None:
        self._closed = True
        if self._idle is not None:
            self._idle.cancel()
        for t in list(self._background):
            t.cancel()
        await asyncio.gather(*(r.stop() for r in self._runners.values()), return_exceptions=True)
        for r in self._runners.values():
            r.log.close()

    # --- inside --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ServerError("The servers were shut down (the host is stopping).")

    def _enabled(self, name: str) -> Runner:
        entry = self._entries.get(name)
        if entry is None:
            raise ServerError(f"There is no server named {name!r}.")
        if entry.disabled:
            raise ServerError(f"The server {name!r} is switched off.")
        return self._runner(name)

    def _runner(self, name: str) -> Runner:
        r = self._runners.get(name)
        if r is None:
            r = Runner(name, self._entries[name], ServerLog(self.log_dir / f"{name}.log"), self._changed)
            self._runners[name] = r
        return r

    @staticmethod
    def _visible(r: Runner | None) -> list[types.Tool]:
        if r is None or r.state != "running":
            return []
        off = set(r.entry.disabled_tools)
        return [t for t in r.tools if t.name not in off]

    def _changed(self, name: str) -> None:
        save_status(self.log_dir, [s for s in self._status() if s.name in self._runners])
        if self.on_change is None:
            return
        try:
            self.on_change(name)
        except Exception:
            log.exception("servers: on_change raised")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _sync(self) -> None:
        """Read servers.json again if it changed on disk; apply what changed."""
        try:
            st = self.config.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp == self._stamp and self._stamp is not None:
            return
        try:
            doc = self.config.load()
        except ServerConfigError as e:
            self._config_error = str(e)
            return
        self._stamp, self._config_error = stamp, None
        old, self._entries = self._entries, dict(doc.servers)
        for name in set(old) | set(self._entries):
            before, now = old.get(name), self._entries.get(name)
            r = self._runners.get(name)
            if r is None:
                if before != now:
                    self._changed(name)
                continue
            if now is None or now.disabled or _connection(now) != _connection(r.entry):
                self._stop_later(r, drop=now is None)
            if now is not None:
                r.entry = now
            if before != now:
                self._changed(name)

    def _stop_later(self, r: Runner, *, drop: bool) -> None:
        async def stop() -> None:
            await r.stop()
            r.reset_backoff()
            if drop and self._runners.get(r.name) is r:
                del self._runners[r.name]
                r.log.close()

        try:
            self._spawn(stop())
        except RuntimeError:  # no running loop (status() from sync code): stopped on next use
            pass

    def _watch_idle(self) -> None:
        if self._idle is None or self._idle.done():
            self._idle = asyncio.get_running_loop().create_task(self._idle_loop())

    async def _idle_loop(self) -> None:
        """Stops servers unused for their `idleTimeout` (else idle_s); ends when none is running."""
        while True:
            now = time.monotonic()
            running = [r for r in self._runners.values() if r.state == "running"]
            if not running:
                return
            wait = self.idle_s
            for r in running:
                idle = self.idle_s if r.entry.idle_timeout is None else r.entry.idle_timeout
                if idle == 0:
                    continue  # the user keeps this one running (`idleTimeout: 0`)
                left = r.last_used + idle - now
                if left <= 0 and r.inflight == 0:
                    r.log.note(f"idle for {idle:g} s")
                    self._spawn(r.stop())
                else:
                    wait = min(wait, max(left, 0.5))
            await asyncio.sleep(max(wait, 0.05))
