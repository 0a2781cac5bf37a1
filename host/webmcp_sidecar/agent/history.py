"""The conversation as the model sees it, provider-neutral; each adapter converts it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# `Message.data_from` of page data whose site is not known: a tab after a navigation, or a
# conversation kept before sources were recorded. It counts as another site for everyone.
UNKNOWN_SITE = "?"


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
    # tool: the site whose page data this result holds (see `agent/confirm_policy.py`); None:
    # none (our own messages, local tools). The default is for results stored without it.
    data_from: str | None = UNKNOWN_SITE
