"""What a part of the host composed into it at start is (`cli.py` composes them: skills, chat
sites, local MCP servers, the side panel's agent): an object that says which browser message
types it handles, each by the name of its method, like the Host's own `ROUTES`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol

# A handler for browser messages of one type: gets the decoded message and its frame bytes.
Handler = Callable[[dict[str, Any], bytes], None]
# Awaited when the host exits (local MCP servers stop with the host).
Closer = Callable[[], Awaitable[None]]


class Plugin(Protocol):
    # browser message type -> the name of the method that handles it
    HANDLES: ClassVar[dict[str, str]]
