"""Text-level editing of client configs: JSON/JSONC and Codex's TOML."""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmcp_sidecar.setup.textedit import jsonc, tomltext

ENTRY = {"command": "/opt/ws/webmcp-sidecar", "args": ["mcp"]}


def _round_trip(text: str, container: str = "mcpServers", expect: str | None = None) -> str:
    """Insert then remove our entry; returns the text after insertion."""
    new, created = jsonc.set_entry(text, container, "webmcp-sidecar", ENTRY)
    assert jsonc.loads(new)[container]["webmcp-sidecar"] == ENTRY
    assert jsonc.set_entry(new, container, "webmcp-sidecar", ENTRY) == (new, False)
    assert jsonc.remove_entry(new, container, "webmcp-sidecar", created) == (expect or text)
    return new


SHAPES = {
    "empty object": "{}\n",
    "empty with newline": "{\n}\n",
    "no container": '{\n  "theme": "dark"\n}\n',
    "empty container": '{\n  "mcpServers": {}\n}\n',
    "other server": '{\n  "mcpServers": {\n    "fs": {\n      "command": "npx"\n    }\n  }\n}\n',
    "four spaces": '{\n    "mcpServers": {\n        "fs": {"command": "npx"}\n    }\n}',
    "tabs": '{\n\t"servers": {\n\t\t"fs": {"command": "npx"}\n\t}\n}\n',
    "crlf": '{\r\n  "mcpServers": {\r\n    "fs": {"command": "x"}\r\n  }\r\n}\r\n',
    "one line": '{"mcpServers": {"fs": {"command": "npx"}}}',
    "compact container": '{"a": 1, "mcpServers": {}}',
    "trailing comma": '{\n  "mcpServers": {\n    "fs": {"command": "npx"},\n  },\n}\n',
    "line comment after last": '{\n  "mcpServers": {\n    "fs": {} // my fs\n  }\n}\n',
    "block comments": '/* top */\n{\n  // servers\n  "mcpServers": {\n    /* none */\n  }\n}\n',
    "bom": '\ufeff{\n  "x": 1\n}\n',
}


@pytest.mark.parametrize("name", SHAPES)
def test_insert_then_remove_is_exact(name: str) -> None:
    text = SHAPES[name]
    # An empty object written across lines comes back as `{}` (uninstall restores the exact
    # bytes from its backup anyway, unless the file was edited in between).
    new = _round_trip(text, expect="{}\n" if name == "empty with newline" else None)
    if "//" in text or "/*" in text:
        for comment in ("// my fs", "/* top */", "// servers", "/* none */"):
            assert (comment in text) == (comment in new)


def test_formatting_follows_the_file() -> None:
    new = _round_trip(SHAPES["tabs"], "servers")
    assert '\n\t\t"webmcp-sidecar": {\n\t\t\t"command"' in new
    new = _round_trip(SHAPES["crlf"])
    assert "\n" not in new.replace("\r\n", "")
    new = _round_trip(SHAPES["one line"])
    assert "\n" not in new
    new = _round_trip(SHAPES["trailing comma"])
    assert '"args": ["mcp"]\n    },\n  },' in new  # the file's trailing-comma style is kept


def test_replaces_an_outdated_entry_and_keeps_user_keys() -> None:
    text = ('{\n  "mcpServers": {\n    "webmcp-sidecar": {\n      "command": "/old/path",\n'
            '      "args": ["mcp"],\n      "env": {"X": "1"}\n    },\n    "b": {}\n  }\n}\n')
    new, created = jsonc.set_entry(text, "mcpServers", "webmcp-sidecar",
                                   {**ENTRY, "env": {}})
    assert not created
    got = json.loads(new)["mcpServers"]
    assert got["webmcp-sidecar"] == {**ENTRY, "env": {"X": "1"}}
    assert got["b"] == {}


@pytest.mark.parametrize(("text", "where"), [
    ('{\n  "a": 1,\n  "b": \n}', "unexpected '}' at line 4, column 1"),
    ('{"mcpServers": {"x": 1}', "line 1"),
    ("[1, 2]", "top level"),
    ('{"mcpServers": []}', '"mcpServers" is not an object'),
    ('{"a": "unterminated}', "unterminated string"),
    ("{} /* open", "unterminated comment"),
    ("{} {}", "after the end"),
])
def test_errors_say_where(text: str, where: str) -> None:
    with pytest.raises(jsonc.JsoncError, match=where):
        jsonc.set_entry(text, "mcpServers", "webmcp-sidecar", ENTRY)


