"""WebMCP Sidecar: WebMCP page tools for MCP clients, via a Chrome extension and a native host."""

__version__ = "0.1.0"

HOST_NAME = "io.webmcp.sidecar"
"""The native-messaging host name registered with the browser."""

EXTENSION_ID = "fafdbggbcpipbkecmkjnkpdagfobdohc"
"""Pinned by the `key` in extension/manifest.json, so it is the same on every machine."""
