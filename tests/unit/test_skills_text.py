"""A skill file's text (skills/problems.py, jsonpos.py): JSON problems with their line and
column, limits on size and nesting that never end in a RecursionError, and the editor schema."""

from __future__ import annotations

import json

import jsonschema

from webmcp_sidecar.skills import jsonpos
from webmcp_sidecar.skills.model import editor_schema
from webmcp_sidecar.skills.problems import MAX_DEPTH, check

from .test_skills_model import EXAMPLES, base, with_step

# --- the text: JSON problems, positions ---------------------------------------------------------


def test_json_syntax_errors_have_line_and_column():
    assert check('{\n  "name": "x",\n}', "f.json") == [
        "f.json:3:1: not valid JSON: Expecting property name enclosed in double quotes"]  # fmt: skip
    assert check("", "f.json") == ["f.json:1:1: not valid JSON: Expecting value"]


def test_duplicate_keys_and_nan_are_refused_where_they_are():
    assert check('{"name": "a",\n "name": "b", "x": [NaN, -Infinity]}', "f") == [
        "f:2:2: name: this key appears twice in its object (JSON keeps only the last one)",
        "f:2:21: x[0]: NaN and Infinity are not JSON",
        "f:2:26: x[1]: NaN and Infinity are not JSON",
    ]


def test_deep_or_huge_text_gives_a_clear_error_not_a_recursion_error():
    assert check("[" * 100_000 + "]" * 100_000, "f") == [
        f"f:1:{MAX_DEPTH + 1}: nested deeper than {MAX_DEPTH} levels"
    ]
    assert check('{"a":' * 40_000 + "1" + "}" * 40_000, "f") == [
        f"f:1:{5 * MAX_DEPTH + 1}: nested deeper than {MAX_DEPTH} levels"]  # fmt: skip
    big = json.dumps(base() | {"description": "x" * 300_000})
    assert check(big, "f") == ["f: too large: a skill file is at most 256 KiB"]
    assert check("é" * 140_000, "f") == ["f: too large: a skill file is at most 256 KiB"]  # bytes, not chars


def test_not_an_object():
    [msg] = check("[1, 2]", "f")
    assert msg.startswith("f:1:1: Input should be a valid dictionary")


def test_the_scanner_finds_escaped_keys_and_every_position():
    text = '{"a\\"b": [1, {"c": "}"}],\n  "\\u00e9": {"d": true}}'
    pos = jsonpos.scan(text, 10)
    assert pos.line_col(pos.offset(['a"b', 1, "c"])) == (1, 15)
    assert pos.line_col(pos.offset(["é", "d"])) == (2, 14)
    assert pos.offset(["é", "missing", "deeper"]) == pos.keys[("é",)]
    assert pos.values[('a"b', 0)] == text.index("1")
    assert pos.duplicates == [] and pos.too_deep is None


def test_a_byte_order_mark_is_allowed():
    assert check("\ufeff" + json.dumps(base()), "f") == []


# --- the editor schema --------------------------------------------------------------------------


def test_the_editor_schema_validates_the_examples_and_catches_typos():
    schema = editor_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for f in sorted(EXAMPLES.glob("*.skill.json")):
        assert list(validator.iter_errors(json.loads(f.read_text()))) == [], f
    doc = base() | {"$schema": "./skill.schema.json"}
    assert validator.is_valid(doc)
    doc["tools"][0]["steps"][0]["selektor"] = "x"
    assert not validator.is_valid(doc)
    assert not validator.is_valid(with_step({"action": "goto"}))
    assert not validator.is_valid(base() | {"name": "Bad"})
