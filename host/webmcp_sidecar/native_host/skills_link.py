"""The host's side of skills: the worker asks for them (`skills_get`, after `host_hello`) and
gets the user's enabled skills (`skills`); whenever the skills dir changes — the CLI, the side
panel, or an editor saving a file there — the worker gets the new list. The side panel's Skills
view manages them with `panel_skills`, answered by `agent_skills`.

The store (and pydantic's skill models) load on the first `skills_get`, not at host start: the
host's cold start must not grow. Changes are found by a cheap poll of the dir's entries (name,
size, mtime), which sees every way a file can change, with no watcher thread.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from webmcp_sidecar.native_host.doc_feed import DocFeed
from webmcp_sidecar.native_host.panel_requests import answer_panel, need
from webmcp_sidecar.wire.codec import dumps
from webmcp_sidecar.wire.constants import SKILLS_PANEL_TYPES

if TYPE_CHECKING:
    from webmcp_sidecar.skills.store import SkillStore

log = logging.getLogger(__name__)

class SkillsLink(DocFeed["SkillStore"]):
    """Host plugin (native_host/plugins.py): answers `skills_get` and the Skills view."""

    what = "skills"
    HANDLES: ClassVar[dict[str, str]] = {
        "skills_get": "on_get",
        **dict.fromkeys(SKILLS_PANEL_TYPES, "on_panel"),
    }

    def open_store(self, root: Path | None) -> SkillStore:
        from webmcp_sidecar.skills.store import SkillStore

        return SkillStore(root)

    def payload(self, docs: list[dict[str, Any]]) -> bytes:
        from webmcp_sidecar.wire import messages as m

        return dumps(m.Skills(skills=docs).model_dump())

    def changed(self, docs: list[dict[str, Any]], first: bool) -> None:
        log.info("sending %d skill(s) to the extension", len(docs))

    def on_panel(self, raw: dict[str, Any], payload: bytes) -> None:
        """A `panel_skills` request: one `agent_skills` answers it, whatever happens."""
        from webmcp_sidecar.agent import panel_messages as pm

        answer_panel(raw, pm.PanelSkills, pm.AgentSkills, self._do, self._reply, "SkillError")

    def _do(self, req: Any) -> Any:
        from webmcp_sidecar.agent import panel_messages as pm

        store = self.store()
        if req.op == "list":
            return pm.AgentSkills(id=req.id, ok=True, skills=self._infos(store))
        if req.op == "get":
            return pm.AgentSkills(id=req.id, ok=True, text=store.text(need(req, "name")))
        if req.op == "schema":
            from webmcp_sidecar.skills.model import Skill

            schema = Skill.model_json_schema(by_alias=True)
            return pm.AgentSkills(id=req.id, ok=True, text=json.dumps(schema, indent=2))
        if req.op == "validate":
            problems = store.validate_text(need(req, "text"), "skill.json")
            return pm.AgentSkills(id=req.id, ok=not problems, problems=problems)
        if req.op == "save":
            problems = store.validate_text(need(req, "text"), "skill.json")
            if problems:
                return pm.AgentSkills(id=req.id, ok=False, problems=problems)
            store.add_text(need(req, "text"), replace=True, source="the side panel")
        elif req.op == "remove":
            store.remove(need(req, "name"))
        elif req.op in ("enable", "disable"):
            store.set_enabled(need(req, "name"), req.op == "enable", req.tool)
        self.push()  # the worker hears of the change now, not at the next poll
        return pm.AgentSkills(id=req.id, ok=True, skills=self._infos(store))

    @staticmethod
    def _infos(store: SkillStore) -> list[dict[str, Any]]:
        return [info.model_dump(mode="json") for info in store.list()]

    def _reply(self, msg: Any) -> None:
        self.host.send_to_browser(dumps(msg.model_dump(exclude_none=True)))

