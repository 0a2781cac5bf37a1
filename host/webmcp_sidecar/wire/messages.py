"""Every message that crosses a process boundary, as pydantic models.

Two links carry them, both as length-prefixed JSON frames (see `native.codec`):
- extension <-> host over native messaging (`ExtensionMessage`, `HostToExtension`);
- host <-> MCP entry over the per-user local socket (`EntryMessage`, `HostToEntry`).

`Call`, `Cancel`, `OpenUrl` and `Result` have the same shape on both links, so the host routes
them by id and forwards the frame's bytes untouched instead of re-encoding them.

The worker's checker of host messages is generated from these models' JSON Schema (gen_schema.py,
into extension/lib/generated/host-messages.js). Keys `x-...` in a field's schema say what it does with
a field beyond checking it: `x-lowercase` lowercases the string; `x-fallback` gives a bad value the
default instead of refusing the message; `x-clamp: N` as well, and floors a number and caps it at
N (null: JS's largest safe integer).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from webmcp_sidecar.wire.constants import (
    CONN_ID_PATTERN,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_MS,
    LINK_TOKEN_PATTERN,
    MAX_TIMEOUT_MS,
    ErrorCode,
)
from webmcp_sidecar.wire.doc_messages import DocAnswer, DocGet, Docs

# A page's tool, its caps and hints: in tool_models.py, re-exported here with the messages.
from webmcp_sidecar.wire.tool_models import (
    Tool as Tool,
)
from webmcp_sidecar.wire.tool_models import (
    ToolAnnotations as ToolAnnotations,
)
from webmcp_sidecar.wire.tool_models import (
    _good_tools,
    _Model,
)
from webmcp_sidecar.wire.tool_models import (
    json_over_limits as json_over_limits,
)
from webmcp_sidecar.wire.tool_models import (
    loggable as loggable,
)
from webmcp_sidecar.wire.tool_models import (
    validation_reason as validation_reason,
)

log = logging.getLogger(__name__)


def _good_sites(sites: Any) -> Any:
    if not isinstance(sites, dict):
        return sites
    return {site: _good_tools(site, tools) for site, tools in sites.items()}


class SiteTools(_Model):
    """A site's whole tool set changed; an empty list means the site has gone.

    `notice`: what the extension cut or ignored of the site (tools over its limits, http tabs
    left out while an https tab is open), in plain words."""

    type: Literal["site_tools"] = "site_tools"
    site: str
    tools: list[Tool]
    notice: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_bad_tools(cls, data: Any) -> Any:
        if isinstance(data, dict) and "tools" in data:
            data = {**data, "tools": _good_tools(data.get("site"), data["tools"])}
        return data


class _SitesSnapshot(_Model):
    """A message carrying every site's tools: a bad tool is dropped (with its reason logged),
    never the message."""

    @model_validator(mode="before")
    @classmethod
    def _drop_bad_tools(cls, data: Any) -> Any:
        if isinstance(data, dict) and "sites" in data:
            data = {**data, "sites": _good_sites(data["sites"])}
        return data


class Registry(_SitesSnapshot):
    """The whole registry: sent on connect, replaces whatever the receiver had.

    `notices`: the `SiteTools.notice` of every site that has one."""

    type: Literal["registry"] = "registry"
    sites: dict[str, list[Tool]] = Field(default_factory=dict)
    notices: dict[str, str] = Field(default_factory=dict)


class Call(_Model):
    """Run `tool` of `site` in the site's newest live tab that has it.

    `id` is unique per host: the entry prefixes it with the connection id it got in `Welcome`.
    """

    type: Literal["call"] = "call"
    id: str = Field(min_length=1)
    site: str = Field(min_length=1, json_schema_extra={"x-lowercase": True})
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    timeout_ms: int = Field(DEFAULT_TIMEOUT_MS, json_schema_extra={"x-clamp": MAX_TIMEOUT_MS})
    max_bytes: int = Field(DEFAULT_MAX_BYTES, json_schema_extra={"x-clamp": None})


class Cancel(_Model):
    type: Literal["cancel"] = "cancel"
    id: str = Field(min_length=1)


class OpenUrl(_Model):
    type: Literal["open_url"] = "open_url"
    id: str = Field(min_length=1)
    url: str


class CallError(_Model):
    code: ErrorCode
    message: str


class Result(_Model):
    """Answer to `Call` / `OpenUrl`. `value` is the page's result as the JSON text it produced."""

    type: Literal["result"] = "result"
    id: str
    ok: bool
    value: str | None = None
    error: CallError | None = None
    tab_id: int | None = None


