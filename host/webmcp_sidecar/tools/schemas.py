"""A page's `inputSchema` as the object schema that MCP clients and model APIs require.

MCP's `Tool.inputSchema` must be `type: object`, and model APIs (OpenAI's in particular) want
`properties` too. Pages often leave `type` out; a schema of another type cannot describe the
arguments object at all, so it is shown as "any object" (the page still checks what it gets).
"""

from __future__ import annotations

from typing import Any


def empty() -> dict[str, Any]:
    """A schema for an object with nothing required (a fresh copy each time)."""
    return {"type": "object", "properties": {}}


def object_schema(schema: Any) -> dict[str, Any]:
    """A shallow copy of `schema` with `type: object` and `properties`; `empty()` when it is not
    a dict, is empty, or names another type."""
    if not isinstance(schema, dict) or not schema:
        return empty()
    kind = schema.get("type", "object")
    if kind != "object":
        return empty()
    out = {"type": "object", **schema}
    out.setdefault("properties", {})
    return out
