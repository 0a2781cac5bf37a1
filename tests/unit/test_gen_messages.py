"""The worker's checkers of host messages are made from the models' JSON Schema (gen_schema.py,
gen_messages.py): run by node, they take and refuse what the models do, and a change to a model
changes them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import AnyUrl, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from webmcp_sidecar import gen_js
from webmcp_sidecar import gen_messages as gm
from webmcp_sidecar import gen_schema as gs
from webmcp_sidecar.wire import messages as m

REPO = Path(__file__).resolve().parents[2]


def run_checkers(module_text: str, name: str, inputs: list[Any], tmp_path: Path) -> list[dict[str, Any]]:
    """Each input through `name[input.type]` of the module, in node."""
    node = shutil.which("node")
    assert node, "node is needed (the extension's tests use it too)"
    path = tmp_path / "checkers.mjs"
    path.write_text(module_text, encoding="utf-8")
    script = (
        f"const {{ {name} }} = await import({json.dumps(path.as_uri())});\n"
        "const out = JSON.parse(process.argv[1]).map((x) => {\n"
        f"  const check = {name}[x.type];\n"
        "  return check ? check(x) : { ok: false, what: 'unknown type' };\n"
        "});\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps(inputs)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int = Field(gt=0, multiple_of=2)


class Toy(BaseModel):
    type: Literal["toy"] = "toy"
    name: str = Field(min_length=1, max_length=4, json_schema_extra={"x-lowercase": True})
    n: int = Field(5, ge=1, le=9)
    tags: list[Annotated[str, Field(pattern=r"^[a-z]+$")]] = Field(default_factory=list, max_length=2)
    wait: int = Field(100, json_schema_extra={"x-clamp": 1000})
    note: str | None = None
    label: str = Field("-", json_schema_extra={"x-fallback": True})
    inner: Inner | None = None
    counts: dict[str, int] = Field(default_factory=dict, max_length=2)


class StricterToy(Toy):
    """The same, but `n` may go no higher than 3."""

    type: Literal["toy"] = "toy"
    n: int = Field(5, ge=1, le=3)


TOY_INPUTS = [
    {"type": "toy", "name": "AbC"},
    {"type": "toy", "name": ""},
    {"type": "toy", "name": "abcde"},
    {"type": "toy", "name": "😀😀😀😀"},  # four code points, eight UTF-16 units: pydantic takes it
    {"type": "toy", "name": "a", "n": 7},
    {"type": "toy", "name": "a", "n": 10},
    {"type": "toy", "name": "a", "n": 2.5},
    {"type": "toy", "name": "a", "tags": ["x", "y"]},
    {"type": "toy", "name": "a", "tags": ["x", "Y"]},
    {"type": "toy", "name": "a", "tags": ["x", "y", "z"]},
    {"type": "toy", "name": "a", "wait": 5000.5},
    {"type": "toy", "name": "a", "wait": "soon"},
    {"type": "toy", "name": "a", "note": None, "extra": 1},
    {"type": "toy", "name": "a", "note": 3},
    {"type": "toy", "name": "a", "label": 5},
    {"type": "toy", "name": "a", "label": "x"},
    {"type": "toy", "name": "a", "inner": {"a": 4}},
    {"type": "toy", "name": "a", "inner": {"a": 3}},
    {"type": "toy", "name": "a", "inner": {"a": 0}},
    {"type": "toy", "name": "a", "inner": {"a": 2, "b": 1}},
    {"type": "toy", "name": "a", "inner": None},
    {"type": "toy", "name": "a", "counts": {"x": 1, "y": 2}},
    {"type": "toy", "name": "a", "counts": {"x": 1, "y": 2, "z": 3}},
    {"type": "toy", "name": "a", "counts": {"x": "1"}},
]


def toy_js(model: type[BaseModel]) -> str:
    return gs.checkers_js("TOYS", [model], "Toy checkers.", "./toy-types.js")


def test_toy_checker_follows_its_model(tmp_path):
    got = run_checkers(toy_js(Toy), "TOYS", TOY_INPUTS, tmp_path)
    assert got[0] == {
        "ok": True,
        "msg": {
            "type": "toy",
            "name": "abc",
            "n": 5,
            "tags": [],
            "wait": 100,
            "note": None,
            "label": "-",
            "inner": None,
            "counts": {},
        },
    }
    assert got[1] == {"ok": False, "what": "no name"}
    assert got[2] == {"ok": False, "what": "no name"}
    assert got[3]["ok"] is True
    assert got[4]["msg"]["n"] == 7
    assert got[5] == {"ok": False, "what": "n is not an integer"}
    assert got[6] == {"ok": False, "what": "n is not an integer"}
    assert got[7]["msg"]["tags"] == ["x", "y"]
    assert got[8] == {"ok": False, "what": "tags is not a list"}
    assert got[9] == {"ok": False, "what": "tags is not a list"}
    assert got[10]["msg"]["wait"] == 1000  # x-clamp: floored, capped
    assert got[11]["msg"]["wait"] == 100  # x-clamp: a bad value takes the default
    assert got[12]["msg"] == {
        "type": "toy",
        "name": "a",
        "n": 5,
        "tags": [],
        "wait": 100,
        "note": None,
        "label": "-",
        "inner": None,
        "counts": {},
    }
    assert got[13] == {"ok": False, "what": "note is not valid"}
    assert got[14]["msg"]["label"] == "-"  # x-fallback: a bad value takes the default
    assert got[15]["msg"]["label"] == "x"
    assert [r["ok"] for r in got[16:24]] == [True, False, False, False, True, True, False, False]
    # Where no x- key says otherwise, the checker takes exactly what the model takes (strictly:
    # no "1" for 1, as the worker always checked).
    for given, answer in zip(TOY_INPUTS, got, strict=True):
        if {"wait", "note", "label"} & set(given):
            continue
        try:
            Toy.model_validate_json(json.dumps(given), strict=True)
            valid = True
        except ValidationError:
            valid = False
        assert answer["ok"] is valid, given


def test_a_model_change_changes_the_checker(tmp_path):
    before = toy_js(Toy)
    after = toy_js(StricterToy)
    assert before != after
    inputs = [{"type": "toy", "name": "a", "n": 3}, {"type": "toy", "name": "a", "n": 7}]
    assert [r["ok"] for r in run_checkers(before, "TOYS", inputs, tmp_path)] == [True, True]
    assert [r["ok"] for r in run_checkers(after, "TOYS", inputs, tmp_path)] == [True, False]


def test_a_schema_the_generator_does_not_know_fails_generation():
    class Odd(BaseModel):
        type: Literal["odd"] = "odd"
        url: AnyUrl

    with pytest.raises(ValueError, match="format uri"):
        gs.checkers_js("X", [Odd], "", "./x.js")


TOKEN = "E" * 40 + "_-y"
HOST_INPUTS = [
    {"type": "call", "id": "c1.1", "site": "a.com", "tool": "t", "args": {"q": [1]}},
    {"type": "call", "id": "", "site": "a.com", "tool": "t"},
    {"type": "call", "id": "c1.1", "site": "a.com"},
    {"type": "call", "id": "c1.1", "site": "a.com", "tool": "t", "args": [1]},
    {"type": "cancel", "id": "c1.1"},
    {"type": "cancel", "id": 4},
    {"type": "open_url", "id": "o", "url": ""},
    {"type": "open_url", "id": "o"},
    {"type": "entry_link", "conn": "c3", "port": 40200, "token": TOKEN},
    {"type": "entry_link", "conn": "c3", "port": 0, "token": TOKEN},
    {"type": "entry_link", "conn": "h3", "port": 40200, "token": TOKEN},
    {"type": "entry_link", "conn": "c3", "port": 40200, "token": TOKEN + "/"},
    {"type": "host_hello", "protocol": 1},
    {"type": "host_hello", "protocol": "1"},
    {"type": "session", "session": "c1", "client": "Claude"},
    {"type": "session", "session": "c1"},
    {"type": "session_end", "session": "c1"},
    {"type": "browser_call", "id": "c1.2", "session": "c1", "tool": "click", "tab_id": None},
    {"type": "browser_call", "id": "c1.2", "session": "c1", "tool": "click", "tab_id": "x"},
    {"type": "docs", "kind": "skills", "docs": [{"name": "x"}]},
    {"type": "docs", "kind": "skills", "docs": ["x"]},
    {"type": "docs", "kind": "chat_sites", "docs": []},
    {"type": "chat_server_result", "id": "c.1", "ok": False, "error": {"code": "timeout", "message": "late"}},
    {"type": "chat_server_result", "id": "c.1", "ok": False, "error": {"code": "nope", "message": "late"}},
    {"type": "chat_server_result", "id": "c.1", "ok": True, "tools": {"fs": [{"name": "read"}]}},
    {"type": "chat_server_result", "id": "c.1", "ok": True, "tools": {"fs": "read"}},
    {"type": "chunk", "cid": "x", "seq": 0, "last": True, "data": "{}"},
    {"type": "chunk", "cid": "x", "seq": "0", "last": True, "data": "{}"},
    {"type": "ping"},
    {"type": "pong", "id": "p"},
]


def test_the_worker_checker_takes_what_the_host_models_take(tmp_path):
    """The generated HOST_TO_EXTENSION against pydantic (strict: no "1" for 1), message by message."""
    types = tmp_path / "message-types.js"
    types.write_text(gm.message_types_js(gen_js.COMMAND), encoding="utf-8")
    got = run_checkers(gm.host_messages_js(gen_js.COMMAND), "HOST_TO_EXTENSION", HOST_INPUTS, tmp_path)
    adapter = TypeAdapter(m.HostToExtension)
    verdicts = []
    for given, answer in zip(HOST_INPUTS, got, strict=True):
        try:
            adapter.validate_json(json.dumps(given), strict=True)
            valid = True
        except ValidationError:
            valid = False
        assert answer["ok"] is valid, (given, answer)
        verdicts.append(valid)
    assert True in verdicts and False in verdicts
    assert got[0]["msg"] == {
        "type": "call", "id": "c1.1", "site": "a.com", "tool": "t", "args": {"q": [1]},
        "timeout_ms": 60_000, "max_bytes": 16 * 1024 * 1024,
    }  # fmt: skip
    assert got[3] == {"ok": False, "what": "args is not an object"}
    assert got[9] == {"ok": False, "what": "no port"}