class Chunk(_Model):
    """One piece of a message too big for one frame (host->browser frames max 1 MiB).

    The pieces of message `cid` are `data` strings that, joined in `seq` order, are its JSON text.
    """

    type: Literal["chunk"] = "chunk"
    cid: str
    seq: int
    last: bool
    data: str


class Ping(_Model):
    type: Literal["ping"] = "ping"
    id: str = Field("", json_schema_extra={"x-fallback": True})


class Pong(_Model):
    type: Literal["pong"] = "pong"
    id: str = Field("", json_schema_extra={"x-fallback": True})


class Hello(_Model):
    """First message from the extension after connectNative."""

    type: Literal["hello"] = "hello"
    extension_version: str
    browser: str = ""
    protocol: int = 1  # `PROTOCOL_VERSION`; the host answers `HostHello` and checks it
    # The extension's own origin (`runtime.getURL("")`): the host Firefox started learns it here
    # (native_host/launch.py); a host Chrome started has it from its argument and ignores this.
    origin: str = ""


class HostHello(_Model):
    """The host's answer to `Hello`: its protocol, so the worker can say plainly when the two do
    not match (and then routes nothing). A host that does not match refuses the extension too."""

    type: Literal["host_hello"] = "host_hello"
    protocol: int
    host_version: str = Field("", json_schema_extra={"x-fallback": True})


class EntryLinkOffer(_Model):
    """entry->host: the loopback WebSocket this entry listens on for the worker (the entry
    link, mcp_server/entry_link.py): the host passes it on as `EntryLink`."""

    type: Literal["entry_link_offer"] = "entry_link_offer"
    port: int = Field(ge=1, le=65535)
    token: str = Field(pattern=LINK_TOKEN_PATTERN)


class EntryLink(_Model):
    """host->browser: open `ws://127.0.0.1:<port>/link/<token>`, an MCP entry's own link; the
    calls on it carry ids that begin with `conn` + "."."""

    type: Literal["entry_link"] = "entry_link"
    conn: str = Field(pattern=CONN_ID_PATTERN)
    port: int = Field(ge=1, le=65535)
    token: str = Field(pattern=LINK_TOKEN_PATTERN)


class Log(_Model):
    """A line the extension wants in the host's log file (errors it cannot show elsewhere)."""

    type: Literal["log"] = "log"
    level: Literal["debug", "info", "warning", "error"] = "info"
    message: str


# --- socket link: MCP entry <-> host -----------------------------------------------------


class EntryHello(_Model):
    type: Literal["entry_hello"] = "entry_hello"
    client: str = ""
    pid: int = 0
    token: str = ""  # the endpoint's token where the link is loopback TCP (Windows)
    protocol: int = 1  # `PROTOCOL_VERSION`; a host that does not match refuses every call


class SessionInfo(_Model):
    """entry->host: who the MCP client is (from its MCP clientInfo), once it has initialized."""

    type: Literal["session_info"] = "session_info"
    client: str


class Session(_Model):
    """host->browser: an MCP session (one entry connection) and its client's name."""

    type: Literal["session"] = "session"
    session: str
    client: str


class SessionEnd(_Model):
    """host->browser: the MCP session is gone (its entry disconnected)."""

    type: Literal["session_end"] = "session_end"
    session: str


class BrowserCall(_Model):
    """entry->host->browser: run browser tool `tool` (e.g. `navigate`, `snapshot`, `click`) for
    MCP session `session` (the entry's `conn`), on that session's current tab. The side panel's
    agent uses session `panel` (the tab the user looks at, or `tab_id` when given). Answered by
    one `Result` whose `value` is JSON text (a string, an object, or MCP content for images)."""

    type: Literal["browser_call"] = "browser_call"
    id: str
    session: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    tab_id: int | None = None  # session `panel` only


class SessionTabs(_Model):
    """browser->host->entry: MCP session `session` now has these tabs (ids; `current` is the one
    its browser tools act on). Sent when the set or the current tab changes."""

    type: Literal["session_tabs"] = "session_tabs"
    session: str
    tabs: list[int] = Field(default_factory=list)
    current: int | None = None


