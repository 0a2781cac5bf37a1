"""`webmcp-sidecar skills ...` (skills/cli.py): in-process through cli.main for most, and the
installed command in a subprocess for what a user runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from webmcp_sidecar.cli import main

from .test_skills_model import EXAMPLES, base

REPO = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "webmcp-sidecar"


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("WEBMCP_SIDECAR_DATA_DIR", str(d))
    return d


def two_skills(d: Path) -> Path:
    """A folder with the skills `books` (tool `find`) and `cart` (tools `add`, `view`)."""
    d.mkdir()
    (d / "books.skill.json").write_text(json.dumps(skill("books", ["find"]), indent=2))
    (d / "cart.skill.json").write_text(json.dumps(skill("cart", ["add", "view"]), indent=2))
    return d


def skill(name: str, tools: list[str]) -> dict:
    doc = base() | {"name": name, "match": [f"http://127.0.0.1:*/{name}/*"]}
    doc["tools"] = [dict(doc["tools"][0], name=t, description=f"The {t} tool\nmore") for t in tools]
    if name == "cart":
        doc["exclude"] = ["http://127.0.0.1:*/cart/admin*"]
    return doc


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["skills", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_list_show_export_remove(data, capsys, tmp_path):
    folder = two_skills(tmp_path / "mine")
    code, out, _ = run(capsys, "add", str(folder))
    assert code == 0 and out.splitlines() == [
        "Installed books 1.0.0 (find).",
        "  It acts on pages matching: http://127.0.0.1:*/books/*",
        "Installed cart 1.0.0 (add, view).",
        "  It acts on pages matching: http://127.0.0.1:*/cart/*",
        "  except: http://127.0.0.1:*/cart/admin*",
    ]
    assert (data / "skills" / "cart.skill.json").is_file()
    code, out, _ = run(capsys, "list")
    assert out.splitlines() == [
        "books  1.0.0  http://127.0.0.1:*/books/*  enabled",
        "cart  1.0.0  http://127.0.0.1:*/cart/*  enabled",
    ]
    code, out, _ = run(capsys, "list", "--json")
    listed = json.loads(out)
    assert [i["name"] for i in listed] == ["books", "cart"]
    assert listed[1]["tools"] == ["add", "view"] and listed[1]["error"] is None
    code, out, _ = run(capsys, "show", "cart")
    assert code == 0 and out.startswith(
        "cart 1.0.0: enabled\n  A shop\n  match:   http://127.0.0.1:*/cart/*\n"
    )
    assert "    view: The view tool (2 steps)\n" in out and "exclude: http://127.0.0.1:*/cart/admin*" in out
    code, out, _ = run(capsys, "export", "cart")
    assert out == (folder / "cart.skill.json").read_text() + "\n"  # a newline added on a terminal
    target = tmp_path / "out.skill.json"
    code, _, err = run(capsys, "export", "cart", "-o", str(target))
    assert code == 0 and target.read_text() == (folder / "cart.skill.json").read_text()
    assert f"Wrote {target}." in err
    code, out, _ = run(capsys, "remove", "cart")
    assert (code, out) == (0, "Removed cart.\n")
    code, out, _ = run(capsys, "list")
    assert "cart" not in out


def test_enable_disable(data, capsys, tmp_path):
    run(capsys, "add", str(two_skills(tmp_path / "mine") / "cart.skill.json"))
    assert run(capsys, "disable", "cart", "--tool", "view")[:2] == (0, "Disabled cart's tool view.\n")
    assert run(capsys, "list")[1].endswith("enabled (off: view)\n")
    assert "    view (disabled): The view tool" in run(capsys, "show", "cart")[1]
    assert run(capsys, "disable", "cart")[1] == "Disabled cart.\n"
    assert run(capsys, "list")[1].endswith("  disabled\n")
    assert run(capsys, "enable", "cart")[1] == "Enabled cart.\n"
    assert run(capsys, "enable", "cart", "--tool", "view")[0] == 0
    assert run(capsys, "list")[1].endswith("  enabled\n")
    code, _, err = run(capsys, "disable", "cart", "--tool", "nope")
    assert code == 2 and "has no tool 'nope'" in err


def test_bad_input_exits_2_with_a_plain_message(data, capsys, tmp_path):
    code, out, err = run(capsys, "show", "nope")
    assert (code, out) == (2, "")
    assert err == (
        "webmcp-sidecar skills show: No skill named 'nope' is installed (see `webmcp-sidecar skills list`).\n"
    )
    bad = tmp_path / "bad.skill.json"
    bad.write_text(json.dumps(base() | {"version": 1}, indent=2))
    code, _, err = run(capsys, "add", str(bad))
    assert code == 2 and f"{bad}:3:3: version: Input should be a valid string" in err
    assert run(capsys, "remove", "nope")[0] == 2
    assert run(capsys, "add", str(tmp_path / "missing"))[0] == 2


def test_add_no_replace(data, capsys, tmp_path):
    f = tmp_path / "s.skill.json"
    f.write_text(json.dumps(base()))
    assert run(capsys, "add", str(f))[0] == 0
    code, _, err = run(capsys, "add", "--no-replace", str(f))
    assert code == 2 and "A skill named 'shop' is already installed." in err


def test_validate(data, capsys, tmp_path):
    good = two_skills(tmp_path / "mine") / "books.skill.json"
    assert run(capsys, "validate", str(good)) == (0, f"{good}: a valid skill.\n", "")
    bad = tmp_path / "bad.skill.json"
    doc = base()
    doc["tools"][0]["steps"][1]["selektor"] = "b"
    doc["tools"][0]["steps"][0]["value"] = "{{nope}}"
    bad.write_text(json.dumps(doc, indent=2))
    code, out, err = run(capsys, "validate", str(bad))
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{bad}:")  # a tool's own errors come first
    assert "tools[0].steps[1].selektor: not a field here (misspelt?)" in lines[0]
    del doc["tools"][0]["steps"][1]["selektor"]
    bad.write_text(json.dumps(doc, indent=2))
    err = run(capsys, "validate", str(bad))[2]
    assert "tools[0].steps[0].value: {{nope}} names neither an argument" in err
    huge = tmp_path / "huge.skill.json"
    huge.write_bytes(b" " * 300_000)
    code, _, err = run(capsys, "validate", str(huge))
    assert code == 1 and "too large" in err
    assert run(capsys, "validate", str(tmp_path / "missing.json"))[0] == 2
    assert not (data / "skills").exists()  # validate installs nothing


def test_schema_is_the_editor_schema(capsys):
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert code == 0 and schema["title"] == "WebMCP Sidecar skill"


def test_the_installed_command(tmp_path):
    assert EXE.exists(), EXE
    env = {**os.environ, "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data")}

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(EXE), "skills", *argv], env=env, capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip

    added = cli("add", str(EXAMPLES))  # the shipped examples stay valid
    assert added.returncode == 0, added.stderr
    listed = cli("list", "--json")
    assert [i["name"] for i in json.loads(listed.stdout)] == ["demo-search", "demo-shop"]
    bad = tmp_path / "bad.skill.json"
    bad.write_text('{\n  "name": "x",\n  "version": "1",\n  "description": "d",\n  "match": ["*://*/*"],\n'
                   '  "tools": []\n}\n')  # fmt: skip
    checked = cli("validate", str(bad))
    assert checked.returncode == 1
    assert checked.stderr.splitlines() == [
        f"{bad}:5:13: match[0]: a bare `*` host is refused: a skill names its site (e.g. `*.example.com`)",
        f"{bad}:6:3: tools: List should have at least 1 item after validation, not 0",
    ]
    usage = cli("frobnicate")
    assert usage.returncode == 2 and "invalid choice" in usage.stderr
