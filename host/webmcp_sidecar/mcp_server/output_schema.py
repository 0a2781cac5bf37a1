"""A page tool's `outputSchema` (spec PR #254) as the MCP tool's, and results checked against it.

The schema is page data, like `inputSchema` (the `Tool` model already caps its depth and size).
MCP clients check `structuredContent` against a tool's `outputSchema` themselves (the Python
SDK raises on a schema it cannot compile, a `$ref` it cannot resolve, or a result that does not
match), so a schema is passed on only when we can check results exactly as the client will:
- an object schema (MCP requires `type: "object"` at the root; a missing `type` is added);
- valid against its metaschema (what the client's `check_schema` does);
- every `$ref` inside it and no `$ref` loop (tools/schema_refs.py);
- every `pattern` and `patternProperties` name runnable by RE2 (otherwise our check would skip
  it and the client's would not).
Any other schema is left out (logged once) and the tool is listed without one.

Results are checked by tools/validation.py (no fetching, RE2, a deadline); one that does not
fit comes back as an `isError` result, before the client would reject it with a protocol error.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import Any

from mcp import types

from webmcp_sidecar.mcp_server.results import error_result
from webmcp_sidecar.tools.safe_regex import compile_pattern
from webmcp_sidecar.tools.schema_refs import inspect
from webmcp_sidecar.tools.validation import RESULT, check_arguments_async

log = logging.getLogger(__name__)


def publishable(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The MCP `outputSchema` for a page's `outputSchema`, or None when there is none to pass on."""
    if schema is None:
        return None
    text = json.dumps(schema, sort_keys=True)
    why = _problem(text)
    if why:
        return None
    out = json.loads(text)
    out.setdefault("type", "object")
    return out


@lru_cache(maxsize=256)
def _problem(schema_json: str) -> str | None:
    why = problem(json.loads(schema_json))
    if why:
        log.warning("an outputSchema left out: %s", why)
    return why


def problem(schema: Any) -> str | None:
    """Why `schema` cannot be an MCP tool's `outputSchema` we check results against, or None."""
    if not isinstance(schema, dict):
        return "it is not an object"
    if schema.get("type", "object") != "object":
        return "it does not describe an object (MCP wants `type: object`)"
    schema = {"type": "object", **schema}
    from jsonschema import Draft202012Validator, validators  # on first use: not at the entry's start

    try:
        # As the client will (formats included: its `regex` compiles each pattern with `re`,
        # which compiles but never runs them here).
        validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except Exception:
        return "it is not a valid JSON Schema"
    found = inspect(schema)
    if found.problem:
        return found.problem
    if any(compile_pattern(p) is None for p in found.patterns | found.property_patterns):
        return "it has a regular expression that cannot be checked safely"
    return None


async def checked(result: types.CallToolResult, schema_json: str, tool: str) -> types.CallToolResult:
    """`result` when its structured content fits the schema (errors pass as they are), else an
    `isError` result saying what is wrong."""
    if result.is_error:
        return result
    value = result.structured_content
    if value is None:
        return error_result(
            f"The tool `{tool}` declares an output schema, but its result is not a JSON object, "
            "so it cannot be checked against it or passed on as structured content."
        )
    problem_text = await check_arguments_async(schema_json, value, RESULT)
    return error_result(problem_text) if problem_text else result
