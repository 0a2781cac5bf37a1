"""The user's documents (skills, chat-site adapters; documents/) on the wire: one pair of message
types for the side panel and one for the worker, for every kind, the kind named in each
(documents/kinds.py); a new kind needs no new type.

- The side panel: `panel_doc`, answered by `doc_answer`. The worker relays `panel_doc` to the host
  as it relays every `panel_*`, and `doc_answer` to the open panels; the documents plugin
  (native_host/doc_link.py) answers, not the agent.
- The worker: `doc_get` for each kind it uses (after `host_hello`), answered by `docs`, and `docs`
  again whenever that kind's documents change (kinds with `feeds_worker`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webmcp_sidecar.wire.constants import DOC_KIND_PATTERN

MAX_DOC_TEXT = 256 * 1024  # the largest kind's file (skills); each store checks its own


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PanelDoc(_Model):
    """A view manages the user's documents of `kind`; one `doc_answer` of that `id` answers.
    `list`, `get` (`name`: its text), `schema` (the kind's JSON Schema), `validate` and `save`
    (`text`), `remove`, `enable` and `disable` (`name`, and a skill's `tool`)."""

    type: Literal["panel_doc"] = "panel_doc"
    kind: Annotated[str, Field(pattern=DOC_KIND_PATTERN)]
    id: Annotated[str, Field(min_length=1, max_length=100)]
    op: Literal["list", "get", "validate", "save", "remove", "enable", "disable", "schema"]
    name: Annotated[str, Field(max_length=100)] | None = None
    tool: Annotated[str, Field(max_length=128)] | None = None
    text: Annotated[str, Field(max_length=MAX_DOC_TEXT)] | None = None


class DocAnswer(_Model):
    """host->side panels (relayed by the worker): the answer to `panel_doc` `id`: the documents
    as `<kind> list --json` shows them (list and every change), a file's text (get, schema), or
    the problems of a text (validate, save). An empty `id`: a kind's documents changed."""

    type: Literal["doc_answer"] = "doc_answer"
    kind: str
    id: str
    ok: bool
    docs: list[dict[str, Any]] | None = None
    text: str | None = None
    problems: list[str] | None = None
    error: str | None = None


class DocGet(_Model):
    """browser->host: send me the enabled documents of `kind` (after `host_hello`; the answer is
    `docs`, then again whenever they change). A kind the host does not feed is logged and
    ignored."""

    type: Literal["doc_get"] = "doc_get"
    kind: Annotated[str, Field(pattern=DOC_KIND_PATTERN)]


class Docs(_Model):
    """host->browser: the enabled documents of `kind` (a kind with `feeds_worker`), validated by
    the host's store: skills with their disabled tools left out (docs/SKILLS.md), chat-site
    adapters with `verified` (docs/CHAT_SITES.md). Sent on `doc_get` and whenever they change;
    the worker hands them to the kind's module and ignores a kind it does not use."""

    type: Literal["docs"] = "docs"
    kind: Annotated[str, Field(pattern=DOC_KIND_PATTERN)]
    docs: list[dict[str, Any]] = Field(default_factory=list)
