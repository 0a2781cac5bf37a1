"""A chat-site adapter (docs/CHAT_SITES.md): how the extension recognises the request that sends
the user's message on an AI chat website, where the message sits in its body, how the answer
streams back and where its text is, and which elements are the input box, the send button and
the last answer. Data only: the extension interprets it, nothing in it runs.

Strict like skills (`extra="forbid"`, strict types), so a misspelt field is an error the user
sees with its line and column (`store.py` reuses the skills' problem finder).
Whether an adapter has worked on the live site (`verified`) is not part of the document: the
store keeps it beside the files, so editing an adapter never claims it works.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from webmcp_sidecar.chat_sites.paths import parse as parse_path
from webmcp_sidecar.chat_sites.paths import single
from webmcp_sidecar.documents.kinds import CHAT_MAX_BYTES, CHAT_SUFFIX
from webmcp_sidecar.documents.kinds import NAME_PATTERN as NAME_PATTERN
from webmcp_sidecar.wire.constants import MAX_DESCRIPTION
from webmcp_sidecar.wire.public_suffix import is_public_suffix

FILE_SUFFIX = CHAT_SUFFIX
MAX_FILE_BYTES = CHAT_MAX_BYTES
MAX_HOSTNAMES = 16
MAX_TEXT_PATHS = 8
MAX_SELECTOR = 1024
MAX_URL = 1024

# `chat.deepseek.com`, `*.doubao.com` (the name and its subdomains), `127.0.0.1:8123` (one port).
_HOST = re.compile(
    r"^(\*\.)?[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*(:\d{1,5})?$"
)


def _hostname(text: str) -> str:
    if not _HOST.match(text):
        raise ValueError(
            "not a hostname: lower-case `name.example`, `*.example` for it and its subdomains, "
            "optionally `:port`; never a bare `*`"
        )
    if ":" in text and not 0 < int(text.rsplit(":", 1)[1]) < 65536:
        raise ValueError("the port is 1-65535")
    name = text.split(":")[0].removeprefix("*.")
    if is_public_suffix(name):
        raise ValueError(
            f"{name} is a public suffix: anyone can have a site under it, so the adapter would act "
            "on most of the web; name the chat site itself"
        )
    return text


def _path(text: str) -> str:
    parse_path(text)  # PathError is a ValueError: pydantic reports its words
    return text


def _one_place(text: str) -> str:
    if not single(parse_path(text)):
        raise ValueError("the message is written back here: one place, no `[*]` or `[?key=value]`")
    return text


def _url(text: str) -> str:
    if text.startswith("/"):
        return text
    if re.match(r"^https?://[^/*]+/", text):
        return text
    raise ValueError(
        "a URL pattern is a path starting with `/` (on the page's own origin) or a whole "
        "`https://host/path` URL; `*` matches any run of characters in the path and query"
    )


def _selector(text: str) -> str:
    if "\n" in text or "{" in text:
        raise ValueError("a CSS selector is one line, with no `{`")
    return text


Hostname = Annotated[str, AfterValidator(_hostname)]
JsonPath = Annotated[
    str,
    AfterValidator(_path),
    Field(description="Where a value sits in JSON: `messages[-1].content` (docs/CHAT_SITES.md)."),
]
EventName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Selector = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SELECTOR), AfterValidator(_selector)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RequestSpec(_Strict):
    """The request that sends the user's message."""

    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL), AfterValidator(_url)] = Field(
        description="`/api/chat*` (the page's origin) or `https://api.example/chat*`; `*` = any run."
    )
    method: Literal["POST", "PUT"] = "POST"
    message_path: Annotated[JsonPath, AfterValidator(_one_place)] | None = Field(
        None,
        description="Where the user's message text sits in the JSON body; the instruction block "
        "is added in front of it. None (or a body that is not JSON): the block goes into the "
        "input box before the first message instead.",
    )
    envelope: Literal["connect"] | None = Field(
        None,
        description="`connect`: the body is a Connect-RPC envelope (a flags byte, a 4-byte "
        "big-endian length, then the JSON message); `message_path` is inside the message, and "
        "the envelope's length is written anew when the block is added.",
    )


