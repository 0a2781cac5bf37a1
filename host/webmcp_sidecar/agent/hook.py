"""The side panel's agent as a host plugin (native_host/plugins.py), importing the agent (pydantic
models, provider SDKs) only when the first panel message arrives: the host's cold start does not
pay for a panel that is never opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

# Plain data: the agent stays unloaded.
from webmcp_sidecar.wire.constants import AGENT_PANEL_TYPES

if TYPE_CHECKING:
    from webmcp_sidecar.agent.port import HostPort
    from webmcp_sidecar.agent.service import AgentService


class AgentPlugin:
    """Composed with the host by `cli.py` (the host never imports the agent)."""

    HANDLES: ClassVar[dict[str, str]] = dict.fromkeys(AGENT_PANEL_TYPES, "on_panel")

    def __init__(self, host: HostPort, tool_providers: list[Any] | None = None) -> None:
        """tool_providers: tool sources besides the active site's and the browser tools (local
        MCP servers), each a `toolset.ToolProvider`; read at every turn."""
        self.host = host
        self.tool_providers = tool_providers if tool_providers is not None else []
        self.service: AgentService | None = None

    def on_panel(self, raw: dict[str, Any], payload: bytes) -> None:
        if self.service is None:
            from webmcp_sidecar.agent.browser import BrowserToolProvider
            from webmcp_sidecar.agent.service import AgentService

            self.service = AgentService(self.host, [BrowserToolProvider(self.host), *self.tool_providers])
        self.service.handle(raw)
