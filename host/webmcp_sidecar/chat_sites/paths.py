"""The small path syntax adapters use to say where a value sits in a JSON document (the user's
message in a request body, the text in a streamed event). The extension reads the same syntax
(extension/lib/chat/json-path.js); docs/CHAT_SITES.md documents it.

A path is steps joined by `.`, each one of:
- `name`: an object's key (letters, digits, `_`, `$`, `-`), or `["any key"]` (a JSON string);
- `[N]`: an array's item; negative counts from the end (`[-1]` is the last);
- `@json`: the value is a string holding JSON: parse it and go on inside;
- for reading only: `[*]` (every item of a list) and `[?key=value]` (the items of a list whose
  `key` is `value`, compared as text): `response.fragments[?type=RESPONSE].content`.

`messages[-1].content`, `choices[0].delta.content`, `event_data.@json.message.content.@json.text`.
A bracket step may follow a key without a dot (`messages[-1]`).
"""

from __future__ import annotations

import json
import re

MAX_PATH = 256
MAX_STEPS = 16
_TOKEN = re.compile(
    r'\.?([A-Za-z0-9_$-]+|@json)|\[(-?\d{1,6})\]|\[("(?:[^"\\]|\\.)*")\]'
    r"|\[(\*)\]|\[\?([A-Za-z0-9_$-]+)=([A-Za-z0-9_.:$ -]{0,64})\]"
)


class Many:
    """A step that fans out over a list: `[*]` (key None) or `[?key=value]`."""

    __slots__ = ("key", "value")

    def __init__(self, key: str | None = None, value: str = "") -> None:
        self.key, self.value = key, value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Many) and (self.key, self.value) == (other.key, other.value)

    def __hash__(self) -> int:
        return hash((self.key, self.value))

    def __repr__(self) -> str:
        return "[*]" if self.key is None else f"[?{self.key}={self.value}]"


Step = str | int | Many


class PathError(ValueError):
    """A path that is not in the syntax (str() says where)."""


def parse(path: str) -> list[Step]:
    """The steps of `path`: str keys, int indexes, and "@json"; PathError when it is not one."""
    if not path or len(path) > MAX_PATH:
        raise PathError(f"a path is 1-{MAX_PATH} characters")
    steps: list[Step] = []
    at = 0
    while at < len(path):
        m = _TOKEN.match(path, at)
        if (
            m is None
            or (m.group(0).startswith(".") and at == 0)
            or (at > 0 and m.group(1) is not None and not m.group(0).startswith("."))
        ):
            raise PathError(f"not a path step at character {at + 1}: {path[at : at + 20]!r}")
        if m.group(1) is not None:
            steps.append(m.group(1))
        elif m.group(2) is not None:
            steps.append(int(m.group(2)))
        elif m.group(4) is not None:
            steps.append(Many())
        elif m.group(5) is not None:
            steps.append(Many(m.group(5), m.group(6)))
        else:
            key = json.loads(m.group(3))
            steps.append(key)
        at = m.end()
    if len(steps) > MAX_STEPS:
        raise PathError(f"at most {MAX_STEPS} steps")
    return steps


def single(steps: list[Step]) -> bool:
    """Whether a path names one place (no `[*]` / `[?k=v]`), so a value can be written there."""
    return not any(isinstance(s, Many) for s in steps)