def test_remove_keeps_what_the_user_added_since() -> None:
    text = _round_trip(SHAPES["other server"])
    edited = text.replace('"fs": {', '"fs": {\n      "args": ["-y"],', 1)
    out = jsonc.remove_entry(edited, "mcpServers", "webmcp-sidecar", False)
    assert json.loads(out) == {"mcpServers": {"fs": {"args": ["-y"], "command": "npx"}}}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(doc=st.dictionaries(st.text(max_size=8), json_values, max_size=4),
       servers=st.none() | st.dictionaries(st.text(max_size=8), json_values, max_size=3),
       indent=st.sampled_from([None, 2, 4, "\t"]))
def test_any_json_document_round_trips(doc: dict, servers: dict | None, indent) -> None:
    doc = {k: v for k, v in doc.items() if k != "mcpServers"}
    if servers is not None:
        doc["mcpServers"] = {k: v for k, v in servers.items() if k != "webmcp-sidecar"}
    text = json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
    new = _round_trip(text)
    parsed = json.loads(new)
    assert {k: v for k, v in parsed.items() if k != "mcpServers"} == {
        k: v for k, v in doc.items() if k != "mcpServers"}
    assert {k: v for k, v in parsed["mcpServers"].items() if k != "webmcp-sidecar"} == (
        doc.get("mcpServers") or {})


# --- TOML ---------------------------------------------------------------------------------

CODEX = """# my codex config
model = "o4-mini"  # fast

[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]

# profiles below
[profiles.work]
model = "o3"
"""


@pytest.mark.parametrize("text", [CODEX, "", "model = 'x'", "[mcp_servers]\n", CODEX + "\n\n"])
def test_toml_round_trip(text: str) -> None:
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    data = tomllib.loads(new)
    assert data["mcp_servers"]["webmcp-sidecar"] == ENTRY
    assert new.startswith(text.rstrip("\n"))  # appended; comments and order kept
    assert tomltext.set_entry(new, "mcp_servers", "webmcp-sidecar", ENTRY) == new
    back = tomltext.remove_entry(new, "mcp_servers", "webmcp-sidecar")
    assert tomllib.loads(back) == tomllib.loads(text)
    if text.endswith("\n") and not text.endswith("\n\n"):
        assert back == text


def test_toml_updates_in_place() -> None:
    text = CODEX.replace(
        "# profiles below",
        '[mcp_servers.webmcp-sidecar]\ncommand = "/old"  # ours\nargs = ["mcp"]\n'
        'startup_timeout_sec = 30\n\n# profiles below')
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    # Only the value changes: the user's comment on that line stays.
    assert new == text.replace('"/old"', f'"{ENTRY["command"]}"')
    assert tomllib.loads(new)["mcp_servers"]["webmcp-sidecar"]["startup_timeout_sec"] == 30


def test_toml_windows_paths_and_unicode() -> None:
    entry = {"command": "C:\\Users\\Zoë\\webmcp-sidecar.exe", "args": ["mcp"]}
    new = tomltext.set_entry("", "mcp_servers", "webmcp-sidecar", entry)
    assert tomllib.loads(new)["mcp_servers"]["webmcp-sidecar"] == entry


@pytest.mark.parametrize(("text", "match"), [
    ("model = ", "Invalid|Expected"),
    ('mcp_servers = { fs = { command = "npx" } }\n', "would not parse"),
    ('[mcp_servers]\nwebmcp-sidecar = { command = "x" }\n', "form we do not edit"),
])
def test_toml_refuses_what_it_cannot_edit_safely(text: str, match: str) -> None:
    with pytest.raises(tomltext.TomlError, match=match):
        tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)


ODD = """# header comment
title = 'odd'   # literal string, extra spaces

[ mcp_servers . "webmcp-sidecar" ]   # ours, written by hand
command="/old"
  # indented comment between keys
env = { A = "1" }

# introduces the profiles
[profiles.work]
model = '''o3'''
notes = \"\"\"
[not a table]
\"\"\"
"""


