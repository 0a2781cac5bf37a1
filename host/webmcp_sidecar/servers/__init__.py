"""The user's local MCP servers, with the host as their MCP client (issue 12; docs/SERVERS.md).

`config` (servers.json), `secrets` (keyring references), `manager.ServerManager` (running them),
`runner` (one server), `guard` (the process every stdio server runs under), `imports` (other
clients' configs), `cli` (`webmcp-sidecar servers ...`). Kept light: the guard imports this.
"""
