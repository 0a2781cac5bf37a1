"""Checking tool arguments against the page's inputSchema before the page sees them."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError


@lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Draft202012Validator | None:
    schema = json.loads(schema_json)
    cls = validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None  # a page's broken schema cannot be enforced; the page gets to judge
    return cls(schema)  # type: ignore[return-value]


def schema_key(schema: dict[str, Any] | None) -> str | None:
    return None if schema is None else json.dumps(schema, sort_keys=True)


def check_arguments(schema_json: str | None, args: dict[str, Any]) -> str | None:
    """None when `args` fit the schema, else a plain message listing what is wrong."""
    if schema_json is None:
        return None
    v = _validator(schema_json)
    if v is None:
        return None
    errors = sorted(v.iter_errors(args), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    lines = []
    for e in errors[:8]:
        where = "/".join(str(p) for p in e.absolute_path)
        lines.append(f"- {where or '(arguments)'}: {e.message}")
    more = f"\n(and {len(errors) - 8} more)" if len(errors) > 8 else ""
    return "Invalid arguments:\n" + "\n".join(lines) + more
