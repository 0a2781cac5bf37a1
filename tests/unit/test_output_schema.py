"""A page tool's outputSchema passed on to MCP clients, and results checked against it with the
safe validator (no fetching, RE2, a deadline); a result that does not fit is an isError result."""

import json

import anyio
import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.mcp_server import output_schema
from webmcp_sidecar.mcp_server.results import error_result, text_result, to_call_result
from webmcp_sidecar.tools.validation import schema_key
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION
from webmcp_sidecar.wire.messages import Result, Tool

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"},
                                           "code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
          "required": ["total"]}


def test_object_schemas_pass_and_a_missing_type_is_added():
    assert output_schema.publishable(SCHEMA) == SCHEMA
    assert output_schema.publishable({"properties": {}}) == {"type": "object", "properties": {}}
    assert output_schema.publishable(None) is None


@pytest.mark.parametrize(("schema", "why"), [
    ({"type": "array"}, "does not describe an object"),
    ({"type": "object", "properties": {"a": {"type": 7}}}, "not a valid JSON Schema"),
    ({"type": "object", "properties": {"a": {"$ref": "https://evil.test/s.json"}}}, "https://evil.test"),
    ({"type": "object", "$defs": {"x": {"$ref": "#/$defs/x"}}, "properties": {"a": {"$ref": "#/$defs/x"}}},
     "loop"),
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "(?=a)b"}}},
     "regular expression"),
])
def test_other_schemas_are_left_out_with_a_reason(schema, why):
    assert why in (output_schema.problem(schema) or "")
    assert output_schema.publishable(schema) is None


def test_the_model_caps_output_schema_like_input_schema():
    deep: dict = {"type": "object"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(ValueError, match="outputSchema nests deeper"):
        Tool.model_validate({"name": "t", "outputSchema": deep})
    assert Tool.model_validate({"name": "t", "outputSchema": SCHEMA}).outputSchema == SCHEMA


def ok(value):
    return to_call_result(Result(id="c1.1", ok=True, value=value), 1 << 20)


@pytest.mark.anyio
async def test_a_fitting_result_keeps_its_text_and_structured_content():
    r = await output_schema.checked(ok('{"total": 3, "code": "EUR"}'), schema_key(SCHEMA), "t")
    assert not r.is_error and r.structured_content == {"total": 3, "code": "EUR"}
    assert text(r) == '{"total": 3, "code": "EUR"}'


@pytest.mark.anyio
async def test_a_result_that_does_not_fit_is_an_error_in_plain_words():
    r = await output_schema.checked(ok('{"total": "three", "code": "euro"}'), schema_key(SCHEMA), "t")
    assert r.is_error
    assert text(r).startswith("The tool's result does not match its output schema:")
    assert "- total: 'three' is not of type 'number'" in text(r)
    assert "code" in text(r)


@pytest.mark.anyio
async def test_a_result_that_is_not_an_object_is_an_error_and_errors_pass_as_they_are():
    r = await output_schema.checked(text_result("just text"), schema_key(SCHEMA), "t")
    assert r.is_error and "declares an output schema, but its result is not a JSON object" in text(r)
    err = error_result("The page failed.")
    assert await output_schema.checked(err, schema_key(SCHEMA), "t") is err


@pytest.mark.anyio
async def test_a_slow_schema_stops_at_the_deadline(monkeypatch):
    from webmcp_sidecar.tools import validation
    monkeypatch.setattr(validation, "DEADLINE_S", 0.0)
    monkeypatch.setattr(validation, "INLINE_BUDGET_S", 0.0)
    schema = {"type": "object", "properties": {"n": {"type": "number", "minimum": 0}}}
    r = await output_schema.checked(ok('{"n": 1}'), schema_key(schema) + " ", "t")
    assert r.is_error and "output schema" in text(r) and "not passed on" in text(r)


TOOL = {"name": "order.total", "description": "The order's total", "outputSchema": SCHEMA}


@pytest.mark.anyio
async def test_through_the_sdk_client_structured_content_is_checked(sock_env):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Fake"})
    b.send({"type": "registry", "sites": {"a.test": [TOOL]}})
    async with McpSession(sock_env) as mcp:
        await mcp.wait_tools(lambda n: "a_test__order_total" in n)
        tool = next(t for t in await mcp.tools() if t.name == "a_test__order_total")
        assert tool.output_schema == SCHEMA

        async def answer(value):
            call = await b.expect("call")
            b.send({"type": "result", "id": call["id"], "ok": True, "value": value})

        for value, good in [(json.dumps({"total": 12.5}), True), (json.dumps({"total": "12"}), False),
                            ("twelve", False)]:
            async with anyio.create_task_group() as tg:
                tg.start_soon(answer, value)
                # The SDK client checks structuredContent itself and raises on a mismatch:
                # an isError result is what reaches the caller instead.
                r = await mcp.call("a_test__order_total", {})
            assert r.is_error is not good, text(r)
            if good:
                assert r.structured_content == {"total": 12.5}
    await b.close()
