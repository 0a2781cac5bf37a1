"""The user's local MCP servers as a tool source for the side panel's agent (issue 12).

Each enabled tool of each server in play becomes `<server>__<tool>` (tools/naming.py, the same
strict names as site tools). Which servers are in play is the conversation's choice: the panel
sends `panel_chat.servers` (None = every enabled server, [] = none), which reaches us as
`Target.servers`. Servers start on first use: `prepare` (awaited by the agent before it builds
the turn's tools) asks the manager for their tools, which starts them.

Calls go through the host's servers link (native_host/servers_link.py), which owns the
`ServerManager` and records each call in the operation log with its caller. A result reaches the
model as untrusted content, like a page's (the loop wraps it); the server's own error text is
marked the same way (code `page_error`).

Imports stay light (no `mcp`, no pydantic model of ours at import time): the host installs this
at start, and its cold start must not grow.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from webmcp_sidecar.agent.toolset import Target, ToolSpec

log = logging.getLogger(__name__)

# How long a turn waits for its servers to start (each has its own start timeout too).
PREPARE_TIMEOUT_S = 45.0
MAX_DESCRIPTION = 4000

ProgressFn = Callable[[float, float | None, str | None], None]


class ServersLinkLike(Protocol):
    """What the provider needs of the host's servers link (servers_link.ServersLink)."""

    async def tools_for(self, names: list[str] | None) -> tuple[dict[str, list[Any]], list[str]]:
        """Enabled tools of the enabled servers among `names` (None: all), starting them; and
        plain-words problems of those that could not start."""
        ...

    async def call(
        self,
        server: str,
        tool: str,
        args: dict[str, Any],
        *,
        caller: Literal["agent", "inspector"],
        timeout_s: float,
        on_progress: ProgressFn | None = None,
    ) -> Any: ...


def _hints(tool: Any) -> tuple[bool, bool]:
    """(read_only, destructive) from a server tool's annotations. MCP's defaults: not read-only,
    and a tool that is not read-only is destructive unless it says `destructiveHint: false`."""
    ann = getattr(tool, "annotations", None)
    read_only = bool(ann is not None and getattr(ann, "read_only_hint", None) is True)
    destructive = not read_only and not (ann is not None and getattr(ann, "destructive_hint", None) is False)
    return read_only, destructive


def result_text(result: Any) -> tuple[str, bool]:
    """A `CallToolResult` as the model reads it, and whether the server called it an error.
    Text parts as they are; images, audio and links described, not pasted; structured content
    when there is no content."""
    parts: list[str] = []
    for c in getattr(result, "content", None) or []:
        kind = getattr(c, "type", "")
        if kind == "text":
            parts.append(str(getattr(c, "text", "")))
        elif kind == "resource":
            res = getattr(c, "resource", None)
            text = getattr(res, "text", None)
            uri = str(getattr(res, "uri", ""))
            parts.append(
                f"[resource {uri}]\n{text}" if isinstance(text, str) else f"[resource {uri} omitted]"
            )
        elif kind == "resource_link":
            parts.append(f"[link {getattr(c, 'uri', '')}]")
        else:
            parts.append(f"[{kind} {getattr(c, 'mime_type', '') or ''}]".replace(" ]", "]") + " omitted")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    return text, bool(getattr(result, "is_error", False))


class ServersToolProvider:
    """A `toolset.ToolProvider`: the local servers' tools, for the turns that have them in play."""

    def __init__(self, link: ServersLinkLike) -> None:
        self.link = link
        self._tools: dict[str, list[Any]] = {}
        # spec.tool (`<server>__<tool>`, before the toolset renames a clash) -> (server, tool)
        self._routes: dict[str, tuple[str, str]] = {}

    async def prepare(self, target: Target) -> list[str]:
        """Before the turn's tools are built: the tools of the servers in play (starting them).
        Returns plain-words problems (a server that could not start) for the panel."""
        names = None if target.servers is None else list(target.servers)
        if names == []:
            self._tools = {}
            return []
        try:
            async with asyncio.timeout(PREPARE_TIMEOUT_S):
                self._tools, problems = await self.link.tools_for(names)
        except TimeoutError:
            self._tools = {}
            return [
                f"Your local MCP servers did not start within {PREPARE_TIMEOUT_S:g} s: their "
                "tools are left out of this message."
            ]
        return problems

    def specs(self, target: Target) -> list[ToolSpec]:
        from webmcp_sidecar.agent.toolset import ToolSpec
        from webmcp_sidecar.tools import naming, schemas

        wanted = None if target.servers is None else set(target.servers)
        pairs: dict[tuple[str, str], Any] = {}
        for server, tools in self._tools.items():
            if wanted is not None and server not in wanted:
                continue
            for t in tools:
                pairs[(server, str(t.name))] = t
        names = naming.assign_names(pairs)
        out = []
        self._routes = {}
        for (server, tool_name), t in sorted(pairs.items()):
            name = names[(server, tool_name)]
            read_only, destructive = _hints(t)
            desc = (t.description or t.title or tool_name)[:MAX_DESCRIPTION]
            self._routes[name] = (server, tool_name)
            out.append(
                ToolSpec(
                    name=name,
                    description=f"[local MCP server {server}] {desc}",
                    parameters=schemas.object_schema(t.input_schema),
                    read_only=read_only,
                    site=None,
                    tool=name,
                    origin="mcp",
                    server=server,
                    destructive=destructive,
                )
            )
        return out

    async def run(self, spec: ToolSpec, args: dict[str, Any], timeout: float, target: Target) -> str:
        from webmcp_sidecar.agent.toolset import ToolFailed, progress_sink
        from webmcp_sidecar.tools.validation import check_arguments_async, schema_key

        route = self._routes.get(spec.tool)
        if route is None:
            raise ToolFailed(f"{spec.name} is no longer offered.", "not_found")
        problem = await check_arguments_async(schema_key(spec.parameters), args)
        if problem:
            raise ToolFailed(f"Not run. {problem}", "invalid_args")
        server, tool = route
        try:
            result = await self.link.call(
                server, tool, args, caller="agent", timeout_s=timeout, on_progress=progress_sink.get()
            )
        except asyncio.CancelledError:
            raise
        except Exception as e:  # ServerError: plain words that may quote the server's stderr
            raise ToolFailed(str(e) or "The server failed without saying why.", "page_error") from None
        text, is_error = result_text(result)
        if is_error:
            raise ToolFailed(text, "page_error")  # the server's words: untrusted, like a page's
        return text
