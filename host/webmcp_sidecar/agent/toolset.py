"""The tools a turn offers the model: the active site's tools, plus a seam for browser tools.

Model-facing names must pass the strictest APIs (`^[a-zA-Z0-9_-]{1,64}$`): a site tool's WebMCP
name may have dots or be longer, so it is mapped, and the map is kept to route calls back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from webmcp_sidecar.tools import naming, schemas
from webmcp_sidecar.wire.messages import Tool


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to the model."""

    name: str  # model-facing
    description: str
    parameters: dict[str, Any]
    read_only: bool
    site: str | None  # None for tools that are not a site's (browser tools)
    tool: str  # the real name at its source
    # page: a site's own tool (its `read_only` is the page's claim); browser: a browser tool on
    # the panel's tab; mcp: a tool of the user's local MCP server `server` (agent/servers.py);
    # other: any other source.
    origin: Literal["page", "browser", "mcp", "other"] = "other"
    always_confirm: bool = False  # asked even in auto mode (uploads of local files)
    server: str | None = None  # origin "mcp": the server's name in servers.json
    destructive: bool = False  # origin "mcp": the server does not say `destructiveHint: false`


Runner = Callable[[ToolSpec, dict[str, Any], float], Awaitable[str]]

# Where a running tool reports progress (progress, total, message): set by the agent around each
# call it runs, read by providers that have progress to tell (local MCP servers).
ProgressSink = Callable[[float, float | None, str | None], None]
progress_sink: ContextVar[ProgressSink | None] = ContextVar("progress_sink", default=None)


@dataclass(frozen=True)
class Target:
    """The tab the panel works on: its site, and the browser's tab id (for browser tools, which
    act on that very tab: a `browser_call` with session `panel` and this `tab_id`)."""

    site: str | None
    tab_id: int | None = None
    url: str = ""
    # The local MCP servers in play in this conversation (`panel_chat.servers`): None = every
    # enabled one, () = none.
    servers: tuple[str, ...] | None = None


class ToolProvider(Protocol):
    """A source of tools besides the site's (browser tools, local MCP servers): the seam where
    another part of the host plugs them in (host_parts.py gives them to `agent.hook.AgentPlugin`).
    `run` returns the result text for the model, or raises ToolFailed (code `page_error` marks
    the message as page content)."""

    def specs(self, target: Target) -> list[ToolSpec]: ...

    async def run(self, spec: ToolSpec, args: dict[str, Any], timeout: float, target: Target) -> str: ...


class ToolFailed(Exception):
    """A tool call that failed: the message is for the model and the user."""

    def __init__(self, message: str, code: str = "page_error") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Toolset:
    specs: list[ToolSpec] = field(default_factory=list)
    providers: dict[str, ToolProvider] = field(default_factory=dict)  # spec name -> its provider

    def by_name(self, name: str) -> ToolSpec | None:
        return next((s for s in self.specs if s.name == name), None)


def build(target: Target, site_tools: list[Tool], extra: list[ToolProvider]) -> Toolset:
    site = target.site
    taken: set[str] = set()
    specs = []
    for t in site_tools:
        desc = t.description or t.title or t.name
        specs.append(ToolSpec(
            name=naming.unique_name(t.name, taken), description=desc[:4000],
            parameters=schemas.object_schema(t.inputSchema),
            # consequentialHint (or the legacy destructiveHint) outweighs readOnlyHint.
            read_only=bool(t.annotations and t.annotations.read_only()), site=site, tool=t.name,
            origin="page",
        ))
    ts = Toolset(specs)
    for provider in extra:
        for spec in provider.specs(target):
            name = naming.unique_name(spec.name, taken)
            spec = dataclasses.replace(spec, name=name)
            ts.specs.append(spec)
            ts.providers[name] = provider
    return ts
