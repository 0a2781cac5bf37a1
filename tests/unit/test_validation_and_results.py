import json

from webmcp_sidecar.mcp_server.results import NO_RESULT, to_call_result
from webmcp_sidecar.tools.validation import check_arguments, schema_key
from webmcp_sidecar.wire.messages import CallError, Result

SCHEMA = schema_key(
    {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["q"],
        "additionalProperties": False,
    }
)


def test_valid_arguments_pass():
    assert check_arguments(SCHEMA, {"q": "x", "n": 2}) is None
    assert check_arguments(None, {"anything": 1}) is None


def test_invalid_arguments_list_every_problem_in_plain_words():
    msg = check_arguments(SCHEMA, {"n": 0, "extra": True})
    assert msg is not None and msg.startswith("Invalid arguments:")
    assert "'q' is a required property" in msg
    assert "n: 0 is less than the minimum of 1" in msg
    assert "'extra' was unexpected" in msg


def test_a_broken_page_schema_is_not_enforced():
    assert check_arguments(schema_key({"type": "no-such-type"}), {"a": 1}) is None


def ok(value):
    return to_call_result(Result(id="1", ok=True, value=value), 1000)


def test_object_becomes_structured_content_with_the_pages_own_text():
    text = '{"a": 1,  "b": [true]}'
    r = ok(text)
    assert r.structured_content == {"a": 1, "b": [True]}
    assert r.content[0].text == text and not r.is_error


def test_string_and_other_values_become_text():
    assert ok(json.dumps("héllo")).content[0].text == "héllo"
    assert ok("[1, 2]").content[0].text == "[1, 2]"
    assert ok("42").content[0].text == "42"
    assert ok("undefined").content[0].text == NO_RESULT
    assert ok(None).content[0].text == NO_RESULT


def test_mcp_content_passes_through_including_is_error():
    page = {"content": [{"type": "text", "text": "Error: boom"}], "isError": True}
    r = ok(json.dumps(page))
    assert r.is_error and r.content[0].text == "Error: boom"
    img = {"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}]}
    r = ok(json.dumps(img))
    assert r.content[0].type == "image" and r.content[0].mime_type == "image/png"


def test_object_with_unrelated_content_key_is_just_an_object():
    r = ok(json.dumps({"content": "a string", "other": 1}))
    assert r.structured_content == {"content": "a string", "other": 1}


def test_errors_and_oversize():
    r = to_call_result(
        Result(id="1", ok=False, error=CallError(code="page_error", message="bad")), 10
    )
    assert r.is_error and r.content[0].text == "bad"
    r = to_call_result(Result(id="1", ok=True, value='"' + "x" * 2000 + '"'), 1000)
    assert r.is_error and "over the" in r.content[0].text
