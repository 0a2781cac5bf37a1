"""Registers the side panel's message handlers with the host, importing the agent (pydantic
models, provider SDKs) only when the first panel message arrives: the host's cold start does not
pay for a panel that is never opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Plain data: the agent stays unloaded.
from webmcp_sidecar.wire.constants import (
    CHAT_SITES_PANEL_TYPES,
    PANEL_TYPES,
    SERVERS_PANEL_TYPES,
    SKILLS_PANEL_TYPES,
)

if TYPE_CHECKING:
    from webmcp_sidecar.agent.port import HostPort
    from webmcp_sidecar.agent.service import AgentService



# Tool sources besides the active site's tools (browser tools, local MCP servers): each is a
# `toolset.ToolProvider`, added by the part of the host that owns it. Read at every turn.
tool_providers: list[Any] = []


def add_tool_provider(provider: Any) -> None:
    tool_providers.append(provider)


def install(host: HostPort) -> None:
    """Composed with the host by `cli.py` (the host never imports the agent)."""
    service: AgentService | None = None

    def handle(raw: dict[str, Any], payload: bytes) -> None:
        nonlocal service
        if service is None:
            from webmcp_sidecar.agent.browser import BrowserToolProvider
            from webmcp_sidecar.agent.service import AgentService

            service = AgentService(host, [BrowserToolProvider(host), *tool_providers])
        service.handle(raw)

    for kind in PANEL_TYPES:
        if kind not in (*SKILLS_PANEL_TYPES, *SERVERS_PANEL_TYPES, *CHAT_SITES_PANEL_TYPES):
            host.handlers[kind] = handle
