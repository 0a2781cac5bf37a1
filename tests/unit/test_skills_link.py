"""The host's skills plugin: `doc_get` of skills answered with the enabled skills, a change in the
skills dir pushed without being asked, and the side panel's `panel_doc` requests answered
(one `doc_answer` each, errors in plain words, never a crash)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from webmcp_sidecar.native_host.skills_link import SkillsLink

EXAMPLES = Path(__file__).parents[2] / "host" / "webmcp_sidecar" / "skills" / "examples"


class FakeHost:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.handlers: dict[str, Any] = {}

    def send_to_browser(self, payload: bytes) -> None:
        self.sent.append(json.loads(payload))

    def take(self) -> list[dict[str, Any]]:
        out, self.sent = self.sent, []
        return out


@pytest.fixture
def link(tmp_path: Path) -> tuple[SkillsLink, FakeHost]:
    host = FakeHost()
    return SkillsLink(host, root=tmp_path / "skills", poll_s=0.05), host  # type: ignore[arg-type]


def shop_text() -> str:
    return (EXAMPLES / "demo-shop.skill.json").read_text()


def test_doc_get_sends_the_enabled_skills_and_again_after_a_reconnect(link):
    sl, host = link
    sl.on_get({"type": "doc_get", "kind": "skills"}, b"")
    assert host.take() == [{"type": "docs", "kind": "skills", "docs": []}]
    sl.store().add_text(shop_text())
    sl.push()
    [msg] = host.take()
    assert [s["name"] for s in msg["docs"]] == ["demo-shop"]
    sl.push()
    assert host.take() == []  # unchanged: nothing sent
    sl.on_get({"type": "doc_get", "kind": "skills"}, b"")  # a new worker has nothing: it gets the list again
    assert [m["type"] for m in host.take()] == ["docs"]


@pytest.mark.anyio
async def test_a_change_in_the_dir_is_pushed_unasked(link):
    sl, host = link
    sl.on_get({"type": "doc_get", "kind": "skills"}, b"")
    host.take()
    sl.store().add_text(shop_text())  # as the CLI or an editor would, behind the link's back
    for _ in range(100):
        await asyncio.sleep(0.05)
        if host.sent:
            break
    [msg] = host.take()
    assert [s["name"] for s in msg["docs"]] == ["demo-shop"]
    assert sl.watch.task is not None
    sl.watch.task.cancel()


def test_panel_requests_list_save_disable_and_errors(link):
    sl, host = link
    sl.on_panel({"type": "panel_doc", "kind": "skills", "id": "1", "op": "save", "text": shop_text()}, b"")
    sent = host.take()
    # The worker hears of the new skill at once, and the panel gets the list.
    assert [m["type"] for m in sent] == ["docs", "doc_answer"]
    answer = sent[1]
    assert answer["id"] == "1" and answer["ok"] is True
    assert [s["name"] for s in answer["docs"]] == ["demo-shop"]

    req = {
        "type": "panel_doc",
        "kind": "skills",
        "id": "2",
        "op": "disable",
        "name": "demo-shop",
        "tool": "checkout",
    }
    sl.on_panel(req, b"")
    sent = host.take()
    pushed = sent[0]["docs"][0]
    assert "checkout" not in [t["name"] for t in pushed["tools"]]

    sl.on_panel(
        {"type": "panel_doc", "kind": "skills", "id": "3", "op": "validate", "text": '{"name": "x"'}, b""
    )
    [answer] = host.take()
    assert answer["ok"] is False and answer["problems"] and "1:" in answer["problems"][0]

    sl.on_panel({"type": "panel_doc", "kind": "skills", "id": "4", "op": "remove", "name": "no-such"}, b"")
    [answer] = host.take()
    assert answer == {
        "type": "doc_answer",
        "kind": "skills",
        "id": "4",
        "ok": False,
        "error": answer["error"],
    }
    assert "no-such" in answer["error"]

    sl.on_panel({"type": "panel_doc", "kind": "skills", "id": "5", "op": "explode"}, b"")
    [answer] = host.take()
    assert answer["ok"] is False and answer["error"].startswith("bad request")

    sl.on_panel({"type": "panel_doc", "kind": "skills", "id": "6", "op": "schema"}, b"")
    [answer] = host.take()
    assert {"name", "match", "tools"} <= set(json.loads(answer["text"])["properties"])
