"""Edit one `[<container>.<name>]` table of a TOML file, keeping the rest as the user wrote it.

`tomlkit` reads the file into a document that renders back byte for byte, so the user's
comments, quoting and spacing survive our edit. We only edit a table written with its own
`[<container>.<name>]` header: an entry written inline (`name = { ... }`), with dotted keys or
only through sub-tables is refused with a clear error, as is a container written inline.

Whatever tomlkit produces, the result is re-read with `tomllib` (the standard library's parser)
and accepted only if our table holds what we asked for and everything else parses to exactly
what it was before; otherwise we raise `TomlError` and the caller writes nothing.
"""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.items import AbstractTable, Comment, InlineTable, Item, Table, Whitespace

# Marks where our table starts in the rendered document. TOML allows no NUL anywhere, even in
# strings and comments, so it cannot occur in a file that parsed.
_MARK = "\x00"


class TomlError(ValueError):
    pass


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlError(str(e)) from None


def _document(text: str) -> tomlkit.TOMLDocument:
    """The file as tomlkit sees it (callers have already parsed it with `loads`, whose
    message is the one we show for a broken file)."""
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.TOMLKitError as e:
        raise TomlError(f"cannot read the file for editing ({e}); edit it by hand") from None


def _item(v: Any) -> Item:
    """A tomlkit value for `v`; tables nested in an entry are written inline."""
    if isinstance(v, dict):
        table = tomlkit.inline_table()
        for k, x in v.items():
            table.append(k, _item(x))
        return table
    if isinstance(v, list):
        array = tomlkit.array()
        array.extend(_item(x) for x in v)
        return array
    if isinstance(v, str | bool | int | float):
        return tomlkit.item(v)
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _value(v: Any) -> str:
    """`v` as TOML value text (for snippets the user pastes by hand)."""
    return _item(v).as_string()


def _without(data: dict[str, Any], container: str, name: str) -> dict[str, Any]:
    """`data` less our entry (and an empty container, which TOML may leave implicit)."""
    out = dict(data)
    box = out.get(container)
    if isinstance(box, dict):
        box = {k: v for k, v in box.items() if k != name}
        if box:
            out[container] = box
        else:
            del out[container]
    return out


def _find(doc: tomlkit.TOMLDocument, container: str, name: str) -> tuple[Any, Any]:
    """(container, our entry) as tomlkit items; either may be None."""
    box = doc.get(container)
    # A container split by other tables ([a.x] ... [b] ... [a.y]) comes as a proxy.
    mine = box.get(name) if isinstance(box, AbstractTable | OutOfOrderTableProxy) else None
    return box, mine


def _own_table(item: Any) -> bool:
    """A table written with its own `[a.b]` header (not inline, not dotted keys, not implicit)."""
    return isinstance(item, Table) and not item.is_super_table()


def _detach_tail(table: Table) -> list[Item]:
    """Take the comments and blank lines after the table's last key out of the table.

    tomlkit files them under the table, though they introduce whatever follows
    (python-poetry/tomlkit#295); left there, a key we add would land below them and removing
    the table would delete them. When the table ends with a sub-table of its own, they are
    that sub-table's.
    """
    body = table.value.body
    if body and body[-1][0] is not None and isinstance(body[-1][1], Table):
        return _detach_tail(body[-1][1])
    tail: list[Item] = []
    while body and body[-1][0] is None and isinstance(body[-1][1], Comment | Whitespace):
        tail.insert(0, body.pop()[1])
    return tail


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def get_entry(text: str, container: str, name: str) -> Any:
    box = loads(text).get(container)
    return box.get(name) if isinstance(box, dict) else None


