"""What every provider adapter yields, and its errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

from webmcp_sidecar.agent.history import Message, ToolCall
from webmcp_sidecar.agent.toolset import ToolSpec


@dataclass
class TextPiece:
    text: str


@dataclass
class Calls:
    """The model's answer ended; these are its tool calls (possibly none)."""

    calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str = ""


StreamEvent = TextPiece | Calls


class Provider(Protocol):
    label: str

    def stream(
        self, system: str, messages: list[Message], tools: list[ToolSpec]
    ) -> AsyncIterator[StreamEvent]:
        """Text pieces as they arrive, then one `Calls`. Raises ProviderError."""
        ...

    async def aclose(self) -> None: ...


class ProviderError(Exception):
    """A provider failure in plain language, with what to do. `code` is for the UI and tests:
    auth, forbidden, rate_limit, quota, not_found, context_too_long, tools_unsupported,
    bad_request, server, network, timeout, missing_key, config, protocol."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
