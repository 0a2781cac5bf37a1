"""A page's tool as the host takes it: the `Tool` model with its caps, the page's hints, and the
helpers that drop one bad tool (logged in words a log line can hold) without costing the others.
Re-exported by `wire.messages`, where the messages that carry tools live.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from webmcp_sidecar.wire.constants import MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, TOOL_NAME_PATTERN, ToolSource

log = logging.getLogger("webmcp_sidecar.wire.messages")  # the logger these lines always had


# Page data in a tool is capped as the extension caps it (the host checks again): nesting of
# objects/arrays, and compact UTF-8 JSON bytes, of each of a tool's schemas and of its
# annotations (a 130-level schema used to end every MCP entry on tools/list).
_CAPPED_FIELDS = ("inputSchema", "outputSchema", "annotations")


class _Model(BaseModel):
    # defer_build: a model's validator and serializer are built on its first use, not at import:
    # the host answers its first message before it needs most of them (issue 14, cold start).
    model_config = ConfigDict(extra="ignore", frozen=False, defer_build=True)


class ToolAnnotations(BaseModel):
    """Hints from an untrusted page: passed through, never relied on for security. The spec's
    hints are `readOnlyHint`, `consequentialHint` and `untrustedContentHint`; older pages send
    MCP's `destructiveHint`/`idempotentHint`/`openWorldHint`, still honoured."""

    model_config = ConfigDict(extra="allow", defer_build=True)
    readOnlyHint: bool | None = None
    consequentialHint: bool | None = None
    untrustedContentHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None

    def consequential(self) -> bool:
        """Whether the page says the tool changes things that matter (the spec's hint, or the
        legacy `destructiveHint`)."""
        return self.consequentialHint is True or self.destructiveHint is True

    def read_only(self) -> bool:
        """Whether the page claims the tool only reads: `readOnlyHint`, unless it also says
        the tool is consequential (a page that says both is taken at the safer word)."""
        return self.readOnlyHint is True and not self.consequential()


def json_over_limits(
    value: Any, max_depth: int = MAX_SCHEMA_DEPTH, max_bytes: int = MAX_SCHEMA_BYTES
) -> str | None:
    """What is wrong with a JSON value's size, or None. Iterative (a deep value cannot overflow
    the stack) and bounded: every value costs at least one byte of JSON, so no more than
    `max_bytes` values are visited before giving up."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    visited = 0
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            items: Any = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        if depth > max_depth:
            return f"nests deeper than {max_depth} levels"
        visited += len(v)
        if visited > max_bytes:
            return f"is larger than {max_bytes} bytes"
        stack.extend((x, depth + 1) for x in items if isinstance(x, dict | list))
    try:  # depth is bounded now: encoding cannot recurse too far
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return "is not JSON data"
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        return f"is larger than {max_bytes} bytes"
    return None


class Tool(_Model):
    """A tool as a site offers it (the union of its tabs' tools)."""

    name: Annotated[str, Field(pattern=TOOL_NAME_PATTERN)]
    title: str | None = None
    description: str = ""
    inputSchema: dict[str, Any] | None = None
    # What the tool's result looks like (spec PR #254): passed on to MCP clients, results
    # checked against it (mcp_server/output_schema.py).
    outputSchema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    source: ToolSource = "native"
    skill: str | None = None  # source "skill": the skill's name (docs/SKILLS.md)
    # A tool of a cross-origin frame that exposed it to the page (allow="tools" and
    # exposedTo naming the top origin): the frame's origin, as the browser gave it.
    origin: Annotated[str, Field(max_length=512)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _page_data_within_limits(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in _CAPPED_FIELDS:
                if data.get(key) is not None and (wrong := json_over_limits(data[key])):
                    raise ValueError(f"{key} {wrong}")
        return data


def _good_tools(site: Any, raw: Any) -> Any:
    """The tools of `raw` (a site's list) that are valid, each bad one dropped with its reason
    logged: one bad tool must not cost its site, or the whole message, the others."""
    if not isinstance(raw, list):
        return raw  # the field's own validation says what is wrong
    good: list[Tool] = []
    for item in raw:
        try:
            good.append(item if isinstance(item, Tool) else Tool.model_validate(item))
        except ValidationError as e:
            name = item.get("name") if isinstance(item, dict) else None
            shown = loggable(repr(name[:100])) if isinstance(name, str) else "without a name"
            log.warning("site %s: tool %s dropped: %s", loggable(site), shown, validation_reason(e))
    return good


def validation_reason(e: ValidationError) -> str:
    """A ValidationError in one short line (it may quote page data, so it is cut)."""
    parts = []
    for err in e.errors()[:3]:
        where, what = ".".join(map(str, err["loc"])), err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {what}" if where else what)
    return loggable("; ".join(parts), 300)


def loggable(value: Any, limit: int = 100) -> str:
    """Page text for a log line: cut, and nothing that could forge a line of its own."""
    text = value if isinstance(value, str) else repr(value)
    text = text[:limit] + ("..." if len(text) > limit else "")
    return "".join(c if c.isprintable() else "?" for c in text)
