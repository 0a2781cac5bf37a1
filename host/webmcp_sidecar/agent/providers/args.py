"""Tool-call arguments as providers really send them, assembled into one JSON object.

Seen in the field: the spec's JSON text streamed in pieces; an object instead of text (some
OpenAI-compatible servers); the whole text repeated in every chunk; JSON text encoded twice
(a string holding the JSON); an empty string for "no arguments".
"""

from __future__ import annotations

import json
from typing import Any


def parse(raw: str | dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """(arguments, None) or ({}, why they could not be read)."""
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    text = raw.strip()
    if not text:
        return {}, None
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = _last_complete(text)
        if value is None:
            return {}, f"the arguments are not valid JSON: {text[:200]}"
    if isinstance(value, str):  # encoded twice
        try:
            value = json.loads(value)
        except ValueError:
            return {}, f"the arguments are a string, not a JSON object: {value[:200]}"
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def _last_complete(text: str) -> Any:
    """The last of several concatenated JSON objects (the 'whole text in every chunk' quirk)."""
    dec = json.JSONDecoder()
    pos, last = 0, None
    while pos < len(text):
        try:
            last, end = dec.raw_decode(text, pos)
        except ValueError:
            return None
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return last


class Slot:
    def __init__(self, call_id: str | None) -> None:
        self.id = call_id or ""
        self.name = ""
        self.text: list[str] = []
        self.obj: dict[str, Any] | None = None

    def add_name(self, name: str) -> None:
        # Repeated whole names (DashScope) are no-ops; pieces (the spec allows it) join.
        if not self.name or name == self.name:
            self.name = name
        elif not self.name.endswith(name):
            self.name += name

    def add_args(self, piece: Any) -> None:
        if isinstance(piece, dict):
            self.obj = piece
        elif isinstance(piece, str) and piece:
            self.text.append(piece)

    def arguments(self) -> tuple[dict[str, Any], str | None]:
        if self.obj is not None:
            return self.obj, None
        return parse("".join(self.text))


class CallAccumulator:
    """Joins streamed tool-call deltas into calls, by index, or by id when a server sends none
    (or gives every call index 0)."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self._by_index: dict[int, Slot] = {}

    def add(self, index: int | None, call_id: str | None, name: str | None, args: Any) -> None:
        slot = self._slot(index, call_id)
        if call_id and not slot.id:
            slot.id = call_id
        if name:
            slot.add_name(name)
        slot.add_args(args)

    def _slot(self, index: int | None, call_id: str | None) -> Slot:
        if call_id:
            for s in self.slots:
                if s.id == call_id:
                    return s
        if index is not None and index in self._by_index:
            s = self._by_index[index]
            if not (call_id and s.id and s.id != call_id):
                return s
        elif index is None and self.slots and not call_id:
            return self.slots[-1]
        s = Slot(call_id)
        self.slots.append(s)
        if index is not None:
            self._by_index[index] = s
        return s
