"""The installed skills: `<data dir>/skills/<name>.skill.json` (documents/store.py keeps them),
and what is a skill's own: its tools, each of which may be switched off on its own. The state
beside the files: `{"disabled": [names], "disabled_tools": {name: [tools]}}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from webmcp_sidecar.documents.kinds import SKILLS
from webmcp_sidecar.documents.store import DocError, DocState, DocStore
from webmcp_sidecar.skills.model import Skill


class SkillError(DocError):
    """What went wrong with a skill operation, in plain words (str() is for the user)."""


class SkillInfo(BaseModel):
    """One installed skill as `list()` reports it; `error` set when its file does not validate."""

    name: str
    version: str = ""
    description: str = ""
    match: list[str] = Field(default_factory=list)
    enabled: bool = True
    disabled_tools: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    path: str
    error: str | None = None


class _State(DocState):
    disabled_tools: dict[str, list[str]] = Field(default_factory=dict)


class SkillStore(DocStore[Skill]):
    KIND = SKILLS
    Error: ClassVar[type[DocError]] = SkillError
    State: ClassVar[type[DocState]] = _State

    def info(self, name: str, path: Path, origin: str, state: Any, doc: Skill | None, text: str) -> SkillInfo:
        info = SkillInfo(
            name=name, path=str(path), enabled=name not in state.disabled,
            disabled_tools=state.disabled_tools.get(name, []),
        )  # fmt: skip
        if doc is not None:
            info.version, info.description = doc.version, doc.description
            info.match, info.tools = list(doc.match), [t.name for t in doc.tools]
        return info

    def fed(self, name: str, doc: Skill, text: str, state: Any) -> dict[str, Any] | None:
        """Switched-off tools removed; a skill with no tool left is not sent."""
        off = set(state.disabled_tools.get(name, []))
        data = doc.dump()
        data["tools"] = [t for t in data["tools"] if t["name"] not in off]
        return data if data["tools"] else None

    def forget(self, state: Any, name: str) -> bool:
        if name not in state.disabled and name not in state.disabled_tools:
            return False
        state.disabled = [n for n in state.disabled if n != name]
        state.disabled_tools.pop(name, None)
        return True

    def set_enabled(self, name: str, enabled: bool, tool: str | None = None) -> None:
        """Switch a skill, or one of its tools, on or off."""
        if tool is None:
            return super().set_enabled(name, enabled)
        tools = [t.name for t in self.get(name).tools]
        if tool not in tools:
            raise SkillError(f"The skill {name!r} has no tool {tool!r}; its tools: {', '.join(tools)}.")
        state = self._state()
        off = set(state.disabled_tools.get(name, [])) - {tool} | (set() if enabled else {tool})
        if off:
            state.disabled_tools[name] = sorted(off)
        else:
            state.disabled_tools.pop(name, None)
        self._save_state(state)


def read_skill_file(path: Path) -> str:
    """A skill file's text; SkillError when it is too large or not UTF-8."""
    return SkillStore(path.parent).read(path)
