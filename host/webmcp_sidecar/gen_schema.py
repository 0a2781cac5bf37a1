"""Pydantic models' JSON Schema as JavaScript: JSDoc typedefs, and plain checkers of messages
(gen_messages.py applies them to the protocol's models; gen_js.py writes the files).

A checker is plain code made from one model's schema, no library (the extension has no build
step): each field is checked in the model's order; a required field that is missing or bad fails
the message with "no <field>", an optional one that is bad with "<field> is not <what>"; one that
is missing (or null where null is not allowed) takes its default. The normalised message holds the
model's fields only. What the worker does beyond checking is said in the field's schema, by keys
that wire/messages.py documents: `x-lowercase`, `x-fallback`, `x-clamp`.

Handled: the JSON Schema pydantic writes (type, const, enum, anyOf/oneOf/allOf, $ref, properties,
required, additionalProperties, propertyNames, min/maxProperties, items, min/maxItems,
min/maxLength, pattern, minimum/maximum and their exclusive forms, integer multipleOf, SecretStr's
format); anything else in a checked schema fails generation, so a new kind of field cannot pass
unchecked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

# Keys of a schema that only describe (or that we read elsewhere): never a check.
_QUIET = {
    "title",
    "description",
    "default",
    "examples",
    "writeOnly",
    "readOnly",
    "deprecated",
    "discriminator",
}
_X = {"x-lowercase", "x-fallback", "x-clamp"}
_KNOWN = {
    "type", "const", "enum", "anyOf", "oneOf", "allOf", "$ref", "properties", "required",
    "additionalProperties", "propertyNames", "minProperties", "maxProperties", "items", "minItems",
    "maxItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", *_QUIET, *_X,
}  # fmt: skip
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)


def js_regex(pattern: str) -> str:
    """A Python pattern as a JS RegExp literal (the two dialects agree on the ones we write)."""
    return "/" + pattern.replace("/", "\\/").replace("\\-", "-") + "/"


def schemas(models: Iterable[type[BaseModel]]) -> tuple[dict[type[BaseModel], str], dict[str, Any]]:
    """Each model's name in `$defs`, and the `$defs` (every model and what it refers to)."""
    models = list(dict.fromkeys(models))
    refs, top = models_json_schema([(m, "validation") for m in models], ref_template="{model}")
    defs: dict[str, Any] = top.get("$defs", {})
    return {m: refs[(m, "validation")]["$ref"] for m in models}, defs


