"""A skill tool's `inputSchema`: the caps and checks page tools' schemas get, and then some.

A page's broken schema is passed on and the page judges its input; a skill's author can fix
theirs, so every problem is refused up front with what is wrong: the size caps of
`wire.messages.json_over_limits`, an object schema (`tools.schemas`), the JSON Schema
metaschema, the `$ref` and regex checks of `tools.schema_refs`/`tools.safe_regex` (nothing
outside the schema, no loop, only regexes RE2 runs).
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator, validators

from webmcp_sidecar.tools.safe_regex import compile_pattern
from webmcp_sidecar.tools.schema_refs import inspect
from webmcp_sidecar.wire.messages import json_over_limits


def problem(schema: Any) -> str | None:
    """What is wrong with `schema` as a skill tool's inputSchema, or None."""
    if not isinstance(schema, dict):
        return 'must be a JSON Schema object, e.g. {"type": "object", "properties": {}}'
    if wrong := json_over_limits(schema):
        return wrong
    if schema.get("type", "object") != "object":
        return 'must describe an object (`"type": "object"`): a tool\'s arguments are an object'
    if "properties" in schema and not isinstance(schema["properties"], dict):
        return "`properties` must be an object"
    try:
        base = validators.validator_for(schema, default=Draft202012Validator)
        meta = validators.validator_for(base.META_SCHEMA, default=base)(base.META_SCHEMA)
        err = next(iter(sorted(meta.iter_errors(schema), key=lambda e: list(map(str, e.path)))), None)
    except Exception as e:  # jsonschema tripping over an odd schema
        return f"cannot be read as a JSON Schema ({type(e).__name__})"
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path)
        return f"is not a valid JSON Schema: {where + ': ' if where else ''}{_short(err.message)}"
    found = inspect(schema)
    if found.problem:
        return found.problem
    for patrn in sorted(found.patterns | found.property_patterns):
        if compile_pattern(patrn) is None:
            return (
                f"the regex {_short(repr(patrn), 100)} cannot be checked safely (lookarounds "
                "and backreferences are not supported): simplify it"
            )
    return None


def properties(schema: dict[str, Any]) -> set[str]:
    """The argument names a schema declares (what templates may refer to)."""
    props = schema.get("properties")
    return set(props) if isinstance(props, dict) else set()


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
