"""Conversations kept in the user data dir: one JSON file each, reopened and cleared from the panel."""

from __future__ import annotations

import logging
import re
import secrets
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webmcp_sidecar.agent import panel_messages as p
from webmcp_sidecar.agent.history import Message
from webmcp_sidecar.agent.settings import write_json
from webmcp_sidecar.paths import data_dir

log = logging.getLogger(__name__)
_ID = re.compile(r"^[a-z0-9]{6,40}$")
KEEP = 200  # conversations kept; the oldest go first


class Conversation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(default_factory=lambda: secrets.token_hex(8))
    title: str = ""
    created: float = Field(default_factory=time.time)
    updated: float = Field(default_factory=time.time)
    history: list[Message] = Field(default_factory=list)
    items: list[p.ChatItem] = Field(default_factory=list)

    def view(self) -> p.ConversationView:
        return p.ConversationView(id=self.id, title=self.title or "New conversation", items=self.items)

    def summary(self) -> p.ConversationSummary:
        return p.ConversationSummary(id=self.id, title=self.title or "New conversation", updated=self.updated)


def valid_id(cid: str) -> bool:
    return bool(_ID.match(cid))


class Store:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or data_dir() / "agent" / "conversations"

    def _path(self, cid: str) -> Path:
        if not valid_id(cid):
            raise ValueError("not a conversation id")
        return self.root / f"{cid}.json"

    def save(self, conv: Conversation) -> None:
        if not conv.history:
            return  # an empty conversation is not worth a file
        if not conv.title:
            first = next((m.text for m in conv.history if m.role == "user"), "")
            conv.title = " ".join(first.split())[:80]
        conv.updated = time.time()
        write_json(self._path(conv.id), conv.model_dump(mode="json"))

    def load(self, cid: str) -> Conversation | None:
        try:
            return Conversation.model_validate_json(self._path(cid).read_bytes())
        except (OSError, ValueError, ValidationError) as e:
            if not isinstance(e, FileNotFoundError):
                log.warning("conversation %s unreadable: %s", cid, type(e).__name__)
            return None

    def list(self) -> list[p.ConversationSummary]:
        out = []
        for path in self.root.glob("*.json"):
            conv = self.load(path.stem) if valid_id(path.stem) else None
            if conv is not None:
                out.append(conv.summary())
        out.sort(key=lambda s: s.updated, reverse=True)
        for old in out[KEEP:]:
            self.delete(old.id)
        return out[:KEEP]

    def delete(self, cid: str) -> None:
        try:
            self._path(cid).unlink(missing_ok=True)
        except ValueError:
            pass

    def delete_all(self) -> None:
        for path in self.root.glob("*.json"):
            path.unlink(missing_ok=True)
