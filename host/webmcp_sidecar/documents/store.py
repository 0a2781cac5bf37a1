"""A kind's documents: `<data dir>/<folder>/<name><suffix>` files kept as the user wrote them
(export gives back their text), and beside them `state.json`, what is switched off (and what
else the kind keeps there). Everything is on unless switched off, so a file an editor saves into
the folder is live at once. A file that no longer validates is listed with its problem and left
out of `effective()`; it never breaks the others. A kind may ship documents (`builtin`,
read-only): a user's file of the same name replaces the shipped one.

A kind's own store subclasses this for what is its own: the row `list()` shows (`info`), what
the worker gets of a document (`fed`), what its state keeps and forgets (`State`, `forget`)."""

from __future__ import annotations

import builtins
import json
import re
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from webmcp_sidecar import paths
from webmcp_sidecar.documents.kind import DocKind
from webmcp_sidecar.skills.problems import TextProblems, load, validation_messages
from webmcp_sidecar.textfiles import atomic_write, check_named, listed, read_capped, read_state, save_state

D = TypeVar("D", bound=BaseModel)
_DEFAULT: Any = object()


class DocError(Exception):
    """What went wrong with a document, in plain words (str() is for the user)."""


class DocState(BaseModel):
    disabled: list[str] = Field(default_factory=list)


class DocInfo(BaseModel):
    """One document as `list()` reports it (a kind with no row of its own); `error` set when its
    file does not validate."""

    name: str
    origin: str = "user"
    enabled: bool = True
    path: str
    error: str | None = None


