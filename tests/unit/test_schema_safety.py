"""A page's inputSchema cannot make argument checking fetch URLs, hang, or block the event loop."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from tests.support.schema_attacks import (
    HOSTILE_INPUT,
    CountingServer,
    backtracking_pattern,
    exploding,
    with_ref,
)
from webmcp_sidecar.tools import validation
from webmcp_sidecar.tools.schema_refs import Findings
from webmcp_sidecar.tools.validation import (
    TOO_SLOW,
    check_arguments,
    check_arguments_async,
    schema_key,
)


def check(schema, args):
    return check_arguments(schema_key(schema), args)


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_a_ref_outside_the_schema_is_refused_and_never_fetched(scheme):
    with CountingServer() as srv:
        ref = srv.url if scheme == "http" else "file:///etc/passwd"
        msg = check(with_ref(ref), {"q": "x"})
        assert msg is not None and ref in msg and "outside itself" in msg
        assert "not sent" in msg
        assert srv.hits == []


def test_the_registry_refuses_what_the_up_front_walk_might_miss(monkeypatch):
    """Even a `$ref` the walk did not flag reaches no network: the registry refuses it."""
    monkeypatch.setattr(validation, "inspect", lambda schema: Findings())
    with CountingServer() as srv:
        msg = check(with_ref(srv.url + "?missed"), {"q": "x"})
        assert msg is not None and "not sent" in msg
        assert srv.hits == []


def test_local_refs_work_and_ref_loops_are_refused():
    tree = {"type": "object", "$ref": "#/$defs/node", "$defs": {"node": {
        "type": "object",
        "properties": {"n": {"type": "integer"},
                       "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    }}}
    assert check(tree, {"n": 1, "kids": [{"n": 2, "kids": []}]}) is None
    msg = check(tree, {"kids": [{"kids": [{"n": "x"}]}]})
    assert msg == "Invalid arguments:\n- kids/0/kids/0/n: 'x' is not of type 'integer'"
    assert check({"type": "object", "definitions": {"s": {"type": "string"}},
                  "properties": {"a": {"$ref": "#/definitions/s"}}}, {"a": 1}) is not None
    for loop in ({"$ref": "#"},
                 {"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"anyOf": [{"$ref": "#"}]}}}):
        msg = check(loop, {"a": 1})
        assert msg is not None and "loop" in msg
    msg = check(with_ref("#/$defs/missing"), {"q": 1})
    assert msg is not None and "#/$defs/missing" in msg and "not in it" in msg


def test_backtracking_patterns_answer_at_once():
    """`pattern`, `patternProperties` (with `additionalProperties`/`unevaluatedProperties`) and a
    big `uniqueItems` on hostile input: each takes minutes or more with Python's `re` and
    jsonschema's pairwise uniqueItems. A child process, so the old code fails by timeout."""
    code = textwrap.dedent(f"""
        import json
        from webmcp_sidecar.tools.validation import check_arguments, schema_key
        from tests.support.schema_attacks import backtracking_pattern
        bad = {HOSTILE_INPUT!r}
        props = {{"patternProperties": {{"^(a+)+$": {{"type": "string"}}}}}}
        cases = [
            (backtracking_pattern(), {{"s": bad}}),
            (backtracking_pattern(), {{"s": "a" * 40}}),
            ({{"type": "object", **props, "additionalProperties": False}}, {{bad: "x"}}),
            ({{"type": "object", **props, "unevaluatedProperties": False}}, {{bad: "x", "aa": 1}}),
            ({{"type": "array", "uniqueItems": True}}, [{{"i": i}} for i in range(20000)]),
        ]
        print(json.dumps([check_arguments(schema_key(s), a) for s, a in cases]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    pattern_bad, pattern_ok, additional, unevaluated, unique = json.loads(out.stdout)
    assert "does not match '^(a+)+$'" in pattern_bad and pattern_ok is None
    assert "does not match any of the regexes" in additional
    assert "aa: 1 is not of type 'string'" in unevaluated
    assert unique is None
    assert "non-unique" in check({"type": "array", "uniqueItems": True}, [{"a": [1]}, {"a": [1.0]}])
    assert check({"type": "array", "uniqueItems": True}, [1, True]) is None


def test_patterns_follow_javascript_not_python():
    """Schema patterns are ECMA-262: `$` is the very end, `\\uXXXX` escapes are characters."""
    assert check({"type": "string", "pattern": "^abc$"}, "abc\n") is not None  # Python re matches
    han = {"type": "string", "pattern": "^[\\u4e00-\\u9fa5]+$"}
    assert check(han, "中文") is None and check(han, "abc") is not None
    # What RE2 cannot run (lookaround) is left to the page rather than refusing the tool.
    assert check({"type": "string", "pattern": "^(?=.*\\d).+$"}, "abc") is None


@pytest.mark.anyio
async def test_a_slow_check_stops_at_its_deadline_and_the_loop_keeps_serving():
    key = schema_key(exploding())
    done = False
    ticks_while_checking = 0

    async def ticker():
        nonlocal ticks_while_checking
        while not done:
            ticks_while_checking += 1
            await anyio.sleep(0.01)

    async def checker():
        nonlocal done
        try:
            assert await check_arguments_async(key, {"x": 5}) == TOO_SLOW
        finally:
            done = True

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(checker)
            tg.start_soon(ticker)
    assert ticks_while_checking > 1


@pytest.mark.anyio
async def test_a_cached_small_schema_is_checked_without_a_thread(monkeypatch):
    key = schema_key({"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]})
    assert await check_arguments_async(key, {"a": 1}) is None  # first sight: built in a worker
    hops = 0
    real = anyio.to_thread.run_sync

    async def counting(*a, **kw):
        nonlocal hops
        hops += 1
        return await real(*a, **kw)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    assert await check_arguments_async(key, {"a": 2}) is None
    assert "'a' is a required property" in await check_arguments_async(key, {})
    assert hops == 0


def test_messages_stay_short_whatever_the_arguments():
    msg = check(backtracking_pattern(), {"s": "b" * 100_000})
    assert msg is not None and len(msg) < 1000


@pytest.mark.anyio
async def test_a_long_text_is_matched_in_a_worker_not_on_the_event_loop(monkeypatch):
    key = schema_key(backtracking_pattern())
    assert await check_arguments_async(key, {"s": "a"}) is None  # built and cached
    hops = 0
    real = anyio.to_thread.run_sync

    async def counting(*a, **kw):
        nonlocal hops
        hops += 1
        return await real(*a, **kw)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    assert await check_arguments_async(key, {"s": "a" * 10}) is None
    assert hops == 0
    msg = await check_arguments_async(key, {"s": "a" * 1_000_000 + "!"})
    assert msg is not None and "does not match" in msg
    assert hops == 1
