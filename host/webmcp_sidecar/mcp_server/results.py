"""Turning a page's result into an MCP CallToolResult.

- a page result that already is MCP content (`{content: [...], isError?}`) passes through;
- a JSON object becomes `structuredContent`, plus its JSON (the page's own text, not re-encoded);
- a string becomes text; anything else its JSON text;
- errors become `isError` results carrying the message.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from pydantic import ValidationError

from webmcp_sidecar.wire.messages import Result

_CONTENT_TYPES = {"text", "image", "audio", "resource", "resource_link"}
NO_RESULT = "The tool ran and returned nothing."


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def text_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)])


def _looks_like_mcp(value: dict[str, Any]) -> bool:
    content = value.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(c, dict) and c.get("type") in _CONTENT_TYPES for c in content)
        and set(value) <= {"content", "isError", "structuredContent", "_meta"}
    )


def to_call_result(result: Result, max_bytes: int) -> types.CallToolResult:
    if not result.ok:
        err = result.error
        return error_result(err.message if err else "The tool failed without saying why.")
    text = result.value
    if text is None or text == "undefined":
        return text_result(NO_RESULT)
    if len(text) > max_bytes or len(text.encode()) > max_bytes:
        return error_result(too_large_message(len(text.encode()), max_bytes))
    try:
        value = json.loads(text)
    except ValueError:
        return text_result(text)
    if isinstance(value, dict):
        if _looks_like_mcp(value):
            try:
                return types.CallToolResult.model_validate(value)
            except ValidationError:
                pass
        return types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=value
        )
    if isinstance(value, str):
        return text_result(value)
    return text_result(text)


def too_large_message(size: int, cap: int) -> str:
    return (
        f"The tool's result is {_mb(size)}, over the {_mb(cap)} limit. "
        "Ask for less (a narrower query, fewer items), or raise the limit with "
        "--max-result-bytes."
    )


def _mb(n: int) -> str:
    """Binary units, as the extension words the same error."""
    return f"{n / 1048576:.1f} MB" if n >= 1048576 else f"{n / 1024:.1f} KB"
