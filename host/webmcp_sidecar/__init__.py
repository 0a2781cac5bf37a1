"""WebMCP Sidecar: WebMCP page tools for MCP clients, via a Chrome extension and a native host."""

__version__ = "0.1.0"

from webmcp_sidecar.wire.constants import HOST_NAME as HOST_NAME  # the one the browser knows

EXTENSION_ID = "fafdbggbcpipbkecmkjnkpdagfobdohc"
"""Pinned by the `key` in extension/manifest.json, so it is the same on every machine."""

GECKO_ID = "webmcp-sidecar@webmcp.io"
"""The add-on id in extension/manifest.json (`browser_specific_settings.gecko.id`): what Firefox
names us by, in a host manifest's `allowed_extensions` and as the host's second argument."""