class PatchSpec(_Strict):
    """A stream whose events are operations on one document (JSON-patch-like): each event's op
    is applied to the document, and the text is read from the document, not from the event."""

    path: JsonPath = Field("p", description="Where an event's op path is (`a/b/0`, `/a/-1`).")
    op: JsonPath = Field(
        "o",
        description="Where its op name is: set / replace / add, append, batch / patch (its value "
        "a list of ops under its path); case does not matter.",
    )
    value: JsonPath = Field("v", description="Where its value is.")


class ResponseSpec(_Strict):
    """How the answer comes back, and where its text is."""

    kind: Literal["sse", "ndjson", "json", "connect", "dom"] = Field(
        description="`sse` (text/event-stream), `ndjson` (a JSON object per line), `json` (one "
        "document), `connect` (Connect-RPC streaming envelopes, each a JSON message; the end "
        "frame is not read), `dom` (not read: the answer is read from the page at its end)."
    )
    text_paths: list[JsonPath] = Field(
        default_factory=list,
        max_length=MAX_TEXT_PATHS,
        description="Where an event's text is; the first path that gives a string wins.",
    )
    text_mode: Literal["delta", "full"] = Field(
        "delta", description="`delta`: each event adds text; `full`: each event has the whole text so far."
    )
    when: dict[JsonPath, str | int | bool] = Field(
        default_factory=dict,
        description="Only events whose values at these paths equal these are read.",
    )
    event: EventName | None = Field(
        None, description="sse: only events of this `event:` name are read (default: all)."
    )
    events: list[EventName] = Field(
        default_factory=list,
        max_length=16,
        description="sse: only events of these `event:` names are read (with `event`: either).",
    )
    patch: PatchSpec | None = Field(
        None,
        description="Events are operations on one document: `text_paths` and `when` read that "
        "document (each time it changes), so state kept across events (which fragment is the "
        "answer, which the thinking) decides what is text. `[?type=RESPONSE]` skips thinking.",
    )

    @model_validator(mode="after")
    def _paths_when_read(self) -> ResponseSpec:
        if self.kind != "dom" and not self.text_paths:
            raise ValueError(f"a `{self.kind}` response needs `text_paths` (where its text is)")
        return self


class Selectors(_Strict):
    """Elements of the chat page, for putting results in and the DOM fallback."""

    input: Selector = Field(description="The message input (textarea or contenteditable).")
    send: Selector | None = Field(None, description="The send button (none: Enter sends).")
    last_answer: Selector = Field(description="The model's answers; the last match is the newest.")


class ChatSite(_Strict):
    """An adapter for one AI chat website."""

    model_config = ConfigDict(title="WebMCP Sidecar chat-site adapter")

    schema_: str | None = Field(None, alias="$schema", description="For editors; ignored.")
    name: Annotated[str, StringConstraints(pattern=NAME_PATTERN)] = Field(
        description="Unique among adapters; the file is `<name>.chat.json`."
    )
    title: Annotated[str, StringConstraints(min_length=1, max_length=128)]
    version: Annotated[str, StringConstraints(min_length=1, max_length=32)]
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION)] = ""
    source: Annotated[str, StringConstraints(min_length=1, max_length=2048)] = Field(
        description="The public reference of the wire format this adapter follows."
    )
    hostnames: list[Hostname] = Field(min_length=1, max_length=MAX_HOSTNAMES)
    request: RequestSpec
    response: ResponseSpec
    selectors: Selectors

    def dump(self) -> dict[str, Any]:
        """As JSON data, the way the extension receives it (no `$schema`)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"schema_"})


def schema_text() -> str:
    schema = ChatSite.model_json_schema(by_alias=True)
    full = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return json.dumps(full, indent=2, ensure_ascii=False) + "\n"
