"""What a kind of user document is, as plain data: its name, folder, file suffix and size, where
its model and store are, its words for the user, and whether the worker is sent it.

Plain data only (no pydantic, no model import): the host imports the kinds at start, and its
cold start must not grow; the model and the store load on first use (`DocKind.load`)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Words:
    """What the user reads about a kind's documents; `{name}` is the document's name."""

    noun: str  # "skill": the document in a file ("the file is named ... but its skill is ...")
    a_file: str  # "a skill file": a file that is too large ("... is at most 256 KiB")
    bad_name: str  # a name that cannot be one
    missing: str  # no such document
    exists: str  # one of that name is there and may not be replaced


@dataclass(frozen=True)
class DocKind:
    name: str  # the panel's `kind` ("skills")
    folder: str  # under the data dir
    suffix: str  # of a file: `<name><suffix>`
    max_bytes: int
    name_pattern: str
    model: str  # "module:Class", a pydantic model with `name` (loaded on first use)
    store: str  # "module:Class", a documents.store.DocStore (or a subclass of the kind's own)
    words: Words
    source: str  # a panel text's name in its problems ("skill.json:3:5: ...")
    # The worker gets the enabled documents: it asks with `doc_get {kind}` (after `host_hello`)
    # and gets `docs {kind, docs}`, again whenever they change (wire/doc_messages.py): one pair
    # of messages for every kind.
    feeds_worker: bool = False
    builtin: Path | None = None  # documents shipped with us (read-only; the user's replace them)
    folders: bool = False  # `add` takes a folder of files too
    # Side panels hear of every change (an answer with an empty `id`), not only of their own.
    push_to_panels: bool = False

    def load(self, what: str) -> Any:
        """The class `model` or `store` names."""
        module, _, name = getattr(self, what).partition(":")
        return getattr(importlib.import_module(module), name)

    def open(self, root: Path | None = None) -> Any:
        """The kind's store over `root` (None: `<data dir>/<folder>`)."""
        return self.load("store")(root, kind=self)
