"""The host composed with its plugins (native_host/plugins.py): where the host and the side
panel's agent meet, so neither package imports the other. The agent depends only on
`agent.port.HostPort`, which the Host implements, and loads on the first panel message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from webmcp_sidecar.agent.hook import AgentPlugin
from webmcp_sidecar.native_host.chat_link import ChatLink
from webmcp_sidecar.native_host.doc_link import Documents
from webmcp_sidecar.native_host.servers_link import ServersLink
from webmcp_sidecar.native_host.skills_link import SkillsLink

if TYPE_CHECKING:
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.native_host.plugins import Plugin

# Every plugin's class, for the routes table in docs/PROTOCOL.md (gen_js.py).
PLUGINS = (AgentPlugin, SkillsLink, ServersLink, ChatLink, Documents)


def plugins(host: Host) -> list[Plugin]:
    """The plugins of a host; the servers' link is shared by the agent (its tools) and chat
    sites (their calls), so one set of local servers runs per host. The worker and the side
    panel reach every kind of document through one plugin (Documents)."""
    from webmcp_sidecar.agent.servers import ServersToolProvider

    servers = ServersLink(host)
    docs = [SkillsLink(host), ChatLink(host, servers=servers)]
    return [AgentPlugin(host, [ServersToolProvider(servers)]), *docs, servers, Documents(host, docs)]
