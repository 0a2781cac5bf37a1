"""Where each value of a JSON text starts, by path, so a problem can be shown at its line and column.

A small scanner written here rather than a library: the one on PyPI that does this
(json-source-map) recurses per nesting level, builds JSON Pointers from the raw key text
(escaped keys come out wrong) and has not changed since 2022. This one is iterative, decodes
keys as `json` does, and also finds what `json.loads` lets through silently: repeated keys (the
last one wins, so a misspelt copy would hide) and NaN/Infinity, which are not JSON. It stops at
the first thing that is not JSON: `json.loads` says what that is.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

Path = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"')
_PRIMITIVE = re.compile(
    r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|-?Infinity"
)
_NOT_JSON = ("NaN", "Infinity", "-Infinity")


@dataclass
class Positions:
    text: str
    values: dict[Path, int] = field(default_factory=dict)  # path -> offset where its value starts
    keys: dict[Path, int] = field(default_factory=dict)  # object member path -> offset of its key
    duplicates: list[tuple[Path, int]] = field(default_factory=list)  # a key seen again, where
    not_json: list[tuple[Path, int]] = field(default_factory=list)  # NaN / Infinity, where
    too_deep: int | None = None  # offset of the first bracket past the depth limit
    _lines: list[int] = field(default_factory=list)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of an offset."""
        if not self._lines:
            self._lines = [0] + [m.end() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_right(self._lines, offset) - 1
        return line + 1, offset - self._lines[line] + 1

    def offset(self, path: Sequence[str | int]) -> int:
        """Where `path` is: its key if it is an object member, else its value; for a path that is
        not in the text (a missing field), where its deepest existing parent starts."""
        p = tuple(path)
        while p and p not in self.values:
            p = p[:-1]
        return self.keys.get(p, self.values.get(p, 0))


class _Frame:
    __slots__ = ("index", "is_object", "path", "seen")

    def __init__(self, path: Path, is_object: bool) -> None:
        self.path, self.is_object, self.index = path, is_object, 0
        self.seen: set[str] = set()


def scan(text: str, max_depth: int) -> Positions:
    """The positions of `text`'s values; stops quietly at anything that is not JSON, and at the
    first object or array nested deeper than `max_depth` (recorded in `too_deep`)."""
    out = Positions(text)
    stack: list[_Frame] = []
    path: Path = ()
    i, n = _skip(text, 0), len(text)
    want = "value"
    while i < n:
        c = text[i]
        if want == "value":
            out.values[path] = i
            if c in "{[":
                if len(stack) >= max_depth:
                    out.too_deep = i
                    return out
                stack.append(_Frame(path, c == "{"))
                i = _skip(text, i + 1)
                if i < n and text[i] == ("}" if c == "{" else "]"):
                    stack.pop()
                    i, want = _skip(text, i + 1), "after"
                elif c == "{":
                    want = "key"
                else:
                    path = (*path, 0)
                continue
            m = (_STRING if c == '"' else _PRIMITIVE).match(text, i)
            if m is None:
                return out
            if m.group() in _NOT_JSON:
                out.not_json.append((path, i))
            i, want = _skip(text, m.end()), "after"
        elif want == "after":
            if not stack:
                return out
            top = stack[-1]
            if c == ",":
                i = _skip(text, i + 1)
                if top.is_object:
                    want = "key"
                else:
                    top.index += 1
                    path, want = (*top.path, top.index), "value"
            elif c == ("}" if top.is_object else "]"):
                stack.pop()
                i = _skip(text, i + 1)
            else:
                return out
        else:  # a key, then its colon
            m = _STRING.match(text, i)
            if m is None:
                return out
            top = stack[-1]
            key = json.loads(m.group())
            path = (*top.path, key)
            if key in top.seen:
                out.duplicates.append((path, i))
            top.seen.add(key)
            out.keys[path] = i
            i = _skip(text, m.end())
            if i >= n or text[i] != ":":
                return out
            i, want = _skip(text, i + 1), "value"
    return out


def _skip(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i