class DocStore(Generic[D]):
    KIND: ClassVar[DocKind]
    Error: ClassVar[type[DocError]] = DocError
    State: ClassVar[type[DocState]] = DocState

    def __init__(
        self, root: Path | None = None, builtin: Path | None = _DEFAULT, kind: DocKind | None = None
    ) -> None:
        self.kind = kind if kind is not None else self.KIND
        self.root = Path(root) if root is not None else paths.data_dir() / self.kind.folder
        self.builtin = self.kind.builtin if builtin is _DEFAULT else builtin
        self._name = re.compile(self.kind.name_pattern)

    # --- what a kind says of its own ----------------------------------------------------------

    def info(self, name: str, path: Path, origin: str, state: Any, doc: D | None, text: str) -> BaseModel:
        """The row `list()` shows (`doc` None: the file does not validate; the caller sets
        `error`)."""
        return DocInfo(name=name, origin=origin, enabled=name not in state.disabled, path=str(path))

    def fed(self, name: str, doc: D, text: str, state: Any) -> dict[str, Any] | None:
        """What the worker gets of an enabled, valid document (None: nothing)."""
        out: dict[str, Any] = doc.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude={"schema_"}
        )
        return out

    def forget(self, state: Any, name: str) -> bool:
        """The state drops what it kept of a removed document; True when it changed."""
        return False

    # --- reading ------------------------------------------------------------------------------

    def files(self) -> dict[str, tuple[Path, str]]:
        """name -> (file, origin); the user's files replace shipped ones of the same name."""
        suffix = self.kind.suffix
        out: dict[str, tuple[Path, str]] = {}
        for p in listed(self.builtin, suffix):
            out[p.name.removesuffix(suffix)] = (p, "shipped")
        for p in listed(self.root, suffix):
            name = p.name.removesuffix(suffix)
            out[name] = (p, "user (replaces shipped)" if name in out else "user")
        return dict(sorted(out.items()))

    def list(self) -> builtins.list[Any]:
        state = self._state()
        out = []
        for name, (path, origin) in self.files().items():
            try:
                text = self.read(path)
                doc = self._load(path, text)
            except DocError as e:
                info = self.info(name, path, origin, state, None, "")
                info.error = str(e)  # type: ignore[attr-defined]
            else:
                info = self.info(name, path, origin, state, doc, text)
            out.append(info)
        return out

    def get(self, name: str) -> D:
        path, _ = self._existing(name)
        return self._load(path, self.read(path))

    def text(self, name: str) -> str:
        return self.read(self._existing(name)[0])

    def effective(self) -> builtins.list[dict[str, Any]]:
        """The enabled, valid documents as the worker receives them."""
        state = self._state()
        out = []
        for name, (path, _origin) in self.files().items():
            if name in state.disabled:
                continue
            try:
                text = self.read(path)
                doc = self._load(path, text)
            except DocError:
                continue  # listed with its error by list(); not offered
            item = self.fed(name, doc, text, state)
            if item is not None:
                out.append(item)
        return out

    def parse(self, text: str, source: str = "<text>") -> D:
        """The document in `text`, or TextProblems (each with its line, column and field)."""
        limit = self.kind.max_bytes
        if len(text.encode("utf-8", "surrogatepass")) > limit:
            raise TextProblems(
                [f"{source}: too large: {self.kind.words.a_file} is at most {limit // 1024} KiB"]
            )
        data, positions = load(text, source)
        try:
            doc: D = self.kind.load("model").model_validate(data)
        except ValidationError as e:
            raise TextProblems(validation_messages(e, data, positions, source)) from None
        return doc

    def validate_text(self, text: str, source: str = "<text>") -> builtins.list[str]:
        """The problems of a text, each with its line, column and field; empty = valid."""
        try:
            self.parse(text, source)
        except TextProblems as e:
            return e.messages
        return []

    def schema_text(self) -> str:
        """The JSON Schema of the kind's files, for editors."""
        schema = self.kind.load("model").model_json_schema(by_alias=True)
        full = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
        return json.dumps(full, indent=2, ensure_ascii=False) + "\n"

    def read(self, path: Path) -> str:
        """A file's text; the kind's error when it is too large or not UTF-8 (checked before it
        is read whole, so a huge file costs nothing)."""
        return read_capped(path, self.kind.max_bytes, self.kind.words.a_file, self.Error)

    # --- changing -----------------------------------------------------------------------------

    def add_text(self, text: str, *, replace: bool = True, source: str = "<text>") -> D:
        doc = self._parse(text, source)
        target = self._user_path(doc.name)  # type: ignore[attr-defined]
        if not replace and target.exists():
            raise self.Error(self.kind.words.exists.format(name=doc.name))  # type: ignore[attr-defined]
        self._write(target, text)
        return doc

    def add_file(self, path: str | Path, *, replace: bool = True) -> builtins.list[D]:
        """Add a file (or, for a kind with `folders`, every file of the kind in a folder). All
        or nothing: when any file has a problem, none is added and the error lists every one."""
        p = Path(path).expanduser()
        suffix, noun = self.kind.suffix, self.kind.words.noun
        if not self.kind.folders:
            if not p.is_file():
                raise self.Error(f"{p} is not a file.")
            return [self.add_text(self.read(p), replace=replace, source=str(p))]
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.name.endswith(suffix) and f.is_file())
            if not files:
                raise self.Error(f"{p} has no *{suffix} files.")
        elif p.is_file():
            files = [p]
        else:
            raise self.Error(f"{p} is not a file or folder.")
        loaded: builtins.list[tuple[Any, str]] = []
        problems: builtins.list[str] = []
        for f in files:
            try:
                text = self.read(f)
                loaded.append((self._parse(text, str(f)), text))
            except DocError as e:
                problems.append(str(e))
        names = [d.name for d, _ in loaded]
        problems += [
            f"Two files declare the {noun} {n!r}." for n in sorted({n for n in names if names.count(n) > 1})
        ]
        if not replace:
            problems += [
                f"A {noun} named {d.name!r} is already installed."
                for d, _ in loaded
                if self._user_path(d.name).exists()
            ]
        if problems:
            raise self.Error("\n".join(problems))
        for doc, text in loaded:
            self._write(self._user_path(doc.name), text)
        return [d for d, _ in loaded]

    def remove(self, name: str) -> str:
        """Removes the user's file; says what is left (a shipped document of that name comes back)."""
        path, origin = self._existing(name)
        if origin == "shipped":
            raise self.Error(self.refuse_shipped(name))
        path.unlink()
        state = self._state()
        if self.forget(state, name):
            self._save_state(state)
        return (
            "removed"
            if origin == "user"
            else f"the shipped {self.kind.words.noun} of that name is used again"
        )

    def refuse_shipped(self, name: str) -> str:
        return f"{name!r} is shipped with WebMCP Sidecar and cannot be removed; switch it off instead."

    def set_enabled(self, name: str, enabled: bool, tool: str | None = None) -> None:
        """Switch a document on or off (a kind whose documents have parts may take `tool`)."""
        if tool is not None:
            raise self.Error(f"{self.kind.words.noun.capitalize()}s have no parts to switch on or off.")
        self._existing(name)
        state = self._state()
        state.disabled = sorted(set(state.disabled) - {name} | (set() if enabled else {name}))
        self._save_state(state)

    # --- files --------------------------------------------------------------------------------

    def _existing(self, name: str) -> tuple[Path, str]:
        self._check_name(name)
        found = self.files().get(name)
        if found is None:
            raise self.Error(self.kind.words.missing.format(name=name))
        return found

    def _user_path(self, name: str) -> Path:
        self._check_name(name)
        return self.root / f"{name}{self.kind.suffix}"

    def _check_name(self, name: str) -> None:
        if not isinstance(name, str) or not self._name.match(name):
            raise self.Error(self.kind.words.bad_name.format(name=name))

    def _load(self, path: Path, text: str) -> D:
        doc = self._parse(text, str(path))
        check_named(path, self.kind.suffix, doc.name, self.kind.words.noun, self.Error)  # type: ignore[attr-defined]
        return doc

    def _parse(self, text: str, source: str) -> D:
        try:
            return self.parse(text, source)
        except TextProblems as e:
            raise self.Error("\n".join(e.messages)) from None

    def _write(self, path: Path, text: str) -> None:
        paths.ensure_private_dir(self.root)
        atomic_write(path, text)

    def _state(self) -> Any:
        return read_state(self.root, self.State)

    def _save_state(self, state: BaseModel) -> None:
        save_state(self.root, state)
