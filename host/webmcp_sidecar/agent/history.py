"""The conversation as the model sees it, provider-neutral; each adapter converts it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    name: str  # the model-facing name (see toolset.py)
    arguments: dict[str, Any] = Field(default_factory=dict)
    # Set when the model's arguments could not be read as a JSON object: the call is not run
    # and the model is told why.
    invalid: str | None = None


class Message(BaseModel):
    """user: `text`; assistant: `text` and/or `tool_calls`; tool: the result of one call."""

    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
