"""The documents plugin (native_host/doc_link.py): one `panel_doc` type for every kind, each
request answered by its kind's link with one `doc_answer`; a kind the host has not, or a request
that names another kind than the link's, is refused in plain words; the composed host routes
`panel_doc` to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webmcp_sidecar.native_host.chat_link import ChatLink
from webmcp_sidecar.native_host.doc_link import Documents
from webmcp_sidecar.native_host.skills_link import SkillsLink

EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"


class FakeHost:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))


def panel(tmp_path: Path) -> tuple[Documents, FakeHost]:
    host = FakeHost()
    links = [SkillsLink(host, tmp_path / "skills"), ChatLink(host, tmp_path / "chat")]  # type: ignore[arg-type]
    return Documents(host, links), host  # type: ignore[arg-type]


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
    assert isinstance(route.__self__, Documents)  # type: ignore[attr-defined]
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


def test_the_worker_asks_by_kind_and_a_kind_it_cannot_have_is_logged_and_ignored(tmp_path: Path, caplog):
    docs, host = panel(tmp_path)
    docs.on_get({"type": "doc_get", "kind": "chat_sites"}, b"")
    docs.on_get({"type": "doc_get", "kind": "skills"}, b"")
    assert [(m["type"], m["kind"]) for m in host.sent] == [("docs", "chat_sites"), ("docs", "skills")]
    assert "deepseek" in {s["name"] for s in host.sent[0]["docs"]} and host.sent[1]["docs"] == []
    for kind in ("prompts", ["skills"], None, "x" * 5000):
        docs.on_get({"type": "doc_get", "kind": kind}, b"")
    assert len(host.sent) == 2  # nothing sent, nothing raised
    ignored = [r.getMessage() for r in caplog.records if "doc_get ignored" in r.getMessage()]
    assert len(ignored) == 4 and "'prompts'" in ignored[0]
    assert all(len(line) < 200 for line in ignored)  # the worker's word is capped in the log


def test_a_kind_that_does_not_feed_the_worker_is_never_sent_to_it(tmp_path: Path):
    from dataclasses import replace

    from webmcp_sidecar.documents.kinds import SKILLS
    from webmcp_sidecar.native_host.doc_link import link_class

    host = FakeHost()
    link = link_class(replace(SKILLS, name="notes", feeds_worker=False))(host, tmp_path)  # type: ignore[arg-type]
    docs = Documents(host, [link])  # type: ignore[arg-type]
    docs.on_get({"type": "doc_get", "kind": "notes"}, b"")
    link.store().add_text((EXAMPLES / "demo-shop.skill.json").read_text())
    link.push()
    assert host.sent == []
    docs.on_panel({"type": "panel_doc", "kind": "notes", "id": "n", "op": "list"}, b"")
    assert [(m["type"], m["ok"]) for m in host.sent] == [("doc_answer", True)]  # the panel still has it


def test_a_new_kind_that_feeds_the_worker_needs_no_new_message_type(tmp_path: Path):
    """A kind declared as documents/kinds.py declares them, with `feeds_worker`: the composed
    host routes the same message types as with the shipped kinds, and the worker's `doc_get`
    of it is answered by a `docs` the existing host->worker union takes."""
    from dataclasses import replace

    from webmcp_sidecar import host_parts
    from webmcp_sidecar.documents.kinds import CHAT_SITES, SKILLS
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.native_host.doc_link import link_class
    from webmcp_sidecar.native_host.stdio import FrameWriter
    from webmcp_sidecar.wire import messages as m

    shipped = Host("chrome-extension://x/", FrameWriter(lambda frame: None))
    for plugin in host_parts.plugins(shipped):
        shipped.add(plugin)

    notes = replace(SKILLS, name="notes", folder="notes", feeds_worker=True)
    assert notes.feeds_worker and SKILLS.feeds_worker and CHAT_SITES.feeds_worker
    frames: list[bytes] = []
    host = Host("chrome-extension://x/", FrameWriter(frames.append))
    roots = {"skills": tmp_path / "skills", "chat_sites": tmp_path / "chat", "notes": tmp_path / "notes"}
    links = [link_class(kind)(host, roots[kind.name]) for kind in (SKILLS, CHAT_SITES, notes)]
    for link in links:
        host.add(link)
    host.add(Documents(host, links))
    assert set(host.routes) <= set(shipped.routes)  # no type of its own

    links[2].store().add_text((EXAMPLES / "demo-shop.skill.json").read_text())
    host.on_browser_frame(b'{"type":"doc_get","kind":"notes"}')
    [frame] = frames
    sent = m.host_to_extension.validate_json(frame[4:], strict=True)
    assert (sent.type, sent.kind, [d["name"] for d in sent.docs]) == ("docs", "notes", ["demo-shop"])
