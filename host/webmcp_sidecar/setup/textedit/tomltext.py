"""Edit Codex's `config.toml` as text: our `[mcp_servers.<name>]` table, nothing else.

The standard library reads TOML but cannot write it, and a rewrite would lose the user's
comments. So we add, update or remove our table's lines, then re-read the result with `tomllib`
and accept the edit only if everything else parses to exactly what it was before.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

_ANY_HEADER = re.compile(r"^[ \t]*\[")


class TomlError(ValueError):
    pass


def _header_re(container: str, name: str) -> re.Pattern[str]:
    n = re.escape(name)
    return re.compile(
        rf"""^[ \t]*\[[ \t]*{re.escape(container)}[ \t]*\.[ \t]*(?:{n}|"{n}"|'{n}')[ \t]*\]"""
        r"[ \t]*(?:#.*)?$"
    )


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlError(str(e)) from None


def _value(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a valid TOML basic string
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _block(lines: list[str], container: str, name: str) -> tuple[int, int] | None:
    """(header index, end index past the table's last key line) of our table, if present."""
    rx = _header_re(container, name)
    for i, line in enumerate(lines):
        if rx.match(line.rstrip("\r\n")):
            end = i + 1
            j = i + 1
            while j < len(lines) and not _ANY_HEADER.match(lines[j]):
                stripped = lines[j].strip()
                if stripped and not stripped.startswith("#"):
                    end = j + 1
                j += 1
            return i, end
    return None


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


def get_entry(text: str, container: str, name: str) -> Any:
    box = loads(text).get(container)
    return box.get(name) if isinstance(box, dict) else None


def set_entry(text: str | None, container: str, name: str, entry: dict[str, Any]) -> str:
    text = text or ""
    before = loads(text)
    current = get_entry(text, container, name)
    if isinstance(current, dict) and all(current.get(k) == v for k, v in entry.items()):
        return text
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    where = _block(lines, container, name)
    if where is None:
        if current is not None:
            raise TomlError(
                f"{container}.{name} is defined in a form we do not edit (not a "
                f"[{container}.{name}] table); edit it by hand"
            )
        block = [f"[{container}.{name}]{nl}"] + [f"{k} = {_value(v)}{nl}" for k, v in entry.items()]
        prefix = text
        if prefix and not prefix.endswith("\n"):
            prefix += nl
        if prefix.strip():
            prefix += nl  # a blank line before our table
        new = prefix + "".join(block)
    else:
        head, end = where
        body = lines[head + 1 : end]
        for k, v in entry.items():
            line = f"{k} = {_value(v)}{nl}"
            key_rx = re.compile(rf"^[ \t]*(?:{re.escape(k)}|\"{re.escape(k)}\")[ \t]*=")
            idx = next((i for i, b in enumerate(body) if key_rx.match(b)), None)
            if idx is None:
                body.append(line)
            else:
                body[idx] = line
        new = "".join(lines[: head + 1] + body + lines[end:])
    _check(new, before, container, name, entry)
    return new


def remove_entry(text: str, container: str, name: str) -> str:
    before = loads(text)
    lines = text.splitlines(keepends=True)
    where = _block(lines, container, name)
    if where is None:
        return text
    head, end = where
    # Also drop the blank line we put before the table when we added it at the end.
    start = head
    if end == len(lines) and head > 0 and not lines[head - 1].strip():
        start = head - 1
    new = "".join(lines[:start] + lines[end:])
    after = loads(new)
    if _without(after, container, name) != _without(before, container, name):
        raise TomlError(f"removing [{container}.{name}] would change other settings")
    return new


def _check(new: str, before: dict[str, Any], container: str, name: str,
           entry: dict[str, Any]) -> None:
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError as e:
        raise TomlError(f"our edit would not parse ({e}); edit the file by hand") from None
    mine = get_entry(new, container, name)
    if not isinstance(mine, dict) or any(mine.get(k) != v for k, v in entry.items()):
        raise TomlError(f"could not place [{container}.{name}] safely; edit it by hand")
    if _without(after, container, name) != _without(before, container, name):
        raise TomlError("our edit would change other settings; edit the file by hand")
