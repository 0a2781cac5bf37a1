"""The skill document (skills/model.py, steps.py, templates.py, match_patterns.py) and the
messages a skill file's problems get (skills/problems.py, jsonpos.py): each rule of
docs/SKILLS.md with a bad input and the words it must produce."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from webmcp_sidecar.skills.match_patterns import PatternError, glob_match, parse
from webmcp_sidecar.skills.model import Skill
from webmcp_sidecar.skills.problems import check

EXAMPLES = Path(__file__).resolve().parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"
DOC_EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "SKILLS.md"


def base() -> dict[str, Any]:
    return {
        "name": "shop",
        "version": "1.0.0",
        "description": "A shop",
        "match": ["https://shop.example.com/*"],
        "tools": [
            {
                "name": "search",
                "description": "Search",
                "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
                "steps": [
                    {"action": "fill", "selector": "#q", "value": "{{query}}"},
                    {"action": "click", "selector": "button"},
                ],
            }
        ],
    }


def problems(doc: Any) -> list[str]:
    return check(json.dumps(doc, indent=2), "t.skill.json")


def one(doc: Any, fragment: str) -> str:
    """The doc has problems and one of them says `fragment`; that message."""
    found = problems(doc)
    hits = [m for m in found if fragment in m]
    assert hits, found
    return hits[0]


def with_step(step: dict[str, Any]) -> dict[str, Any]:
    doc = base()
    doc["tools"][0]["steps"] = [step]
    return doc


# --- whole documents ------------------------------------------------------------------------


def test_the_docs_example_and_the_shipped_examples_are_valid():
    text = DOC_EXAMPLE.read_text().split("```json")[1].split("```")[0]
    assert check(text, "doc") == []
    for f in sorted(EXAMPLES.glob("*.skill.json")):
        assert check(f.read_text(), f.name) == [], f
    assert {f.name for f in EXAMPLES.glob("*.skill.json")} == {
        "demo-search.skill.json",
        "demo-shop.skill.json",
    }


def test_defaults_are_filled_in():
    skill = Skill.model_validate(base())
    data = skill.dump()
    assert data["priority"] == 0 and data["exclude"] == []
    step = data["tools"][0]["steps"][0]
    assert step == {
        "action": "fill",
        "timeout_ms": 5000,
        "optional": False,
        "selector": "#q",
        "value": "{{query}}",
    }
    doc = with_step({"action": "extract", "as": "rows", "list": "tr", "fields": {"a": {}}})
    assert Skill.model_validate(doc).dump()["tools"][0]["steps"][0]["limit"] == 50
    doc = with_step({"action": "type", "selector": "#q", "text": "x"})
    assert Skill.model_validate(doc).tools[0].steps[0].clear is True  # type: ignore[union-attr]
    doc = base()
    del doc["tools"][0]["inputSchema"]
    doc["tools"][0]["steps"] = [{"action": "click", "selector": "a"}]
    assert Skill.model_validate(doc).tools[0].inputSchema == {"type": "object", "properties": {}}


def test_dollar_schema_is_allowed_and_left_out_of_the_dump():
    doc = base() | {"$schema": "./skill.schema.json"}
    assert problems(doc) == []
    assert "$schema" not in Skill.model_validate(doc).dump()


def test_a_misspelt_field_is_an_error_at_its_key():
    doc = base()
    doc["tools"][0]["steps"][1]["selektor"] = "x"
    msg = one(doc, "tools[0].steps[1].selektor")
    assert "not a field here (misspelt?)" in msg
    assert one(base() | {"descripton": "x"}, "descripton: not a field here")
    doc = base()
    doc["tools"][0]["annotations"] = {"readOnly": True}
    one(doc, "tools[0].annotations.readOnly: not a field here")


def test_a_missing_field_points_at_its_object_with_line_and_column():
    doc = base()
    del doc["tools"][0]["steps"][0]["selector"]
    text = json.dumps(doc, indent=2)
    [msg] = check(text, "shop.skill.json")
    line = text[: text.index('"action": "fill"')].count("\n")  # the step's `{` is on the line before
    lines = text.splitlines()
    col = lines[line - 1].index("{") + 1
    assert msg == f"shop.skill.json:{line}:{col}: tools[0].steps[0].selector: Field required"


def test_strict_types():
    one(base() | {"version": 1}, "version: Input should be a valid string")
    one(base() | {"priority": "5"}, "priority: Input should be a valid integer")
    one(base() | {"priority": 1001}, "priority: Input should be less than or equal to 1000")


@pytest.mark.parametrize(
    ("name", "ok"),
    [("shop", True), ("a", True), ("0-shop_2", True), ("a" * 64, True), ("a" * 65, False),
     ("Shop", False), ("-shop", False), ("_x", False), ("sh op", False), ("", False), ("../x", False)],
)  # fmt: skip
def test_skill_names(name, ok):
    found = problems(base() | {"name": name})
    assert (found == []) is ok, found
    if not ok:
        assert "name: String should match pattern" in found[0]


def test_version_description_and_counts():
    one(base() | {"version": ""}, "version: String should have at least 1 character")
    one(base() | {"version": "1" * 33}, "version: String should have at most 32 characters")
    one(base() | {"description": "x" * 8193}, "description: String should have at most 8192 characters")
    one(base() | {"match": []}, "match: List should have at least 1 item")
    one(base() | {"match": ["https://a.com/*"] * 33}, "match: List should have at most 32 items")
    one(base() | {"exclude": ["https://a.com/*"] * 33}, "exclude: List should have at most 32 items")
    one(base() | {"tools": []}, "tools: List should have at least 1 item")
    doc = base()
    doc["tools"] = [dict(doc["tools"][0], name=f"t{i}") for i in range(65)]
    one(doc, "tools: List should have at most 64 items")
    doc = base()
    doc["tools"][0]["steps"] = [{"action": "click", "selector": "a"}] * 65
    one(doc, "tools[0].steps: List should have at most 64 items")
    doc = base()
    doc["tools"][0]["title"] = "t" * 257
    one(doc, "tools[0].title: String should have at most 256 characters")


def test_tool_names_follow_the_page_rule_and_are_unique():
    doc = base()
    doc["tools"][0]["name"] = "bad name"
    one(doc, "tools[0].name: String should match pattern '^[A-Za-z0-9_.\\-]{1,128}$'")
    doc = base()
    doc["tools"].append(copy.deepcopy(doc["tools"][0]))
    one(doc, "tools[1].name: `search` is already the name of tools[0]")


# --- match patterns ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("<all_urls>", "`<all_urls>` is refused"),
        ("file:///home/*", "`file:` patterns are refused"),
        ("*://*/*", "a bare `*` host is refused"),
        ("https://*/", "a bare `*` host is refused"),
        ("ftp://a.com/*", "scheme 'ftp' is not one of http, https or *"),
        ("https://a.com", "has no path"),
        ("https://a.com:0/*", "port '0' is not a number from 1 to 65535"),
        ("https://a.com:65536/*", "port '65536' is not a number"),
        ("https://a.com:/*", "port '' is not a number"),
        ("https://a.com:8x/*", "port '8x' is not a number"),
        ("https://a*.com/*", "`*` may only start the host"),
        ("https://*.127.0.0.1/*", "`*.` cannot go before an IP address"),
        ("https://a..com/*", "is not a host name"),
        ("https://[::1/*", "opens `[` but never closes it"),
        ("https://[zz]/*", "is not an IPv6 address"),
        ("example.com/*", "is not `<scheme>://<host>/<path>`"),
        ("", "non-empty"),
    ],
)
def test_bad_match_patterns(pattern, says):
    with pytest.raises(PatternError, match=None) as e:
        parse(pattern)
    assert says in str(e.value)
    one(base() | {"exclude": [pattern]}, f"exclude[0]: {str(e.value)[:20]}")


def test_match_patterns_match_as_the_doc_says():
    p = parse("*://*.example.com/shop/*")
    assert p.matches("https://example.com/shop/x") and p.matches("http://a.b.example.com:8080/shop/")
    assert not p.matches("https://example.org/shop/x") and not p.matches("https://badexample.com/shop/")
    assert not p.matches("file:///shop/x") and not p.matches("ftp://example.com/shop/x")
    assert parse("http://127.0.0.1:*/shop/*").matches("http://127.0.0.1:5173/shop/?q=1")
    assert parse("http://127.0.0.1/shop*").matches("http://127.0.0.1:9/shop")  # no port: any port
    assert not parse("http://127.0.0.1:8080/*").matches("http://127.0.0.1:8081/")
    assert parse("https://a.com:443/*").matches("https://a.com/x")
    assert parse("http://[::1]:8000/*").matches("http://[::1]:8000/a")
    assert parse("https://a.com/s?q=*").matches("https://a.com/s?q=shoes")  # path + query
    assert not parse("https://a.com/s").matches("https://a.com/s/more")
    assert glob_match("*a*b*c*", "xxaxxbxxc") and not glob_match("*a*b*c", "abcx")
    assert glob_match("a" + "*a" * 30, "a" * 40) and not glob_match("*a" * 30 + "b", "a" * 2000)


# --- steps ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "says"),
    [
        ({"action": "wait_for"}, "give exactly one condition: selector, text, url or navigation"),
        ({"action": "wait_for", "selector": "a", "text": "b"}, "(it has selector, text)"),
        ({"action": "wait_for", "text": "b", "gone": True}, "`gone` goes with `selector` only"),
        ({"action": "wait_for", "navigation": False}, "navigation: Input should be True"),
        ({"action": "select", "selector": "s"}, "give exactly one of `value` or `values`"),
        (
            {"action": "select", "selector": "s", "value": "a", "values": ["b"]},
            "exactly one of `value` or `values`",
        ),
        ({"action": "scroll"}, "give exactly one of `selector` or `to`"),
        ({"action": "scroll", "to": "middle"}, "to: Input should be 'top' or 'bottom'"),
        ({"action": "extract", "as": "x"}, "give either `selector`, or `list` with `fields`"),
        ({"action": "extract", "as": "x", "list": "li"}, "give either `selector`, or `list` with `fields`"),
        ({"action": "extract", "as": "x", "selector": "a", "list": "li", "fields": {"a": {}}}, "not both"),
        ({"action": "extract", "as": "x", "selector": "a", "limit": 3}, "not both"),
        (
            {"action": "extract", "as": "x", "list": "li", "fields": {"a": {}}, "all": True},
            "`attribute` and `all` go with `selector`",
        ),
        (
            {"action": "extract", "as": "x", "list": "li", "fields": {"a": {}}, "limit": 501},
            "limit: Input should be less than or equal to 500",
        ),
        (
            {"action": "extract", "as": "x", "list": "li", "fields": {}},
            "fields: Dictionary should have at least 1 item",
        ),
        (
            {"action": "extract", "as": "x", "list": "li", "fields": {"a": {"sel": "b"}}},
            "fields.a.sel: not a field here",
        ),
        ({"action": "extract", "as": "1x", "selector": "a"}, "as: String should match pattern"),
        ({"action": "click", "selector": ""}, "selector: String should have at least 1 character"),
        ({"action": "click", "selector": "a" * 1025}, "selector: String should have at most 1024 characters"),
        (
            {"action": "click", "selector": "a", "timeout_ms": 0},
            "timeout_ms: Input should be greater than or equal to 1",
        ),
        (
            {"action": "click", "selector": "a", "timeout_ms": 60001},
            "timeout_ms: Input should be less than or equal to 60000",
        ),
        ({"action": "fill", "selector": "a", "value": "x", "trusted": True}, "trusted: not a field here"),
        ({"action": "press", "key": ""}, "key: String should have at least 1 character"),
        ({"action": "navigate"}, "url: Field required"),
        ({"action": "return"}, "value: Field required"),
        ({"action": "goto", "url": "/"}, 'action: "goto" is not an action; the actions are fill, type'),
        ({"selector": "a"}, "a step needs an `action`"),
    ],
)
def test_step_rules(step, says):
    msg = one(with_step(step), says)
    assert msg.split(": ")[1].startswith("tools[0].steps[0]"), msg


def test_every_action_has_a_valid_form():
    steps = [
        {"action": "fill", "selector": "#q", "value": "v"},
        {"action": "type", "selector": "#q", "text": "t", "clear": False, "trusted": True},
        {"action": "click", "selector": "a", "text": "Buy"},
        {"action": "press", "key": "Enter"},
        {"action": "select", "selector": "s", "values": ["a", "b"]},
        {"action": "check", "selector": "#c", "checked": False},
        {"action": "scroll", "to": "bottom"},
        {"action": "wait_for", "selector": ".spinner", "gone": True, "optional": True},
        {"action": "wait_for", "url": "*/done*"},
        {"action": "navigate", "url": "/cart"},
        {"action": "extract", "as": "links", "selector": "a", "attribute": "href", "all": True},
        {"action": "return", "value": [1, {"a": None}, "{{links}}"]},
    ]
    doc = base()
    doc["tools"][0]["steps"] = steps
    assert problems(doc) == []


def test_a_deep_or_huge_return_value_is_capped():
    deep: Any = "x"
    for _ in range(33):
        deep = [deep]
    one(
        with_step({"action": "return", "value": deep}),
        "tools[0].steps[0].value: the value nests deeper than 32 levels",
    )


# --- templates ----------------------------------------------------------------------------------


def test_template_names_must_be_arguments_or_earlier_extracts():
    doc = base()
    doc["tools"][0]["steps"][0]["value"] = "{{qury}}"
    msg = one(doc, "tools[0].steps[0].value: {{qury}} names neither an argument")
    assert "(did you mean `query`?)" in msg
    doc["tools"][0]["steps"] = [
        {"action": "click", "selector": "{{later}}"},
        {"action": "extract", "as": "later", "selector": "a"},
        {"action": "return", "value": {"x": ["{{later}}", "{{nope}} and {{query}}"]}},
    ]
    found = problems(doc)
    assert [m.split(": ", 1)[1].split(":")[0] for m in found] == [
        "tools[0].steps[0].selector", "tools[0].steps[2].value.x[1]"]  # fmt: skip
    assert "{{nope}}" in found[1]


def test_templates_in_every_templated_field():
    for step, at in [
        ({"action": "type", "selector": "a", "text": "{{x}}"}, "text"),
        ({"action": "press", "key": "{{x}}"}, "key"),
        ({"action": "select", "selector": "s", "values": ["a", "{{x}}"]}, "values[1]"),
        ({"action": "wait_for", "url": "*{{x}}*"}, "url"),
        ({"action": "navigate", "url": "/s?q={{x}}"}, "url"),
        ({"action": "extract", "as": "y", "list": "{{x}}", "fields": {"f": {}}}, "list"),
        (
            {"action": "extract", "as": "y", "list": "li", "fields": {"f-1": {"selector": "{{x}}"}}},
            'fields["f-1"].selector',
        ),
    ]:
        one(with_step(step), f"tools[0].steps[0].{at}: {{{{x}}}} names neither")


def test_malformed_templates_and_shadowing():
    one(with_step({"action": "navigate", "url": "/{{ query }}"}), "{{ query }} is not a template")
    one(with_step({"action": "navigate", "url": "/{{a.b}}"}), "{{a.b}} is not a template")
    one(with_step({"action": "extract", "as": "query", "selector": "a"}),
        "tools[0].steps[0].as: `query` is already an argument")  # fmt: skip


# --- inputSchema ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "string"}, "inputSchema must describe an object"),
        ({"type": "object", "properties": []}, "`properties` must be an object"),
        (
            {"type": "object", "properties": {"a": {"type": "strin"}}},
            "inputSchema is not a valid JSON Schema: properties/a/type",
        ),
        ({"type": "object", "properties": {"a": {"$ref": "https://evil.example/s.json"}}}, "outside itself"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "pattern": "(a)\\1"}}},
            "cannot be checked safely",
        ),
        (
            {"type": "object", "properties": {f"p{i}": {"description": "x" * 100} for i in range(700)}},
            "is larger than 65536 bytes",
        ),
    ],
)
def test_input_schema_checks(schema, says):
    doc = with_step({"action": "click", "selector": "a"})
    doc["tools"][0]["inputSchema"] = schema
    one(doc, "tools[0].inputSchema: ")
    one(doc, says)


def test_a_deep_input_schema_is_capped():
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(16):  # 33 levels: over the schema cap, under the file's nesting limit
        deep = {"type": "object", "properties": {"a": deep}}
    doc = with_step({"action": "click", "selector": "a"})
    doc["tools"][0]["inputSchema"] = deep
    one(doc, "inputSchema nests deeper than 32 levels")
