"""A skill file's text to a `Skill`, or to messages that say where each problem is:
`shop.skill.json:14:9: tools[0].steps[2].selector: Field required`.

Size and nesting are checked before anything is parsed: a file is at most 256 KiB, and deeper
than `MAX_DEPTH` levels it is refused with its position (never a RecursionError from `json`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from webmcp_sidecar.skills import jsonpos
from webmcp_sidecar.skills.model import MAX_FILE_BYTES, RULE_ERROR, Skill

# A skill's own levels (document, tools, a tool, steps, a step, a value) and an inputSchema's
# or a return value's 32 (wire.constants.MAX_SCHEMA_DEPTH), with room to spare.
MAX_DEPTH = 48
MAX_MESSAGES = 50
ACTIONS = "fill, type, click, press, select, check, scroll, wait_for, navigate, extract, return"


class TextProblems(ValueError):
    """A skill text that is not a valid skill; `messages` says each problem and where."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("\n".join(messages))
        self.messages = messages


def parse(text: str, source: str = "<text>") -> Skill:
    """The skill in `text`, or TextProblems."""
    data, positions = load(text, source)
    try:
        return Skill.model_validate(data)
    except ValidationError as e:
        raise TextProblems(validation_messages(e, data, positions, source)) from None


def check(text: str, source: str = "<text>") -> list[str]:
    """The problems of a skill text; empty when it is a valid skill."""
    try:
        parse(text, source)
    except TextProblems as e:
        return e.messages
    return []


def load(text: str, source: str) -> tuple[Any, jsonpos.Positions]:
    """The JSON data of `text` and where its values are, or TextProblems."""
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise TextProblems([f"{source}: too large: a skill file is at most {MAX_FILE_BYTES // 1024} KiB"])
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    positions = jsonpos.scan(text, MAX_DEPTH)
    if positions.too_deep is not None:
        raise TextProblems(
            [_at(source, positions, positions.too_deep, f"nested deeper than {MAX_DEPTH} levels")]
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise TextProblems([f"{source}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}"]) from None
    except RecursionError:  # the scan bounds nesting first; this is a backstop
        raise TextProblems([f"{source}: nested too deeply"]) from None
    found = [(at, f"{_dotted(path)}: NaN and Infinity are not JSON") for path, at in positions.not_json]
    found += [
        (at, f"{_dotted(path)}: this key appears twice in its object (JSON keeps only the last one)")
        for path, at in positions.duplicates
    ]
    if found:
        raise TextProblems([_at(source, positions, at, msg) for at, msg in sorted(found)])
    return data, positions


def validation_messages(
    e: ValidationError, data: Any, positions: jsonpos.Positions, source: str
) -> list[str]:
    """Each error of `e` (from validating `data`) at its place in the text, in text order."""
    found: list[tuple[int, str]] = []
    for err in e.errors():
        loc, msg = _path_in(data, err["loc"]), err["msg"].removeprefix("Value error, ")
        ctx = err.get("ctx") or {}
        if err["type"] == RULE_ERROR and isinstance(ctx.get("problems"), list):
            for sub, text in ctx["problems"]:
                found.append(_placed(positions, [*loc, *sub], text))
            continue
        if err["type"] == "union_tag_invalid":
            loc, msg = (
                [*loc, "action"],
                f"{json.dumps(ctx.get('tag'))} is not an action; the actions are {ACTIONS}",
            )
        elif err["type"] == "union_tag_not_found":
            msg = f"a step needs an `action`: one of {ACTIONS}"
        elif err["type"] == "extra_forbidden":
            msg = "not a field here (misspelt?)"
        found.append(_placed(positions, loc, msg))
    found.sort(key=lambda x: x[0])
    out = [_at(source, positions, at, msg) for at, msg in found[:MAX_MESSAGES]]
    if len(found) > MAX_MESSAGES:
        out.append(f"{source}: (and {len(found) - MAX_MESSAGES} more problems)")
    return out


def _placed(positions: jsonpos.Positions, path: Sequence[str | int], msg: str) -> tuple[int, str]:
    where = _dotted(path)
    return positions.offset(path), f"{where}: {msg}" if where else msg


def _path_in(data: Any, loc: Sequence[str | int]) -> list[str | int]:
    """A pydantic location as a path in the document: without a tagged union's tag (`click` in
    `tools.0.steps.1.click.selector`) or a dict key's `[key]` marker."""
    out: list[str | int] = []
    cur: Any = data
    for part in loc:
        if isinstance(cur, dict) and cur.get("action") == part:
            continue  # the discriminated union's tag: the step itself is `cur`
        if part == "[key]":
            continue
        out.append(part)
        if isinstance(cur, dict) and isinstance(part, str) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
            cur = cur[part]
        else:
            cur = None
    return out


def _dotted(path: Sequence[str | int]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier() or part == "$schema":
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _at(source: str, positions: jsonpos.Positions, offset: int, msg: str) -> str:
    line, col = positions.line_col(offset)
    return f"{source}:{line}:{col}: {msg}"