def set_entry(text: str | None, container: str, name: str, entry: dict[str, Any],
              replace: bool = False) -> str:
    """`text` with `[container.name]` holding the keys of `entry` (other keys there are kept,
    unless `replace`). Keys whose value is already right keep their text (a sub-table stays a
    sub-table); an entry that already matches leaves the text exactly as it was.
    """
    text = text or ""
    before = loads(text)
    current = get_entry(text, container, name)
    if isinstance(current, dict) and (current == entry if replace else all(
            current.get(k) == v for k, v in entry.items())):
        return text
    doc = _document(text)
    nl = _newline(text)
    box, mine = _find(doc, container, name)
    if isinstance(box, InlineTable):
        raise TomlError(
            f"{container} is written inline ({container} = {{ ... }}), where a "
            f"[{container}.{name}] table would not parse; edit the file by hand")
    if box is not None and not isinstance(box, AbstractTable | OutOfOrderTableProxy):
        raise TomlError(f"{container} is not a table; edit the file by hand")
    if mine is None:
        new = text + _appended_table(text, container, name, entry, nl)
    elif _own_table(mine):
        tail = _detach_tail(mine)
        for k in [k for k in mine if replace and k not in entry]:
            del mine[k]
        for k, v in entry.items():
            if k in mine:
                if mine[k].unwrap() != v:
                    mine[k] = _item(v)  # tomlkit keeps the old value's comment and line ending
            else:
                item = _item(v)
                item.trivia.trail = nl
                mine.add(k, item)
        for item in tail:
            mine.add(item)
        new = doc.as_string()
    else:
        raise TomlError(
            f"{container}.{name} is defined in a form we do not edit (not a "
            f"[{container}.{name}] table); edit it by hand")
    _check(new, before, container, name, entry, replace)
    return new


def _appended_table(text: str, container: str, name: str, entry: dict[str, Any], nl: str) -> str:
    """Our table as text to add at the end of `text`, a blank line before it.

    The end is the one place where a new table can neither change what a following key means
    nor come between a comment and the table it introduces.
    """
    table = tomlkit.table()
    for k, v in entry.items():
        table.add(k, _item(v))
    holder = tomlkit.table(is_super_table=True)  # renders as `[container.name]` alone
    holder.add(name, table)
    block = tomlkit.document().add(container, holder).as_string()
    # No raw newline can occur inside a value: tomlkit writes strings on one line, escaped.
    block = block.replace("\n", nl)
    if not text.strip():
        return block
    if text.endswith("\n\n") or text.endswith("\r\n\r\n"):
        return block
    return (nl if text.endswith("\n") else nl + nl) + block


def remove_entry(text: str, container: str, name: str) -> str:
    """`text` without our `[container.name]` table; any other form of the entry is left alone."""
    before = loads(text)
    doc = _document(text)
    _box, mine = _find(doc, container, name)
    if not _own_table(mine):
        return text
    tail = "".join(item.as_string() for item in _detach_tail(mine))
    mine.trivia.indent = _MARK + mine.trivia.indent
    marked = doc.as_string()
    at = marked.index(_MARK)
    del doc[container][name]
    rest = doc.as_string()
    if rest[:at] != marked[:at]:
        raise TomlError(f"removing [{container}.{name}] would change other settings")
    new = _keep_ending(rest[:at] + tail + rest[at:], text)
    after = loads(new)
    if _without(after, container, name) != _without(before, container, name):
        raise TomlError(f"removing [{container}.{name}] would change other settings")
    return new


def _keep_ending(new: str, old: str) -> str:
    """`new` ending in as many newlines as `old` did: the blank line we put before a table we
    appended goes with it."""
    body = new.rstrip("\r\n")
    if not body.strip():
        return ""
    return body + old[len(old.rstrip("\r\n")):]


def _check(new: str, before: dict[str, Any], container: str, name: str,
           entry: dict[str, Any], replace: bool = False) -> None:
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError as e:
        raise TomlError(f"our edit would not parse ({e}); edit the file by hand") from None
    mine = get_entry(new, container, name)
    if not isinstance(mine, dict) or any(mine.get(k) != v for k, v in entry.items()) or (
            replace and mine != entry):
        raise TomlError(f"could not place [{container}.{name}] safely; edit it by hand")
    if _without(after, container, name) != _without(before, container, name):
        raise TomlError("our edit would change other settings; edit the file by hand")
