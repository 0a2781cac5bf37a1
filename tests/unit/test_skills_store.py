"""The installed skills (skills/store.py): files, on/off state, what the extension receives,
and files on disk that went bad."""

from __future__ import annotations

import json
import os
import stat

import pytest

from webmcp_sidecar.skills.model import MAX_FILE_BYTES
from webmcp_sidecar.skills.store import SkillError, SkillStore
from webmcp_sidecar.textfiles import STATE_FILE

from .test_skills_model import EXAMPLES, base


def text_of(**changes) -> str:
    return json.dumps(base() | changes, indent=2)


@pytest.fixture
def store(tmp_path) -> SkillStore:
    return SkillStore(tmp_path / "skills")


def two_tools() -> str:
    doc = base()
    doc["tools"].append(dict(doc["tools"][0], name="other"))
    return json.dumps(doc)


def test_default_root_is_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WEBMCP_SIDECAR_DATA_DIR", str(tmp_path / "data"))
    assert SkillStore().root == tmp_path / "data" / "skills"
    assert SkillStore().list() == [] and SkillStore().effective() == []  # no dir yet: nothing


def test_add_text_round_trip_keeps_the_text(store):
    text = text_of() + "\n"
    skill = store.add_text(text)
    assert skill.name == "shop"
    assert store.text("shop") == text
    assert store.get("shop") == skill
    path = store.root / "shop.skill.json"
    assert path.read_text() == text
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    [info] = store.list()
    assert info.model_dump() == {
        "name": "shop", "version": "1.0.0", "description": "A shop",
        "match": ["https://shop.example.com/*"], "enabled": True, "disabled_tools": [],
        "tools": ["search"], "path": str(path), "error": None,
    }  # fmt: skip
    assert [p.name for p in store.root.iterdir()] == ["shop.skill.json"]  # no temp file left


def test_replace_or_refuse(store):
    store.add_text(text_of())
    store.add_text(text_of(version="2.0.0"))
    assert store.get("shop").version == "2.0.0"
    with pytest.raises(SkillError, match="A skill named 'shop' is already installed"):
        store.add_text(text_of(version="3.0.0"), replace=False)
    assert store.get("shop").version == "2.0.0"


def test_an_invalid_text_is_refused_with_its_positions(store):
    with pytest.raises(SkillError) as e:
        store.add_text(text_of(version=1), source="mine.json")
    assert str(e.value) == "mine.json:3:3: version: Input should be a valid string"
    assert store.list() == []
    assert store.validate_text(text_of(version=1), "x") == ["x:3:3: version: Input should be a valid string"]
    assert store.validate_text(text_of(), "x") == []


def test_add_file_and_dir(store, tmp_path):
    added = store.add_file(EXAMPLES)
    assert sorted(s.name for s in added) == ["demo-search", "demo-shop"]
    assert [i.name for i in store.list()] == ["demo-search", "demo-shop"]
    assert store.text("demo-shop") == (EXAMPLES / "demo-shop.skill.json").read_text()
    one = tmp_path / "one.json"
    one.write_text(text_of())
    assert [s.name for s in store.add_file(one)] == ["shop"]
    with pytest.raises(SkillError, match="is not a file or folder"):
        store.add_file(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SkillError, match=r"has no \*.skill.json files"):
        store.add_file(tmp_path / "empty")