class ChatSiteVerified(_Model):
    """browser->host: adapter `name` made a whole round trip on the live site `host` (a tool
    call caught, run, and its result sent back): the store marks its current text verified."""

    type: Literal["chat_site_verified"] = "chat_site_verified"
    name: Annotated[str, Field(max_length=100)]
    host: Annotated[str, Field(max_length=260)]


class ChatServerCall(_Model):
    """browser->host: for chat site `site`, list the local MCP servers' tools (`op` tools) or call
    `tool` of `server` (`op` call); one `ChatServerResult` of the same `id` answers. The worker
    logs the call with the chat site as the caller."""

    type: Literal["chat_server_call"] = "chat_server_call"
    id: Annotated[str, Field(min_length=1, max_length=100)]
    op: Literal["tools", "call"]
    site: Annotated[str, Field(max_length=260)] = ""
    server: Annotated[str, Field(max_length=200)] | None = None
    tool: Annotated[str, Field(max_length=200)] | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    timeout_ms: Annotated[int, Field(ge=1, le=600_000)] = DEFAULT_TIMEOUT_MS


class ChatServerResult(_Model):
    """host->browser: the answer to `ChatServerCall` `id`: `tools` (server -> its enabled tools
    as MCP `tools/list` gives them), or a call's outcome (`value`: the result's text)."""

    type: Literal["chat_server_result"] = "chat_server_result"
    id: str
    ok: bool
    tools: dict[str, list[dict[str, Any]]] | None = None
    value: str | None = None
    error: CallError | None = None


class Welcome(_SitesSnapshot):
    """The host's answer to `EntryHello`: who it is and what it has now."""

    type: Literal["welcome"] = "welcome"
    host_id: str
    conn: str
    pid: int
    protocol: int = 1  # the host's `PROTOCOL_VERSION` (hosts from before the check spoke 1)
    browser: str = ""
    extension_origin: str = ""
    extension_version: str | None = None
    extension_connected: bool = False
    sites: dict[str, list[Tool]] = Field(default_factory=dict)
    notices: dict[str, str] = Field(default_factory=dict)  # as in `Registry`


class Status(_Model):
    """The extension connected to or left the host."""

    type: Literal["status"] = "status"
    extension_connected: bool
    extension_version: str | None = None
    browser: str = ""
    # As in `Welcome`: an entry that came before Firefox's hello learns it here.
    extension_origin: str = ""


ExtensionMessage = Annotated[
    Hello
    | Registry
    | SiteTools
    | Result
    | Chunk
    | Pong
    | Ping
    | Log
    | SessionTabs
    | DocGet
    | ChatSiteVerified
    | ChatServerCall,
    Field(discriminator="type"),
]
HostToExtension = Annotated[
    Call
    | Cancel
    | OpenUrl
    | Chunk
    | Ping
    | Pong
    | Session
    | SessionEnd
    | BrowserCall
    | HostHello
    | EntryLink
    | Docs
    | ChatServerResult
    | DocAnswer,
    Field(discriminator="type"),
]
EntryMessage = Annotated[
    EntryHello | SessionInfo | Call | Cancel | OpenUrl | Ping | BrowserCall | EntryLinkOffer,
    Field(discriminator="type"),
]
HostToEntry = Annotated[
    Welcome | Registry | SiteTools | Result | Status | Pong | SessionTabs, Field(discriminator="type")
]

_UNIONS: dict[str, Any] = {
    "extension_message": ExtensionMessage,
    "entry_message": EntryMessage,
    "host_to_entry": HostToEntry,
    "host_to_extension": HostToExtension,
}

if TYPE_CHECKING:
    extension_message: TypeAdapter[Any]
    entry_message: TypeAdapter[Any]
    host_to_entry: TypeAdapter[Any]
    host_to_extension: TypeAdapter[Any]


@functools.cache
def _adapter(name: str) -> TypeAdapter[Any]:
    return TypeAdapter(_UNIONS[name])


def __getattr__(name: str) -> Any:
    """`extension_message`, `entry_message`, `host_to_entry`, `host_to_extension`: each union's
    TypeAdapter, made on first use. Making one builds every member's schema (~30 ms for all four
    at host start, issue 14), which a host's first answer does not need."""
    if name in _UNIONS:
        return _adapter(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
