"""The chat-site adapters: the ones we ship (`chat_sites/builtin/`, read-only) and the user's
(`<data dir>/chat-sites/<name>.chat.json`), kept by documents/store.py; a user file of the same
name replaces a shipped adapter (that is how a user fixes one a platform broke). What is an
adapter's own: whether it has worked on the live site. The state beside the files:
`{"disabled": [names], "verified": {name: {"at": ISO time, "host": hostname}}}`. Verification
belongs to the text it was seen with: saving a new text of an adapter drops it.
"""

from __future__ import annotations

import datetime
import hashlib
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from webmcp_sidecar.chat_sites.model import ChatSite
from webmcp_sidecar.documents.kinds import CHAT_BUILTIN, CHAT_SITES
from webmcp_sidecar.documents.store import DocError, DocState, DocStore

BUILTIN = CHAT_BUILTIN  # the adapters we ship


class ChatSiteError(DocError):
    """What went wrong, in plain words (str() is for the user)."""


class Verified(BaseModel):
    at: str
    host: str = ""
    digest: str = ""  # of the adapter text it worked with


class _State(DocState):
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


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _verified(state: Any, name: str, text: str) -> Verified | None:
    v: Verified | None = state.verified.get(name)
    return v if v is not None and v.digest == _digest(text) else None


class ChatSiteStore(DocStore[ChatSite]):
    KIND = CHAT_SITES
    Error: ClassVar[type[DocError]] = ChatSiteError
    State: ClassVar[type[DocState]] = _State

    def info(
        self, name: str, path: Path, origin: str, state: Any, doc: ChatSite | None, text: str
    ) -> ChatSiteInfo:
        info = ChatSiteInfo(name=name, path=str(path), origin=origin, enabled=name not in state.disabled)
        if doc is not None:
            info.title, info.version, info.source = doc.title, doc.version, doc.source
            info.hostnames = list(doc.hostnames)
            info.verified = _verified(state, name, text)
        return info

    def fed(self, name: str, doc: ChatSite, text: str, state: Any) -> dict[str, Any]:
        """The adapter, with whether this text of it is `verified`."""
        return {**doc.dump(), "verified": _verified(state, name, text) is not None}

    def forget(self, state: Any, name: str) -> bool:
        return state.verified.pop(name, None) is not None

    def refuse_shipped(self, name: str) -> str:
        return (
            f"{name!r} is shipped with WebMCP Sidecar and cannot be removed; switch it off in "
            "the side panel, or add a file of that name to replace it."
        )

    def mark_verified(self, name: str, host: str) -> bool:
        """A round trip worked on the live site `host`: the adapter's current text is verified.
        False (nothing kept) for an unknown adapter or a host it does not name."""
        try:
            path, _ = self._existing(name)
            text = self.read(path)
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
    """An adapter file's text; ChatSiteError when it is too large or not UTF-8."""
    return ChatSiteStore(path.parent, builtin=None).read(path)
