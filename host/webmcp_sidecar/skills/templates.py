"""`{{name}}` templates in a tool's steps: which strings hold them, and the check that every
name is an argument or an earlier `extract`'s `as` (docs/SKILLS.md, "Templates").

There is no expression language: `{{` ... `}}` around anything but a plain name is refused, so
`{{user.name}}` or `{{ query }}` fail at validation instead of reaching a page as literal text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from webmcp_sidecar.skills.steps import Extract, Return, Select, Step

# What the extension substitutes (the same rule, without anchors, as steps.VAR_PATTERN).
TEMPLATE_RE = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}\}")
_ANY_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
# A step's fields whose strings are templates (the doc's `value`, `text`, `url`, `key` and
# selectors; `extract`'s `list` and its fields' selectors are selectors too).
_TEMPLATED = ("selector", "value", "values", "text", "url", "key", "list")

Where = tuple[str | int, ...]
Problem = tuple[Where, str]


def strings(step: Any) -> Iterator[tuple[Where, str]]:
    """Every templated string of a step, with its path inside the step (as the file spells it)."""
    if isinstance(step, Return):
        yield from _json_strings(step.value, ("value",))
        return
    for name in _TEMPLATED:
        value = getattr(step, name, None)
        if isinstance(value, str):
            yield (name,), value
        elif isinstance(value, list) and isinstance(step, Select):
            for i, item in enumerate(value):
                yield (name, i), item
    if isinstance(step, Extract) and step.fields:
        for key, field in step.fields.items():
            if field.selector is not None:
                yield ("fields", key, "selector"), field.selector


def _json_strings(value: Any, where: Where) -> Iterator[tuple[Where, str]]:
    stack: list[tuple[Any, Where]] = [(value, where)]  # no recursion: the value may be deep
    while stack:
        v, at = stack.pop()
        if isinstance(v, str):
            yield at, v
        elif isinstance(v, dict):
            stack.extend((x, (*at, k)) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((x, (*at, i)) for i, x in reversed(list(enumerate(v))))


def check(steps: Sequence[Step], arguments: set[str]) -> list[Problem]:
    """What is wrong with the steps' templates and `extract` names, each with its path from the
    tool (`("steps", 2, "value")`); empty when all is well."""
    known = set(arguments)
    problems: list[Problem] = []
    for i, step in enumerate(steps):
        for where, text in strings(step):
            for m in _ANY_TEMPLATE.finditer(text):
                name = m.group(1)
                if TEMPLATE_RE.fullmatch(m.group(0)) is None:
                    problems.append((("steps", i, *where), _malformed(m.group(0))))
                elif name not in known:
                    problems.append((("steps", i, *where), _unknown(name, known, arguments)))
        if isinstance(step, Extract):
            if step.as_ in arguments:
                problems.append(
                    (
                        ("steps", i, "as"),
                        f"`{step.as_}` is already an argument (a property of inputSchema): pick another name",
                    )
                )
            known.add(step.as_)
    return problems


def _malformed(text: str) -> str:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"{shown} is not a template: write {{{{name}}}} with a name of letters, digits, "
        "`_` and `-` (no spaces, no expressions)"
    )


def _unknown(name: str, known: set[str], arguments: set[str]) -> str:
    hint = difflib.get_close_matches(name, sorted(known), n=1)
    also = f" (did you mean `{hint[0]}`?)" if hint else ""
    return (
        f"{{{{{name}}}}} names neither an argument (a property of inputSchema) nor a value an "
        f"earlier `extract` stored{also}"
    )