def _alternatives(s: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of an `anyOf` / `oneOf`."""
    return list(s.get("anyOf") or s.get("oneOf") or [])


def _name(ref: str) -> str:
    """A `$defs` name as a JS identifier."""
    return re.sub(r"[^A-Za-z0-9_$]", "_", ref)


def _key(name: str) -> str:
    return name if _IDENT.match(name) else js(name)


# --- typedefs ------------------------------------------------------------------------------


def ts_type(s: dict[str, Any]) -> str:
    """A schema as a TypeScript type (JSDoc)."""
    if "$ref" in s:
        return _name(s["$ref"])
    if "const" in s:
        return js(s["const"])
    if "enum" in s:
        return "(" + "|".join(js(v) for v in s["enum"]) + ")"
    if "anyOf" in s or "oneOf" in s:  # oneOf: pydantic's discriminated unions (members exclusive)
        return "(" + "|".join(ts_type(x) for x in _alternatives(s)) + ")"
    kind = s.get("type")
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        return f"Array<{ts_type(s['items']) if 'items' in s else 'any'}>"
    if kind == "object":
        if "properties" in s:
            return _object_type(s)
        extra = s.get("additionalProperties")
        return f"Record<string, {ts_type(extra) if isinstance(extra, dict) else 'any'}>"
    return "any"


def _object_type(s: dict[str, Any]) -> str:
    required = set(s.get("required", ()))
    props = s["properties"]
    fields = [
        # A message's `type` is on the wire always, though the model gives it a default.
        f"{_key(k)}{'' if k in required or k == 'type' else '?'}: {ts_type(v)}"
        for k, v in props.items()
    ]
    return "{" + ", ".join(fields) + "}"


def typedefs(defs: dict[str, Any]) -> str:
    out = []
    for ref, s in defs.items():
        about = " ".join((s.get("description") or "").split("\n\n")[0].split())
        out.append("/**")
        if about:
            out.append(f" * {about}")
        out.append(f" * @typedef {{{ts_type(s)}}} {_name(ref)}")
        out.append(" */")
    return "\n".join(out) + "\n"


# --- checkers ------------------------------------------------------------------------------


# Formats that say nothing a checker must check (SecretStr's).
_FORMATS = {"password"}


def _no_surprise(s: dict[str, Any], where: str) -> None:
    unknown = set(s) - _KNOWN
    if s.get("format", "password") not in _FORMATS:
        unknown.add(f"format {s['format']}")
    if unknown:
        raise ValueError(f"{where}: the checker generator does not know {sorted(unknown)}")


def valid(s: dict[str, Any], v: str, where: str) -> str:
    """A JS expression: whether value `v` fits schema `s`."""
    _no_surprise(s, where)
    if "$ref" in s:
        return f"is_{_name(s['$ref'])}({v})"
    if "const" in s:
        return f"{v} === {js(s['const'])}"
    if "enum" in s:
        return f"{js(s['enum'])}.includes({v})"
    if "anyOf" in s or "oneOf" in s:  # oneOf: a discriminated union, whose members never overlap
        return "(" + " || ".join(f"({valid(x, v, where)})" for x in _alternatives(s)) + ")"
    if "allOf" in s:
        return "(" + " && ".join(f"({valid(x, v, where)})" for x in s["allOf"]) + ")"
    kind = s.get("type")
    parts: list[str]
    if kind == "string":
        parts = [f"typeof {v} === 'string'"]
        if "minLength" in s:
            parts.append(f"chars({v}) >= {s['minLength']}")
        if "maxLength" in s:
            parts.append(f"chars({v}) <= {s['maxLength']}")
        if "pattern" in s:
            parts.append(f"{js_regex(s['pattern'])}.test({v})")
    elif kind in ("integer", "number"):
        parts = [f"Number.isInteger({v})" if kind == "integer" else f"Number.isFinite({v})"]
        for key, op in (
            ("minimum", ">="),
            ("maximum", "<="),
            ("exclusiveMinimum", ">"),
            ("exclusiveMaximum", "<"),
        ):
            if key in s:
                parts.append(f"{v} {op} {js(s[key])}")
        if "multipleOf" in s:
            if not isinstance(s["multipleOf"], int):
                raise ValueError(f"{where}: a multipleOf that is not an integer is not checked exactly in JS")
            parts.append(f"{v} % {s['multipleOf']} === 0")
    elif kind == "boolean":
        parts = [f"typeof {v} === 'boolean'"]
    elif kind == "null":
        parts = [f"{v} === null"]
    elif kind == "array":
        parts = [f"Array.isArray({v})"]
        if "minItems" in s:
            parts.append(f"{v}.length >= {s['minItems']}")
        if "maxItems" in s:
            parts.append(f"{v}.length <= {s['maxItems']}")
        if s.get("items"):
            parts.append(f"{v}.every((x) => {valid(s['items'], 'x', where + '[]')})")
    elif kind == "object":
        parts = [f"isObject({v})"]
        if "properties" in s:
            parts.append(_object_valid(s, v, where))
        parts += _object_keys(s, v, where)
    elif kind is None:
        return "true"  # any JSON value
    else:
        raise ValueError(f"{where}: the checker generator does not know type {kind!r}")
    return " && ".join(parts)


def _object_keys(s: dict[str, Any], v: str, where: str) -> list[str]:
    """Checks of an object's keys beyond its declared properties."""
    declared = list(s.get("properties", {}))
    out = []
    extra = s.get("additionalProperties", True)
    if extra is False:  # a model with extra="forbid"
        out.append(f"Object.keys({v}).every((k) => {js(declared)}.includes(k))")
    elif isinstance(extra, dict) and extra:
        ok = valid(extra, "x", where + "{}")
        if declared:
            out.append(f"Object.entries({v}).every(([k, x]) => {js(declared)}.includes(k) || ({ok}))")
        else:
            out.append(f"Object.values({v}).every((x) => {ok})")
    if "propertyNames" in s:
        out.append(f"Object.keys({v}).every((k) => {valid(s['propertyNames'], 'k', where + '{key}')})")
    if "minProperties" in s:
        out.append(f"Object.keys({v}).length >= {s['minProperties']}")
    if "maxProperties" in s:
        out.append(f"Object.keys({v}).length <= {s['maxProperties']}")
    return out


def _object_valid(s: dict[str, Any], v: str, where: str) -> str:
    required = set(s.get("required", ()))
    checks = []
    for k, p in s["properties"].items():
        at = f"{v}[{js(k)}]"
        ok = valid(p, "x", f"{where}.{k}")
        if k in required:
            checks.append(f"((x) => {ok})({at})")
        else:
            checks.append(f"((x) => x === undefined || ({ok}))({at})")
    return " && ".join(checks) if checks else "true"


def _what(s: dict[str, Any]) -> str:
    """What a value of schema `s` is, in an error: 'an object', 'a string'..."""
    kind = s.get("type")
    words = {
        "object": "an object",
        "array": "a list",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "a boolean",
    }
    return words.get(kind, "valid") if isinstance(kind, str) else "valid"


def _field_code(model: type[BaseModel], key: str, s: dict[str, Any], required: bool) -> list[str]:
    where = f"{model.__name__}.{key}"
    at = f"m[{js(key)}]"
    ok = valid(s, "v", where)
    out = [f"    v = {at};"]
    if required:
        out.append(f"    if (!({ok})) return no({js(key)});")
    else:
        field = next(f for n, f in model.model_fields.items() if (f.alias or n) == key)
        default = js(field.get_default(call_default_factory=True))
        if "x-clamp" in s:
            top = "Number.MAX_SAFE_INTEGER" if s["x-clamp"] is None else js(s["x-clamp"])
            out.append(f"    v = clamp(v, {default}, {top});")
        else:
            # Missing: absent, or null where null is not a value the field takes.
            nullable = {"type": "null"} in _alternatives(s)
            missing = "v === undefined" if nullable else "v === undefined || v === null"
            if s.get("x-fallback"):
                out.append(f"    if ({missing} || !({ok})) v = {default};")
            else:
                out.append(f"    if ({missing}) v = {default};")
                out.append(f"    else if (!({ok})) return not({js(key)}, {js(_what(s))});")
    if s.get("x-lowercase"):
        out.append("    v = v.toLowerCase();")
    out.append(f"    out[{js(key)}] = v;")
    return out


def checker(model: type[BaseModel], ref: str, defs: dict[str, Any], types: str) -> str:
    """One model's checker: `(m) => {ok: true, msg} | {ok: false, what}`."""
    s = defs[ref]
    kind = s["properties"]["type"]["const"]
    required = set(s.get("required", ()))
    lines = [
        f"  /** @param {{any}} m @returns {{Checked<import({js(types)}).{_name(ref)}>}} */",
        f"  {_key(kind)}(m) {{",
        f"    /** @type {{any}} */ const out = {{ type: {js(kind)} }};",
        "    let v;",
    ]
    if s.get("additionalProperties") is False:  # extra="forbid": an unknown field fails the message
        lines.append(f"    const known = {js(list(s['properties']))};")
        lines.append("    const odd = Object.keys(m).find((k) => !known.includes(k));")
        lines.append(
            "    if (odd !== undefined) return { ok: false, what: `unexpected field ${odd.slice(0, 40)}` };"
        )
    for key, p in s["properties"].items():
        if key != "type":
            lines += _field_code(model, key, p, key in required)
    lines += ["    return { ok: true, msg: out };", "  },"]
    return "\n".join(lines)


def _nested(defs: dict[str, Any], roots: Sequence[str]) -> list[str]:
    """The `$defs` the roots' fields refer to, at any depth (each needs an `is_` function)."""
    seen: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.append(ref)
                walk(defs[ref])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for root in roots:
        walk(defs[root]["properties"])
    return seen


PRELUDE = """\
/**
 * @template T
 * @typedef {{ok: true, msg: T} | {ok: false, what: string}} Checked
 */
/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A string's length in code points, as pydantic counts it. */
const chars = (/** @type {string} */ s) =>
  (s.length > 1 && /[\\uD800-\\uDFFF]/.test(s) ? [...s].length : s.length);
/** A positive number, floored and capped; anything else the fallback. */
const clamp = (/** @type {any} */ v, /** @type {number} */ fallback, /** @type {number} */ max) =>
  (Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), max) : fallback);
/** @param {string} field @returns {{ok: false, what: string}} */
const no = (field) => ({ ok: false, what: `no ${field}` });
/** @param {string} field @param {string} what @returns {{ok: false, what: string}} */
const not = (field, what) => ({ ok: false, what: `${field} is not ${what}` });
"""


def checkers_js(name: str, models: Sequence[type[BaseModel]], about: str, types: str) -> str:
    """`export const <name>`: type -> checker, for `models` (each with a `type` literal); `types`:
    the module with their typedefs."""
    refs, defs = schemas(models)
    nested = _nested(defs, [refs[m] for m in models])
    out = [PRELUDE]
    for ref in nested:
        out.append("/** @param {any} v @returns {boolean} */")
        out.append(f"function is_{_name(ref)}(v) {{\n  return {valid(defs[ref], 'v', ref)};\n}}")
    out.append(f"/** {about} */")
    out.append(f"export const {name} = Object.freeze(Object.assign(Object.create(null), {{")
    out += [checker(m, refs[m], defs, types) for m in models]
    out.append("}));")
    return "\n".join(out) + "\n"