def test_toml_keeps_odd_formatting_and_comments_when_updating() -> None:
    text = ODD
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert tomllib.loads(new)["mcp_servers"]["webmcp-sidecar"] == {**ENTRY, "env": {"A": "1"}}
    # Everything but our command line is the user's text, in order; the missing `args` goes
    # after our last key, not below the comment that introduces the next table.
    assert new == text.replace(
        'command="/old"', f'command="{ENTRY["command"]}"').replace(
        'env = { A = "1" }\n', 'env = { A = "1" }\nargs = ["mcp"]\n')
    back = tomltext.remove_entry(new, "mcp_servers", "webmcp-sidecar")
    assert "# introduces the profiles\n[profiles.work]" in back
    assert "[ mcp_servers" not in back and "indented comment" not in back
    assert tomllib.loads(back) == {"title": "odd", "profiles": {"work": {
        "model": "o3", "notes": "[not a table]\n"}}}


def test_toml_adds_after_a_multiline_string_that_looks_like_a_header() -> None:
    text = ODD.split("[ mcp_servers")[0] + ODD.split("# introduces the profiles\n")[1]
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert new.startswith(text)
    assert tomllib.loads(new)["profiles"]["work"]["notes"] == "[not a table]\n"
    assert tomltext.remove_entry(new, "mcp_servers", "webmcp-sidecar") == text


def test_toml_crlf_file_stays_crlf() -> None:
    text = CODEX.replace("\n", "\r\n")
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert "\n" not in new.replace("\r\n", "")
    updated = tomltext.set_entry(new, "mcp_servers", "webmcp-sidecar", {**ENTRY, "cwd": "/w"})
    assert "\n" not in updated.replace("\r\n", "")
    assert tomllib.loads(updated)["mcp_servers"]["webmcp-sidecar"]["cwd"] == "/w"
    assert tomltext.remove_entry(updated, "mcp_servers", "webmcp-sidecar") == text


def test_toml_container_split_by_other_tables() -> None:
    text = '[mcp_servers.a]\ncommand = "a"\n\n[other]\nx = 1\n\n[mcp_servers.b]\ncommand = "b"\n'
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert new.startswith(text)
    assert set(tomllib.loads(new)["mcp_servers"]) == {"a", "b", "webmcp-sidecar"}
    moved = new.replace("[other]", "[mcp_servers.z]\n# about other\n[other]")
    updated = tomltext.set_entry(moved, "mcp_servers", "webmcp-sidecar", {**ENTRY, "args": []})
    assert tomllib.loads(updated)["mcp_servers"]["webmcp-sidecar"]["args"] == []
    assert tomltext.remove_entry(updated, "mcp_servers", "webmcp-sidecar") == moved.replace(
        new[len(text):], "")


def test_toml_remove_keeps_the_comment_that_introduces_the_next_table() -> None:
    text = ('[mcp_servers.webmcp-sidecar]\ncommand = "x"\n\n# the work profile\n'
            '[profiles.work]\nmodel = "o3"\n')
    assert tomltext.remove_entry(text, "mcp_servers", "webmcp-sidecar") == (
        '\n# the work profile\n[profiles.work]\nmodel = "o3"\n')


@pytest.mark.parametrize("text", [
    '[mcp_servers]\nwebmcp-sidecar.command = "x"\n',
    '[mcp_servers.webmcp-sidecar.env]\nA = "1"\n',
    'mcp_servers = 3\n',
    '[[mcp_servers]]\nx = 1\n',
])
def test_toml_refuses_other_forms_and_leaves_them_on_remove(text: str) -> None:
    with pytest.raises(tomltext.TomlError, match=r"form we do not edit|not a table"):
        tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert tomltext.remove_entry(text, "mcp_servers", "webmcp-sidecar") == text


def test_toml_value_snippets() -> None:
    assert tomltext._value("C:\\Zoë") == '"C:\\\\Zoë"'
    assert tomltext._value([True, 2, 1.5, {"k": "v"}]) == '[true, 2, 1.5, {k = "v"}]'
    assert tomllib.loads("x = " + tomltext._value({"a": ["b"]}))["x"] == {"a": ["b"]}


def test_toml_comment_after_our_sub_table_survives() -> None:
    text = ('[mcp_servers.webmcp-sidecar]\ncommand = "x"\n\n[mcp_servers.webmcp-sidecar.env]\n'
            'A = "1"\n\n# the work profile\n[profiles.work]\n')
    new = tomltext.set_entry(text, "mcp_servers", "webmcp-sidecar", ENTRY)
    assert new == text.replace('command = "x"\n', 'command = "x"\nargs = ["mcp"]\n').replace(
        '"x"', f'"{ENTRY["command"]}"')
    back = tomltext.remove_entry(new, "mcp_servers", "webmcp-sidecar")
    assert back == '\n# the work profile\n[profiles.work]\n'
