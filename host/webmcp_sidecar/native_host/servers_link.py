"""The host's side of the user's local MCP servers (issue 12, docs/SERVERS.md): the side panel's
Servers view and Inspector use them with `panel_servers` (answered by `agent_servers`), the
agent gets their tools through `agent/servers.py`'s ToolProvider, and every call of a server's
tool, whoever made it, goes to the worker's operation log as `agent_server_call` start/end.

The `ServerManager` (and the `mcp` SDK) load on first use, never at host start: the host's cold
start must not grow. It is closed when the host exits (the closer this plugin returns), which
stops every server it started. A change of a server's state (started, crashed, tools changed,
servers.json edited) is pushed to the panels as an `agent_servers` without `id`.

Servers' tools never reach MCP clients of `webmcp-sidecar mcp`: they live here and in the agent,
never in the registry mirror the host serves to entries.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import CALL_ID_SEP, CALLER_SERVER, SERVERS_PANEL_TYPES

if TYPE_CHECKING:
    from webmcp_sidecar.agent import panel_messages as pm
    from webmcp_sidecar.native_host.app import Host

log = logging.getLogger(__name__)

INSPECTOR_TIMEOUT_S = 60.0
MAX_LOGGED = 8_000  # result text kept in the operation log (the worker cuts it there too)
MAX_SHOWN = 1_000_000  # result JSON the Inspector gets
CLOSE_WITHIN_S = 20.0

Factory = Callable[[], Any]  # () -> a ServerManager (tests give a fake)


class ServersLink:
    """Host plugin (native_host/plugins.py): answers `panel_servers`; the agent gets the
    servers' tools through it (agent/servers.py), chat sites their calls (chat_link.py)."""

    HANDLES: ClassVar[dict[str, str]] = dict.fromkeys(SERVERS_PANEL_TYPES, "on_panel")

    def __init__(
        self,
        host: Host,
        config_path: Path | None = None,
        log_dir: Path | None = None,
        factory: Factory | None = None,
    ) -> None:
        self.host = host
        self.config_path = config_path
        self.log_dir = log_dir
        self._factory = factory
        self._manager: Any = None
        self._seq = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._push_queued = False
        self._closed = False

    # --- the manager, made on first use --------------------------------------------------------

    def manager(self) -> Any:
        if self._closed:
            from webmcp_sidecar.servers.runner import ServerError

            raise ServerError("The servers were shut down (the host is stopping).")
        if self._manager is None:
            if self._factory is not None:
                mgr = self._factory()
            else:
                from webmcp_sidecar.servers.manager import ServerManager

                mgr = ServerManager(self.config_path, self.log_dir)
            mgr.on_change = self._changed
            self._manager = mgr
        return self._manager

    async def aclose(self) -> None:
        """The host exits: every server we started stops (with its process group)."""
        self._closed = True
        for t in list(self._tasks):
            t.cancel()
        if self._manager is not None:
            try:
                await asyncio.wait_for(self._manager.aclose(), CLOSE_WITHIN_S)
            except Exception:
                log.exception("stopping the local MCP servers failed")

    # --- for the agent (agent/servers.py) ------------------------------------------------------

    async def tools_for(self, names: list[str] | None) -> tuple[dict[str, list[Any]], list[str]]:
        """The enabled tools of the enabled servers among `names` (None: all of them), starting
        them; and what keeps any of those from being used, in plain words."""
        mgr = self.manager()
        if names is None:
            tools = await mgr.tools()
        else:
            enabled = {s.name for s in mgr.status() if s.enabled}
            wanted = [n for n in dict.fromkeys(names) if n in enabled]
            got = await asyncio.gather(*(mgr.tools(n) for n in wanted), return_exceptions=True)
            tools = {}
            for r in got:
                if isinstance(r, asyncio.CancelledError):
                    raise r
                if isinstance(r, dict):
                    tools.update(r)
        problems = []
        if error := getattr(mgr, "config_error", None):
            problems.append(f"Your servers.json could not be read: {error}")
        for s in mgr.status():
            if s.enabled and s.name not in tools and (names is None or s.name in names):
                why = s.last_error or f"it is {s.state}"
                problems.append(
                    f"Your local MCP server {s.name} is not available ({why}): its tools are left out."
                )
        return tools, problems

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        *,
        caller: Literal["agent", "inspector"],
        timeout_s: float,
        on_progress: Any = None,
    ) -> Any:
        """One call of a server's tool, recorded in the operation log with its caller."""
        from webmcp_sidecar.agent import panel_messages as pm

        call_id = f"{CALLER_SERVER}{CALL_ID_SEP}{next(self._seq)}"
        self._send(
            pm.AgentServerCall(id=call_id, phase="start", caller=caller, server=server, tool=tool, args=args)
        )
        t0 = time.perf_counter()

        def end(ok: bool, value: str | None = None, code: str = "", message: str = "") -> None:
            ms = round((time.perf_counter() - t0) * 1000, 1)
            err = None if ok else {"code": code, "message": message[:MAX_LOGGED]}
            self._send(
                pm.AgentServerCall(
                    id=call_id,
                    phase="end",
                    caller=caller,
                    server=server,
                    tool=tool,
                    ok=ok,
                    value=value,
                    error=err,
                    ms=ms,
                )
            )

        try:
            result = await self.manager().call(
                server, tool, args, timeout_s=timeout_s, on_progress=on_progress
            )
        except asyncio.CancelledError:
            end(False, code="cancelled", message="The call was cancelled.")
            raise
        except Exception as e:
            end(False, code="server_error", message=str(e) or type(e).__name__)
            raise
        if getattr(result, "is_error", False):
            end(False, code="tool_error", message=_text_of(result))
        else:
            end(True, value=_json_of(result)[:MAX_LOGGED])
        return result

    # --- the panel -----------------------------------------------------------------------------

    def on_panel(self, raw: dict[str, Any], payload: bytes) -> None:
        """A `panel_servers` request: one `agent_servers` answers it, whatever happens."""
        from pydantic import ValidationError

        from webmcp_sidecar.agent import panel_messages as pm

        try:
            req = pm.PanelServers.model_validate(raw)
        except ValidationError as e:
            call_id = raw.get("id")
            if isinstance(call_id, str) and call_id:
                where = "; ".join(
                    f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}"
                    for err in e.errors(include_input=False, include_url=False)
                )
                self._send(pm.AgentServers(id=call_id[:100], ok=False, error=f"bad request: {where[:500]}"))
            return
        self._spawn(self._answer(req))

    async def _answer(self, req: pm.PanelServers) -> None:
        from webmcp_sidecar.agent import panel_messages as pm

        try:
            answer = await self._do(req)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # ServerError, ServerConfigError: plain words; the host lives
            if type(e).__name__ not in ("ServerError", "ServerConfigError", "ValueError"):
                log.exception("servers request %s failed", req.op)
            answer = pm.AgentServers(id=req.id, ok=False, error=str(e)[:4000] or type(e).__name__)
        self._send(answer)

    async def _do(self, req: pm.PanelServers) -> pm.AgentServers:
        from webmcp_sidecar.agent import panel_messages as pm

        mgr = self.manager()
        if req.op == "list":
            return pm.AgentServers(id=req.id, servers=self.infos(), config=str(mgr.config.path))
        if req.op == "tools":
            tools = await mgr.tools(req.server)
            dumped = {name: [_tool_json(t) for t in ts] for name, ts in tools.items()}
            return pm.AgentServers(id=req.id, servers=self.infos(), tools=dumped)
        server = _need(req, "server")
        if req.op in ("enable", "disable"):
            await asyncio.to_thread(self._set_enabled, server, req.op == "enable", req.tool)
            return pm.AgentServers(id=req.id, servers=self.infos())
        if req.op == "restart":
            await mgr.restart(server)
            return pm.AgentServers(id=req.id, servers=self.infos())
        # call: by hand, from the Inspector
        tool = _need(req, "tool")
        t0 = time.perf_counter()
        try:
            result = await self.call(
                server, tool, req.args or {}, caller="inspector", timeout_s=INSPECTOR_TIMEOUT_S
            )
        except Exception as e:
            if type(e).__name__ != "ServerError":
                raise
            ms = round((time.perf_counter() - t0) * 1000, 1)
            out = pm.ServerCallOutcome(ok=False, error={"code": "server_error", "message": str(e)}, ms=ms)
            return pm.AgentServers(id=req.id, ok=True, result=out)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        value = _json_of(result)
        if len(value) > MAX_SHOWN:
            value = json.dumps(value[:MAX_SHOWN] + f"… ({len(value) - MAX_SHOWN} more characters cut)")
        if getattr(result, "is_error", False):
            out = pm.ServerCallOutcome(
                ok=False, value=value, ms=ms, error={"code": "tool_error", "message": _text_of(result)}
            )
        else:
            out = pm.ServerCallOutcome(ok=True, value=value, ms=ms)
        return pm.AgentServers(id=req.id, result=out)

    def infos(self) -> list[pm.ServerInfo]:
        from webmcp_sidecar.agent import panel_messages as pm

        mgr = self.manager()
        statuses = mgr.status()
        try:
            entries = mgr.config.load().servers
        except Exception:  # broken file: the manager keeps the last good one; status says so
            entries = {}
        return [
            pm.ServerInfo(
                name=s.name,
                kind=s.kind,
                enabled=s.enabled,
                state=s.state,
                tools=s.tools,
                last_error=s.last_error,
                disabled_tools=list(entries[s.name].disabled_tools) if s.name in entries else [],
            )
            for s in statuses
        ]

    def _set_enabled(self, name: str, on: bool, tool: str | None) -> None:
        """As `webmcp-sidecar servers enable|disable NAME [--tool T]` does: servers.json changes,
        and the manager applies it at its next look (a disabled server stops)."""
        config = self.manager().config
        doc = config.load()
        entry = doc.servers.get(name)
        if entry is None:
            raise ValueError(f"There is no server named {name!r}.")
        if tool:
            off = [t for t in entry.disabled_tools if t != tool]
            entry.disabled_tools = off if on else [*off, tool]
        else:
            entry.disabled = not on
        doc.servers[name] = entry
        config.save(doc)

    # --- state pushes --------------------------------------------------------------------------

    def _changed(self, name: str) -> None:
        """The manager's on_change: one push per burst of changes."""
        if self._push_queued or self._closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a sync caller): the next request's answer carries the state
        self._push_queued = True
        loop.call_soon(self._push)

    def _push(self) -> None:
        from webmcp_sidecar.agent import panel_messages as pm

        self._push_queued = False
        if self._closed:
            return
        try:
            self._send(pm.AgentServers(servers=self.infos()))
        except Exception:
            log.exception("servers: state push failed")

    # --- plumbing ------------------------------------------------------------------------------

    def _send(self, msg: Any) -> None:
        self.host.send_to_browser(dumps(msg.model_dump(mode="json", exclude_none=True)))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _need(req: Any, field: str) -> str:
    value = getattr(req, field)
    if not value:
        raise ValueError(f"`{field}` is required for {req.op}")
    return str(value)


def _tool_json(tool: Any) -> dict[str, Any]:
    out: dict[str, Any] = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return out


def _json_of(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False)


def _text_of(result: Any) -> str:
    from webmcp_sidecar.agent.servers import result_text

    return result_text(result)[0][:MAX_LOGGED]

