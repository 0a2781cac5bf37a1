"""The chat-site adapters: the ones we ship (`chat_sites/builtin/`, read-only) and the user's
(`<data dir>/chat-sites/<name>.chat.json`, kept as written). A user file of the same name
replaces a shipped adapter (that is how a user fixes one a platform broke). Beside the files,
`state.json` keeps which are off and which have worked on the live site:
`{"disabled": [names], "verified": {name: {"at": ISO time, "host": hostname}}}`. Verification
belongs to the text it was seen with: saving a new text of an adapter drops it.
"""

from __future__ import annotations

import builtins
import datetime
import hashlib
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from webmcp_sidecar import paths
from webmcp_sidecar.chat_sites.model import FILE_SUFFIX, MAX_FILE_BYTES, NAME_PATTERN, ChatSite
from webmcp_sidecar.skills.problems import TextProblems, load, validation_messages
from webmcp_sidecar.textfiles import atomic_write, check_named, listed, read_capped, read_state, save_state

BUILTIN = Path(__file__).parent / "builtin"
_NAME = re.compile(NAME_PATTERN)


class ChatSiteError(Exception):
    """What went wrong, in plain words (str() is for the user)."""


class Verified(BaseModel):
    at: str
    host: str = ""
    digest: str = ""  # of the adapter text it worked with


class _State(BaseModel):
    disabled: list[str] = Field(default_factory=list)
    verified: dict[str, Verified] = Field(default_factory=dict)


class ChatSiteInfo(BaseModel):
    """One adapter as `list()` reports it; `error` set when its file does not validate."""

    name: str
    title: str = ""
    version: str = ""
    hostnames: list[str] = Field(default_factory=list)
    source: str = ""
    origin: str  # "shipped" | "user" | "user (replaces shipped)"
    enabled: bool = True
    verified: Verified | None = None
    path: str
    error: str | None = None


