"""The documents plugin (native_host/doc_link.py): one `panel_doc` type for every kind, each
request answered by its kind's link with one `doc_answer`; a kind the host has not, or a request
that names another kind than the link's, is refused in plain words; the composed host routes
`panel_doc` to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webmcp_sidecar.native_host.chat_link import ChatLink
from webmcp_sidecar.native_host.doc_link import DocsPanel
from webmcp_sidecar.native_host.skills_link import SkillsLink

EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"


class FakeHost:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def panel(tmp_path: Path) -> tuple[DocsPanel, FakeHost]:
    host = FakeHost()
    links = [SkillsLink(host, tmp_path / "skills"), ChatLink(host, tmp_path / "chat")]  # type: ignore[arg-type]
    return DocsPanel(host, links), host  # type: ignore[arg-type]


def test_each_kind_is_answered_by_its_own_store(tmp_path: Path):
    docs, host = panel(tmp_path)
    docs.on_panel({"type": "panel_doc", "kind": "skills", "id": "a", "op": "list"}, b"")
    docs.on_panel({"type": "panel_doc", "kind": "chat_sites", "id": "b", "op": "list"}, b"")
    skills, sites = host.sent
    assert (skills["type"], skills["kind"], skills["id"], skills["docs"]) == ("doc_answer", "skills", "a", [])
    assert (sites["type"], sites["kind"], sites["id"]) == ("doc_answer", "chat_sites", "b")
    assert "deepseek" in {s["name"] for s in sites["docs"]}  # the shipped adapters

    text = (EXAMPLES / "demo-shop.skill.json").read_text()
    docs.on_panel({"type": "panel_doc", "kind": "chat_sites", "id": "c", "op": "validate", "text": text}, b"")
    answer = host.sent[-1]
    assert answer["kind"] == "chat_sites" and answer["ok"] is False
    assert answer["problems"][0].startswith("chat.json:")  # checked as an adapter, not as a skill
    docs.on_panel({"type": "panel_doc", "kind": "skills", "id": "d", "op": "validate", "text": text}, b"")
    assert host.sent[-1] == {"type": "doc_answer", "kind": "skills", "id": "d", "ok": True, "problems": []}


def test_an_unknown_kind_or_a_part_an_adapter_has_not_is_refused(tmp_path: Path):
    docs, host = panel(tmp_path)
    docs.on_panel({"type": "panel_doc", "kind": "prompts", "id": "x", "op": "list"}, b"")
    assert host.sent[-1]["ok"] is False and "prompts" in host.sent[-1]["error"]
    docs.on_panel({"type": "panel_doc", "kind": "prompts", "op": "list"}, b"")  # no id: nothing to answer
    assert len(host.sent) == 1
    docs.on_panel({"type": "panel_doc", "kind": ["skills"], "id": "w", "op": "list"}, b"")  # not a name
    assert host.sent[-1]["id"] == "w" and host.sent[-1]["ok"] is False
    req = {
        "type": "panel_doc",
        "kind": "chat_sites",
        "id": "y",
        "op": "disable",
        "name": "deepseek",
        "tool": "t",
    }
    docs.on_panel(req, b"")
    assert host.sent[-1]["ok"] is False and "no parts" in host.sent[-1]["error"]


def test_a_skill_link_refuses_a_request_of_another_kind(tmp_path: Path):
    host = FakeHost()
    link = SkillsLink(host, tmp_path)  # type: ignore[arg-type]
    link.on_panel({"type": "panel_doc", "kind": "chat_sites", "id": "z", "op": "list"}, b"")
    assert host.sent == [
        {"type": "doc_answer", "kind": "skills", "id": "z", "ok": False, "error": host.sent[0]["error"]}
    ]
    assert "chat_sites" in host.sent[0]["error"]


def test_the_composed_host_routes_panel_doc_to_the_documents_plugin():
    from webmcp_sidecar import host_parts
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.native_host.stdio import FrameWriter

    host = Host("chrome-extension://x/", FrameWriter(lambda frame: None))
    for plugin in host_parts.plugins(host):
        host.add(plugin)
    route = host.routes["panel_doc"]
    assert isinstance(route.__self__, DocsPanel)  # type: ignore[attr-defined]
    assert set(route.__self__.links) == {"skills", "chat_sites"}  # type: ignore[attr-defined]


def test_a_store_that_cannot_open_is_answered_not_raised(tmp_path: Path):
    from dataclasses import replace

    from webmcp_sidecar.documents.kinds import SKILLS
    from webmcp_sidecar.native_host.doc_link import link_class

    broken = replace(SKILLS, store="webmcp_sidecar.documents.no_such_module:Store")
    host = FakeHost()
    link = link_class(broken)(host, tmp_path)  # type: ignore[arg-type]
    link.on_panel({"type": "panel_doc", "kind": "skills", "id": "q", "op": "list"}, b"")
    assert [(m["id"], m["ok"]) for m in host.sent] == [("q", False)]
    assert "no_such_module" in host.sent[0]["error"]
