"""The installed skills: `<data dir>/skills/<name>.skill.json`, and which are switched off.

Files are kept as the user wrote them (export gives back their text, comments aside: JSON has
none). What is enabled lives in `state.json` beside them, `{"disabled": [names],
"disabled_tools": {name: [tools]}}`: everything is on unless switched off, so a skill an
editor saves into the dir is live at once. A file that no longer validates is listed with its
problem and left out of `effective()`; it never breaks the others.
"""

from __future__ import annotations

import builtins
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from webmcp_sidecar import paths
from webmcp_sidecar.skills.model import FILE_SUFFIX, MAX_FILE_BYTES, NAME_PATTERN, Skill
from webmcp_sidecar.skills.problems import TextProblems, parse
from webmcp_sidecar.textfiles import atomic_write, check_named, listed, read_capped, read_state, save_state

_NAME = re.compile(NAME_PATTERN)


class SkillError(Exception):
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


class _State(BaseModel):
    disabled: list[str] = Field(default_factory=list)
    disabled_tools: dict[str, list[str]] = Field(default_factory=dict)


class SkillStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else paths.data_dir() / "skills"

    # --- reading ------------------------------------------------------------------------------

    def list(self) -> list[SkillInfo]:
        state = self._state()
        out = []
        for path in self._files():
            name = path.name.removesuffix(FILE_SUFFIX)
            info = SkillInfo(
                name=name,
                path=str(path),
                enabled=name not in state.disabled,
                disabled_tools=state.disabled_tools.get(name, []),
            )
            try:
                skill = self._load(path)
            except SkillError as e:
                info.error = str(e)
            else:
                info.version, info.description = skill.version, skill.description
                info.match, info.tools = list(skill.match), [t.name for t in skill.tools]
            out.append(info)
        return out

    def get(self, name: str) -> Skill:
        return self._load(self._path(name, must_exist=True))

    def text(self, name: str) -> str:
        return read_skill_file(self._path(name, must_exist=True))

    def effective(self) -> builtins.list[dict[str, Any]]:
        """The enabled, valid skills as the extension receives them: switched-off tools removed,
        a skill with no tool left dropped."""
        state = self._state()
        out = []
        for path in self._files():
            name = path.name.removesuffix(FILE_SUFFIX)
            if name in state.disabled:
                continue
            try:
                skill = self._load(path)
            except SkillError:
                continue  # listed with its error by list(); not offered
            off = set(state.disabled_tools.get(name, []))
            data = skill.dump()
            data["tools"] = [t for t in data["tools"] if t["name"] not in off]
            if data["tools"]:
                out.append(data)
        return out

    def validate_text(self, text: str, source: str = "<text>") -> builtins.list[str]:
        """The problems of a skill text, each with its line, column and field; empty = valid."""
        try:
            parse(text, source)
        except TextProblems as e:
            return e.messages
        return []

    # --- changing -----------------------------------------------------------------------------

    def add_text(self, text: str, *, replace: bool = True, source: str = "<text>") -> Skill:
        skill = self._parse(text, source)
        target = self._path(skill.name)
        if not replace and target.exists():
            raise SkillError(
                f"A skill named {skill.name!r} is already installed; remove it first or replace it."
            )
        self._write(target, text)
        return skill

    def add_file(self, path: str | Path, *, replace: bool = True) -> builtins.list[Skill]:
        """Install a skill file, or every `*.skill.json` in a folder. All or nothing: when any
        file has a problem, none is installed and the error lists every problem."""
        p = Path(path).expanduser()
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.name.endswith(FILE_SUFFIX) and f.is_file())
            if not files:
                raise SkillError(f"{p} has no *{FILE_SUFFIX} files.")
        elif p.is_file():
            files = [p]
        else:
            raise SkillError(f"{p} is not a file or folder.")
        loaded: builtins.list[tuple[Skill, str]] = []
        problems: builtins.list[str] = []
        for f in files:
            try:
                text = read_skill_file(f)
                loaded.append((self._parse(text, str(f)), text))
            except SkillError as e:
                problems.append(str(e))
        names = [s.name for s, _ in loaded]
        problems += [
            f"Two files declare the skill {n!r}." for n in sorted({n for n in names if names.count(n) > 1})
        ]
        if not replace:
            problems += [
                f"A skill named {s.name!r} is already installed."
                for s, _ in loaded
                if self._path(s.name).exists()
            ]
        if problems:
            raise SkillError("\n".join(problems))
        for skill, text in loaded:
            self._write(self._path(skill.name), text)
        return [s for s, _ in loaded]

    def remove(self, name: str) -> None:
        path = self._path(name, must_exist=True)
        path.unlink()
        state = self._state()
        if name in state.disabled or name in state.disabled_tools:
            state.disabled = [n for n in state.disabled if n != name]
            state.disabled_tools.pop(name, None)
            self._save_state(state)

    def set_enabled(self, name: str, enabled: bool, tool: str | None = None) -> None:
        """Switch a skill, or one of its tools, on or off."""
        self._path(name, must_exist=True)
        state = self._state()
        if tool is None:
            state.disabled = sorted(set(state.disabled) - {name} | (set() if enabled else {name}))
        else:
            tools = [t.name for t in self.get(name).tools]
            if tool not in tools:
                raise SkillError(f"The skill {name!r} has no tool {tool!r}; its tools: {', '.join(tools)}.")
            off = set(state.disabled_tools.get(name, [])) - {tool} | (set() if enabled else {tool})
            if off:
                state.disabled_tools[name] = sorted(off)
            else:
                state.disabled_tools.pop(name, None)
        self._save_state(state)

    # --- files --------------------------------------------------------------------------------

    def _files(self) -> builtins.list[Path]:
        return listed(self.root, FILE_SUFFIX)

    def _path(self, name: str, must_exist: bool = False) -> Path:
        if not isinstance(name, str) or not _NAME.match(name):
            raise SkillError(
                f"{name!r} is not a skill name (lower-case letters, digits, `_` and `-`, "
                "starting with a letter or digit, at most 64)."
            )
        path = self.root / f"{name}{FILE_SUFFIX}"
        if must_exist and not path.is_file():
            raise SkillError(f"No skill named {name!r} is installed (see `webmcp-sidecar skills list`).")
        return path

    def _load(self, path: Path) -> Skill:
        skill = self._parse(read_skill_file(path), str(path))
        check_named(path, FILE_SUFFIX, skill.name, "skill", SkillError)
        return skill

    @staticmethod
    def _parse(text: str, source: str) -> Skill:
        try:
            return parse(text, source)
        except TextProblems as e:
            raise SkillError("\n".join(e.messages)) from None

    def _write(self, path: Path, text: str) -> None:
        paths.ensure_private_dir(self.root)
        atomic_write(path, text)

    def _state(self) -> _State:
        return read_state(self.root, _State)

    def _save_state(self, state: _State) -> None:
        save_state(self.root, state)


def read_skill_file(path: Path) -> str:
    """A skill file's text; SkillError when it is too large or not UTF-8 (checked before it is
    read whole, so a huge file costs nothing)."""
    return read_capped(path, MAX_FILE_BYTES, "a skill file", SkillError)