def test_add_dir_is_all_or_nothing(store, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.skill.json").write_text(text_of(name="a"))
    (d / "b.skill.json").write_text(text_of(name="b", version=""))
    (d / "c.skill.json").write_text(text_of(name="a"))
    with pytest.raises(SkillError) as e:
        store.add_file(d)
    assert f"{d / 'b.skill.json'}:3:3: version: String should have at least 1 character" in str(e.value)
    assert "Two files declare the skill 'a'." in str(e.value)
    assert store.list() == []


def test_a_huge_or_binary_file_is_refused_before_parsing(store, tmp_path):
    big = tmp_path / "big.skill.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(SkillError, match="too large: a skill file is at most 256 KiB"):
        store.add_file(big)
    binary = tmp_path / "bin.skill.json"
    binary.write_bytes(b"\xff\xfe{}")
    with pytest.raises(SkillError, match="not UTF-8 text"):
        store.add_file(binary)


def test_unknown_and_bad_names(store):
    for call in (store.get, store.text, store.remove, lambda n: store.set_enabled(n, False)):
        with pytest.raises(SkillError, match="No skill named 'nope' is installed"):
            call("nope")
    with pytest.raises(SkillError, match=r"'\.\./etc' is not a skill name"):
        store.get("../etc")


def test_remove_forgets_its_state(store):
    store.add_text(two_tools())
    store.set_enabled("shop", False)
    store.set_enabled("shop", False, tool="other")
    store.remove("shop")
    assert store.list() == []
    assert json.loads((store.root / STATE_FILE).read_text()) == {"disabled": [], "disabled_tools": {}}


def test_effective_honours_disabled_skills_and_tools(store):
    store.add_text(two_tools())
    store.add_text(text_of(name="solo"))
    names = lambda: [(s["name"], [t["name"] for t in s["tools"]]) for s in store.effective()]  # noqa: E731
    assert names() == [("shop", ["search", "other"]), ("solo", ["search"])]
    store.set_enabled("shop", False, tool="other")
    assert names() == [("shop", ["search"]), ("solo", ["search"])]
    store.set_enabled("solo", False)
    assert names() == [("shop", ["search"])]
    store.set_enabled("shop", False, tool="search")
    assert names() == []  # no tool left: the skill is dropped
    info = {i.name: i for i in store.list()}
    assert info["shop"].enabled and info["shop"].disabled_tools == ["other", "search"]
    assert not info["solo"].enabled
    assert json.loads((store.root / STATE_FILE).read_text()) == {
        "disabled": ["solo"], "disabled_tools": {"shop": ["other", "search"]}}  # fmt: skip
    store.set_enabled("shop", True, tool="other")
    store.set_enabled("solo", True)
    assert names() == [("shop", ["other"]), ("solo", ["search"])]
    with pytest.raises(SkillError, match=r"The skill 'shop' has no tool 'x'; its tools: search, other\."):
        store.set_enabled("shop", False, tool="x")


def test_effective_is_json_data_as_the_extension_gets_it(store):
    store.add_text(json.dumps(base() | {"$schema": "x.json"}))
    [s] = store.effective()
    assert json.loads(json.dumps(s)) == s
    assert "$schema" not in s and "health" not in s  # unset optional fields are left out
    step = {"action": "fill", "timeout_ms": 5000, "optional": False, "selector": "#q", "value": "{{query}}"}
    assert s["tools"][0]["steps"][0] == step
    doc = base()
    doc["tools"][0]["steps"].append({"action": "extract", "as": "found", "selector": ".hit"})
    store.add_text(json.dumps(doc | {"name": "other"}))
    other = next(s for s in store.effective() if s["name"] == "other")
    assert other["tools"][0]["steps"][2]["as"] == "found"  # by alias


def test_a_corrupted_file_is_listed_with_its_error_and_left_out(store):
    store.add_text(text_of(name="good"))
    store.add_text(text_of(name="bad"))
    (store.root / "bad.skill.json").write_text('{"name": "bad",')
    (store.root / "renamed.skill.json").write_text(text_of(name="other"))
    info = {i.name: i for i in store.list()}
    assert info["good"].error is None
    assert info["bad"].error is not None and "bad.skill.json:1:16: not valid JSON" in info["bad"].error
    assert info["bad"].tools == [] and info["bad"].version == ""
    assert "the file is named 'renamed' but its skill is 'other'" in (info["renamed"].error or "")
    assert [s["name"] for s in store.effective()] == ["good"]
    with pytest.raises(SkillError, match="not valid JSON"):
        store.get("bad")
    assert store.text("bad") == '{"name": "bad",'  # still exportable, to fix it
    store.remove("bad")
    assert "bad" not in {i.name for i in store.list()}


def test_a_corrupted_state_file_turns_everything_on(store):
    store.add_text(text_of())
    (store.root / STATE_FILE).write_text("{not json")
    assert store.list()[0].enabled
    assert len(store.effective()) == 1
    store.set_enabled("shop", False)
    assert json.loads((store.root / STATE_FILE).read_text())["disabled"] == ["shop"]


def test_an_unsafe_root_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(PermissionError, match="symbolic link"):
        SkillStore(tmp_path / "link").add_text(text_of())
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    SkillStore(loose).add_text(text_of())
    assert stat.S_IMODE(os.stat(loose).st_mode) == 0o700  # ours: tightened


def test_files_that_are_not_skills_are_ignored(store):
    store.add_text(text_of())
    (store.root / "notes.txt").write_text("hi")
    (store.root / ".shop.skill.json.123.tmp").write_text("half")
    assert [i.name for i in store.list()] == ["shop"]
