"""Edit JSON and JSONC documents as text, so comments and formatting survive an edit.

A document is never re-serialized: a small parser records where each member of each object
sits, and an edit inserts, replaces or removes only that member's text, in the indentation,
line endings and trailing-comma style the document already uses. Comments (`//`, `/* */`) and
trailing commas are accepted, since many hand-edited JSON files use them.

The entry functions address `root[container][name]`, an object member inside a top-level
object member; `parse` gives the positions for other edits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WS = " \t\r\n"


class JsoncError(ValueError):
    def __init__(self, message: str, text: str, pos: int) -> None:
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{message} at line {line}, column {col}")


@dataclass
class Member:
    key: str
    key_start: int
    value: Node
    comma_end: int | None = None  # just past the comma that follows the value, if any

    @property
    def end(self) -> int:
        return self.comma_end if self.comma_end is not None else self.value.end


@dataclass
class Node:
    start: int
    end: int
    value: Any = None
    members: list[Member] | None = None  # for objects, in text order
    is_object: bool = False

    def member(self, key: str) -> Member | None:
        found = None
        for m in self.members or []:
            if m.key == key:
                found = m  # the last duplicate wins, as in JSON.parse
        return found


@dataclass
class _Parser:
    text: str
    i: int = 0
    depth: int = field(default=0)

    def fail(self, message: str, pos: int | None = None) -> JsoncError:
        return JsoncError(message, self.text, self.i if pos is None else pos)

    def skip(self) -> None:
        t, n = self.text, len(self.text)
        while self.i < n:
            c = t[self.i]
            if c in _WS:
                self.i += 1
            elif t.startswith("//", self.i):
                j = t.find("\n", self.i)
                self.i = n if j < 0 else j
            elif t.startswith("/*", self.i):
                j = t.find("*/", self.i + 2)
                if j < 0:
                    raise self.fail("unterminated comment")
                self.i = j + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("unexpected end of file")
        c = self.text[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            start = self.i
            s = self.string()
            return Node(start, self.i, s)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return Node(self.i - len(word), self.i, val)
        m = _NUMBER.match(self.text, self.i)
        if m:
            self.i = m.end()
            return Node(m.start(), m.end(), json.loads(m.group()))
        raise self.fail(f"unexpected {c!r}")

    def string(self) -> str:
        start = self.i
        j = start + 1
        t = self.text
        while True:
            if j >= len(t) or t[j] == "\n":
                raise self.fail("unterminated string", start)
            if t[j] == "\\":
                j += 2
                continue
            if t[j] == '"':
                break
            j += 1
        self.i = j + 1
        try:
            return str(json.loads(t[start : j + 1]))
        except json.JSONDecodeError as e:
            raise self.fail(f"bad string ({e.msg})", start) from None

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > 200:
            raise self.fail("nesting too deep")

    def obj(self) -> Node:
        self._enter()
        node = Node(self.i, 0, {}, [], True)
        self.i += 1
        assert node.members is not None
        while True:
            self.skip()
            if self.text.startswith("}", self.i):
                break
            if not self.text.startswith('"', self.i):
                raise self.fail("expected a quoted key or '}'")
            key_start = self.i
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.i):
                raise self.fail("expected ':'")
            self.i += 1
            val = self.value()
            member = Member(key, key_start, val)
            node.members.append(member)
            node.value[key] = val.value
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
                member.comma_end = self.i
            elif not self.text.startswith("}", self.i):
                raise self.fail("expected ',' or '}'")
        self.i += 1
        node.end = self.i
        self.depth -= 1
        return node

    def arr(self) -> Node:
        self._enter()
        node = Node(self.i, 0, [])
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("]", self.i):
                break
            node.value.append(self.value().value)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise self.fail("expected ',' or ']'")
        self.i += 1
        node.end = self.i
        self.depth -= 1
        return node


def parse(text: str) -> Node:
    """Parse a whole JSONC document (a BOM is tolerated)."""
    p = _Parser(text, 1 if text.startswith("\ufeff") else 0)
    root = p.value()
    p.skip()
    if p.i != len(text):
        raise p.fail("unexpected text after the end of the document")
    return root


def loads(text: str) -> Any:
    return parse(text).value


# --- rendering --------------------------------------------------------------------------


def render(value: Any, indent: str, unit: str, nl: str) -> str:
    """JSON text for `value` whose first line is already at `indent`; short lists stay inline."""
    if isinstance(value, dict) and value:
        inner = indent + unit
        items = [f"{inner}{_str(k)}: {render(v, inner, unit, nl)}" for k, v in value.items()]
        return "{" + nl + ("," + nl).join(items) + nl + indent + "}"
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        return "[" + ", ".join(_str(v) for v in value) + "]"
    if isinstance(value, list):
        inner = indent + unit
        items = [inner + render(v, inner, unit, nl) for v in value]
        return "[" + nl + ("," + nl).join(items) + nl + indent + "]"
    return _str(value)


def _str(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --- editing ----------------------------------------------------------------------------


@dataclass
class _Style:
    unit: str
    nl: str


def _style(text: str, root: Node) -> _Style:
    nl = "\r\n" if "\r\n" in text else "\n"
    unit = "\t" if re.search(r"\n\t+\"", text) else "  "
    for m in root.members or []:
        ind = _line_indent(text, m.key_start)
        if ind is not None and ind:
            unit = ind
            break
    return _Style(unit, nl)


def _line_indent(text: str, pos: int) -> str | None:
    """Leading whitespace of pos's line, or None when something else precedes pos there."""
    line_start = text.rfind("\n", 0, pos) + 1
    lead = text[line_start:pos]
    return lead if lead.strip() == "" else None