def parse(text: str, source: str = "<text>") -> ChatSite:
    """The adapter in `text`, or TextProblems (each with its line, column and field)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise TextProblems([f"{source}: too large: an adapter is at most {MAX_FILE_BYTES // 1024} KiB"])
    data, positions = load(text, source)
    try:
        return ChatSite.model_validate(data)
    except ValidationError as e:
        raise TextProblems(validation_messages(e, data, positions, source)) from None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class ChatSiteStore:
    def __init__(self, root: Path | None = None, builtin: Path | None = BUILTIN) -> None:
        self.root = Path(root) if root is not None else paths.data_dir() / "chat-sites"
        self.builtin = builtin

    # --- reading ------------------------------------------------------------------------------

    def files(self) -> dict[str, tuple[Path, str]]:
        """name -> (file, origin); the user's files replace shipped ones of the same name."""
        out: dict[str, tuple[Path, str]] = {}
        for p in listed(self.builtin, FILE_SUFFIX):
            out[p.name.removesuffix(FILE_SUFFIX)] = (p, "shipped")
        for p in listed(self.root, FILE_SUFFIX):
            name = p.name.removesuffix(FILE_SUFFIX)
            out[name] = (p, "user (replaces shipped)" if name in out else "user")
        return dict(sorted(out.items()))

    def list(self) -> builtins.list[ChatSiteInfo]:
        state = self._state()
        out = []
        for name, (path, origin) in self.files().items():
            info = ChatSiteInfo(name=name, path=str(path), origin=origin, enabled=name not in state.disabled)
            try:
                text = read_file(path)
                site = self._load(path, text)
            except ChatSiteError as e:
                info.error = str(e)
            else:
                info.title, info.version, info.source = site.title, site.version, site.source
                info.hostnames = list(site.hostnames)
                v = state.verified.get(name)
                info.verified = v if v is not None and v.digest == _digest(text) else None
            out.append(info)
        return out

    def effective(self) -> builtins.list[dict[str, Any]]:
        """The enabled, valid adapters as the extension receives them, each with `verified`."""
        state = self._state()
        out = []
        for name, (path, _origin) in self.files().items():
            if name in state.disabled:
                continue
            try:
                text = read_file(path)
                site = self._load(path, text)
            except ChatSiteError:
                continue  # list() shows its error; it is not offered
            v = state.verified.get(name)
            out.append({**site.dump(), "verified": v is not None and v.digest == _digest(text)})
        return out

    def text(self, name: str) -> str:
        return read_file(self._existing(name)[0])

    def validate_text(self, text: str, source: str = "<text>") -> builtins.list[str]:
        try:
            parse(text, source)
        except TextProblems as e:
            return e.messages
        return []

    # --- changing -----------------------------------------------------------------------------

    def add_text(self, text: str, *, replace: bool = True, source: str = "<text>") -> ChatSite:
        site = self._parse(text, source)
        target = self._user_path(site.name)
        if not replace and target.exists():
            raise ChatSiteError(f"An adapter named {site.name!r} is already added; remove it first.")
        paths.ensure_private_dir(self.root)
        atomic_write(target, text)
        return site

    def add_file(self, path: str | Path, *, replace: bool = True) -> ChatSite:
        p = Path(path).expanduser()
        if not p.is_file():
            raise ChatSiteError(f"{p} is not a file.")
        return self.add_text(read_file(p), replace=replace, source=str(p))

    def remove(self, name: str) -> str:
        """Removes the user's file; says what is left (a shipped adapter of that name comes back)."""
        path, origin = self._existing(name)
        if origin == "shipped":
            raise ChatSiteError(
                f"{name!r} is shipped with WebMCP Sidecar and cannot be removed; switch it off in "
                "the side panel, or add a file of that name to replace it."
            )
        path.unlink()
        state = self._state()
        if name in state.verified:
            del state.verified[name]
            self._save_state(state)
        return "the shipped adapter of that name is used again" if origin != "user" else "removed"

    def set_enabled(self, name: str, enabled: bool) -> None:
        self._existing(name)
        state = self._state()
        state.disabled = sorted(set(state.disabled) - {name} | (set() if enabled else {name}))
        self._save_state(state)

    def mark_verified(self, name: str, host: str) -> bool:
        """A round trip worked on the live site `host`: the adapter's current text is verified.
        False (nothing kept) for an unknown adapter or a host it does not name."""
        try:
            path, _ = self._existing(name)
            text = read_file(path)
            site = self._load(path, text)
        except ChatSiteError:
            return False
        if not any(_host_matches(h, host) for h in site.hostnames):
            return False
        state = self._state()
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        state.verified[name] = Verified(at=now, host=host[:253], digest=_digest(text))
        self._save_state(state)
        return True

    # --- files --------------------------------------------------------------------------------

    def _existing(self, name: str) -> tuple[Path, str]:
        self._check_name(name)
        found = self.files().get(name)
        if found is None:
            raise ChatSiteError(
                f"No chat-site adapter named {name!r} (see `webmcp-sidecar chat-sites list`)."
            )
        return found

    def _user_path(self, name: str) -> Path:
        self._check_name(name)
        return self.root / f"{name}{FILE_SUFFIX}"

    @staticmethod
    def _check_name(name: str) -> None:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ChatSiteError(
                f"{name!r} is not an adapter name (lower-case letters, digits, `_` and `-`, at most 64)."
            )

    def _load(self, path: Path, text: str) -> ChatSite:
        site = self._parse(text, str(path))
        check_named(path, FILE_SUFFIX, site.name, "adapter", ChatSiteError)
        return site

    @staticmethod
    def _parse(text: str, source: str) -> ChatSite:
        try:
            return parse(text, source)
        except TextProblems as e:
            raise ChatSiteError("\n".join(e.messages)) from None

    def _state(self) -> _State:
        return read_state(self.root, _State)

    def _save_state(self, state: _State) -> None:
        save_state(self.root, state)


def _host_matches(pattern: str, host: str) -> bool:
    """`host` is `name[:port]` of a page; a pattern without a port matches any port."""
    name, _, port = host.partition(":")
    pname, _, pport = pattern.partition(":")
    if pport and pport != port:
        return False
    if pname.startswith("*."):
        return name == pname[2:] or name.endswith(pname[1:])
    return name == pname


def read_file(path: Path) -> str:
    return read_capped(path, MAX_FILE_BYTES, "an adapter", ChatSiteError)
