"""A new kind of user document costs a model and a kind declaration (docs/DOCUMENTS.md, the
prompts example, done here as written there): the documents' store, CLI and host plugins serve
it with nothing else of its own."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from webmcp_sidecar.documents.cli import DocCommands, DocTexts, doc_group
from webmcp_sidecar.documents.kind import DocKind, Words
from webmcp_sidecar.native_host.doc_link import Documents, link_class


class Prompt(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    title: str
    text: str = Field(max_length=8000)


PROMPTS = DocKind(
    name="prompts",
    folder="prompts",
    suffix=".prompt.json",
    max_bytes=16 * 1024,
    name_pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$",
    model=f"{__name__}:Prompt",
    store="webmcp_sidecar.documents.store:DocStore",
    words=Words(
        noun="prompt",
        a_file="a prompt file",
        bad_name="{name!r} is not a prompt name.",
        missing="No prompt named {name!r}.",
        exists="A prompt named {name!r} is already added.",
    ),
    feeds_worker=True,
    source="prompt.json",
)


def text_of(**doc: Any) -> str:
    return json.dumps({"name": "greet", "title": "Greet", "text": "Say hello.", **doc}, indent=2) + "\n"


def test_the_store_keeps_a_new_kind(tmp_path: Path):
    store = PROMPTS.open(tmp_path / "prompts")
    store.add_text(text_of())
    assert [(i.name, i.enabled, i.error) for i in store.list()] == [("greet", True, None)]
    assert store.effective() == [{"name": "greet", "title": "Greet", "text": "Say hello."}]
    store.set_enabled("greet", False)
    assert store.effective() == []
    problems = store.validate_text('{"name": "greet", "title": 5, "txt": ""}', "p.json")
    assert any("title" in p for p in problems) and any("txt" in p for p in problems)
    assert all(p.startswith("p.json:1:") for p in problems)  # with line and column
    with pytest.raises(store.Error, match="No prompt named 'nope'"):
        store.remove("nope")
    assert store.remove("greet") == "removed" and store.list() == []
    assert json.loads(store.schema_text())["properties"]["text"]["maxLength"] == 8000


def test_the_cli_factory_makes_its_commands(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("WEBMCP_SIDECAR_DATA_DIR", str(tmp_path))
    group = doc_group(PROMPTS, "prompts", "saved prompts")
    docs = DocCommands(
        group,
        DocTexts(
            valid="a valid prompt", added=lambda p: print(f"Added {p.name}."), row=lambda i: print(i.name)
        ),
    )
    docs.add(
        "add a prompt file",
        lambda p: (p.add_argument("file"), p.add_argument("--no-replace", action="store_true")),
    )
    docs.list("the prompts")
    docs.remove("remove a prompt")
    parser = argparse.ArgumentParser()
    group.add_parser(parser.add_subparsers(dest="cmd"))
    f = tmp_path / "greet.prompt.json"
    f.write_text(text_of())
    assert group.run(parser.parse_args(["prompts", "add", str(f)])) == 0
    assert group.run(parser.parse_args(["prompts", "list", "--json"])) == 0
    assert group.run(parser.parse_args(["prompts", "remove", "nope"])) == 2
    out, err = capsys.readouterr()
    assert out.startswith("Added greet.\n") and json.loads(out.split("\n", 1)[1])[0]["name"] == "greet"
    assert err == "webmcp-sidecar prompts remove: No prompt named 'nope'.\n"


class FakeHost:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def test_the_host_plugins_feed_and_answer_it(tmp_path: Path):
    host = FakeHost()
    cls = link_class(PROMPTS)
    assert cls.HANDLES == {}  # its messages are every kind's: `doc_get`, `panel_doc` (Documents)
    link = cls(host, tmp_path / "prompts")  # type: ignore[arg-type]
    panel = Documents(host, [link])  # type: ignore[arg-type]
    panel.on_get({"type": "doc_get", "kind": "prompts"}, b"")
    assert host.sent == [{"type": "docs", "kind": "prompts", "docs": []}]
    panel.on_panel({"type": "panel_doc", "kind": "prompts", "id": "1", "op": "save", "text": text_of()}, b"")
    fed, answer = host.sent[1:]
    doc = {"name": "greet", "title": "Greet", "text": "Say hello."}
    assert fed == {"type": "docs", "kind": "prompts", "docs": [doc]}
    assert (answer["type"], answer["kind"], answer["ok"], answer["docs"][0]["name"]) == (
        "doc_answer",
        "prompts",
        True,
        "greet",
    )