def _own_line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _back_ws(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in _WS:
        pos -= 1
    return pos


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply (start, end, replacement) edits; inserts at one offset keep their list order."""
    order = sorted(range(len(edits)), key=lambda i: (edits[i][0], edits[i][1], i), reverse=True)
    for i in order:
        start, end, new = edits[i]
        text = text[:start] + new + text[end:]
    return text


def insert_member(text: str, obj: Node, key: str, value: Any, style: _Style) -> str:
    """Add `"key": value` as the object's last member."""
    members = obj.members or []
    close = obj.end - 1
    single_line = "\n" not in text[obj.start : obj.end]
    if single_line and members:
        last = members[-1]
        piece = f" {_str(key)}: {json.dumps(value, ensure_ascii=False)}"
        if last.comma_end is None:
            return _splice(text, [(last.value.end, last.value.end, "," + piece)])
        return _splice(text, [(last.comma_end, last.comma_end, piece + ",")])
    parent = _own_line_indent(text, obj.start)
    if members and (ind := _line_indent(text, members[-1].key_start)) is not None:
        indent = ind
    else:
        indent = parent + style.unit
    member_text = f"{_str(key)}: {render(value, indent, style.unit, style.nl)}"
    at = _back_ws(text, close)
    edits: list[tuple[int, int, str]] = []
    trailing = ""
    if members:
        last = members[-1]
        if last.comma_end is None:
            edits.append((last.value.end, last.value.end, ","))
        else:
            trailing = ","  # the file uses trailing commas: keep its style
    piece = style.nl + indent + member_text + trailing
    if "\n" not in text[at:close]:
        piece += style.nl + parent
    edits.append((at, at, piece))
    return _splice(text, edits)


def remove_member(text: str, obj: Node, key: str) -> str:
    members = obj.members or []
    idx = next((i for i in range(len(members) - 1, -1, -1) if members[i].key == key), None)
    if idx is None:
        return text
    m = members[idx]
    start = _back_ws(text, m.key_start)
    edits = [(start, m.end, "")]
    is_last = idx == len(members) - 1
    if is_last and m.comma_end is None and idx > 0:
        prev = members[idx - 1]
        if prev.comma_end is not None:
            edits.append((prev.comma_end - 1, prev.comma_end, ""))
    if len(members) == 1 and not text[obj.start + 1 : start].strip() and not text[
            m.end : obj.end - 1].strip():
        edits = [(obj.start + 1, obj.end - 1, "")]  # only whitespace would remain: `{}`
    return _splice(text, edits)


def replace_value(text: str, member: Member, value: Any, style: _Style) -> str:
    indent = _own_line_indent(text, member.key_start)
    if "\n" in text[member.value.start : member.value.end] or member.value.is_object:
        new = render(value, indent, style.unit, style.nl)
    else:
        new = json.dumps(value, ensure_ascii=False)
    return _splice(text, [(member.value.start, member.value.end, new)])


EMPTY_DOCUMENT = "{}\n"


def set_entry(text: str | None, container: str, name: str, entry: dict[str, Any],
              keep: tuple[str, ...] = ("env",), replace: bool = False) -> tuple[str, bool]:
    """Make `root[container][name]` hold `entry`; returns (new text, container was created).

    Keys of an existing entry that `entry` does not set are kept, and so are the keys in `keep`
    when the existing entry already has them (their value there wins over `entry`'s); with
    `replace` the entry becomes exactly `entry`. An already matching entry leaves the text
    exactly as it was. Empty or blank text is taken as an empty object.
    """
    if text is None or not text.strip():
        text = EMPTY_DOCUMENT
    root = parse(text)
    if not root.is_object:
        raise JsoncError("the top level is not an object", text, root.start)
    style = _style(text, root)
    box = root.member(container)
    if box is None:
        return insert_member(text, root, container, {name: entry}, style), True
    if not box.value.is_object:
        raise JsoncError(f'"{container}" is not an object', text, box.value.start)
    mine = box.value.member(name)
    if mine is None:
        return insert_member(text, box.value, name, entry, style), False
    current = mine.value.value
    if not isinstance(current, dict):
        return replace_value(text, mine, entry, style), False
    wanted = entry if replace else {
        **current, **{k: v for k, v in entry.items() if not (k in keep and k in current)}}
    if wanted == current:
        return text, False
    return replace_value(text, mine, wanted, style), False


def get_entry(text: str, container: str, name: str) -> Any:
    """`root[container][name]`, or None when any step of that path is missing."""
    root = parse(text)
    if not root.is_object:
        return None
    box = root.value.get(container)
    return box.get(name) if isinstance(box, dict) else None


def remove_entry(text: str, container: str, name: str, drop_empty_container: bool) -> str:
    """`text` without `root[container][name]`; also without `container` when that leaves it
    empty and `drop_empty_container` is set. Text without the member comes back unchanged."""
    root = parse(text)
    box = root.member(container) if root.is_object else None
    if box is None or not box.value.is_object or box.value.member(name) is None:
        return text
    text = remove_member(text, box.value, name)
    if drop_empty_container:
        root = parse(text)
        box = root.member(container)
        if box is not None and box.value.is_object and not box.value.members:
            text = remove_member(text, root, container)
    return text
