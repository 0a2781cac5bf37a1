"""The panel protocol: side panel <-> service worker <-> host, as pydantic models.

The panel talks to the service worker over a `chrome.runtime` port (`webmcp-panel`); the worker
relays `panel_*` messages to the host over the native link unchanged and hands every `agent_*`
message from the host to the open panels. The key in `panel_key` travels once, panel -> host;
nothing the host sends ever carries it (only "set" / "unset").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter

from webmcp_sidecar.agent.settings import Settings

# The type lists are written once in wire/constants.py (the hook and the extension use them);
# tests/unit/test_generated.py checks them against the models below.
from webmcp_sidecar.wire.constants import AGENT_TYPES as AGENT_TYPES
from webmcp_sidecar.wire.constants import PANEL_TYPES as PANEL_TYPES
from webmcp_sidecar.wire.doc_messages import DocAnswer as DocAnswer
from webmcp_sidecar.wire.doc_messages import PanelDoc as PanelDoc


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


# --- panel -> host ---------------------------------------------------------------------------


class PanelHello(_Model):
    """A panel opened: answer with the whole `agent_state`."""

    type: Literal["panel_hello"] = "panel_hello"


class PanelSettings(_Model):
    type: Literal["panel_settings"] = "panel_settings"
    settings: Settings


class PanelKey(_Model):
    """Store (`key` set) or delete (`key` null) the API key of a provider profile."""

    type: Literal["panel_key"] = "panel_key"
    provider: Annotated[str, Field(pattern=r"^[a-z0-9_-]{1,40}$")]
    key: SecretStr | None = None


class TabInfo(_Model):
    id: int | None = None
    url: str = ""
    title: str = ""


class PanelChat(_Model):
    """The user's message. `site` is the site of the tab the panel follows (its tools are used)."""

    type: Literal["panel_chat"] = "panel_chat"
    conversation_id: str | None = None
    text: Annotated[str, Field(min_length=1, max_length=50_000)]
    site: str | None = None
    tab: TabInfo | None = None
    # The local MCP servers in play in this conversation (the panel keeps the choice per
    # conversation): None = every enabled server, [] = none.
    servers: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=200)] | None = None


class PanelStop(_Model):
    type: Literal["panel_stop"] = "panel_stop"
    turn_id: str | None = None  # None: whatever runs


class PanelConfirm(_Model):
    """The user's answer to a confirm card: Run (`run` true) or Deny."""

    type: Literal["panel_confirm"] = "panel_confirm"
    turn_id: str
    call_id: str
    run: bool


class PanelOpen(_Model):
    type: Literal["panel_open"] = "panel_open"
    conversation_id: str


class PanelNew(_Model):
    type: Literal["panel_new"] = "panel_new"


class PanelDelete(_Model):
    """Delete one conversation, or all of them (`conversation_id` null)."""

    type: Literal["panel_delete"] = "panel_delete"
    conversation_id: str | None = None


class PanelServers(_Model):
    """The Servers view and the Inspector use the user's local MCP servers (docs/SERVERS.md); one
    `agent_servers` answers. `list`: their status; `tools`: their enabled tools (starts them);
    `enable`/`disable`: a server, or one of its tools (`tool`); `restart`; `call`: run `tool` of
    `server` with `args` by hand (the Inspector). Handled by the host's servers plugin
    (native_host/servers_link.py), not by the agent."""

    type: Literal["panel_servers"] = "panel_servers"
    id: Annotated[str, Field(min_length=1, max_length=100)]
    op: Literal["list", "tools", "enable", "disable", "restart", "call"]
    server: Annotated[str, Field(max_length=40)] | None = None
    tool: Annotated[str, Field(max_length=256)] | None = None
    args: dict[str, Any] | None = None


PanelMessage = Annotated[
    PanelHello | PanelSettings | PanelKey | PanelChat | PanelStop | PanelConfirm | PanelOpen
    | PanelNew | PanelDelete | PanelDoc | PanelServers,
    Field(discriminator="type"),
]
panel_message: TypeAdapter[PanelMessage] = TypeAdapter(PanelMessage)

# --- conversation items (what the panel shows) ------------------------------------------------


class UserItem(_Model):
    kind: Literal["user"] = "user"
    text: str


class AssistantItem(_Model):
    kind: Literal["assistant"] = "assistant"
    text: str


class ToolItem(_Model):
    """One tool call and its outcome. `value` is the tool's result text (capped for display)."""

    kind: Literal["tool"] = "tool"
    call_id: str
    tool: str
    site: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    read_only: bool = False
    state: Literal["running", "confirm", "done", "error", "denied"] = "running"
    value: str | None = None
    error: str | None = None
    ms: float | None = None


class NoticeItem(_Model):
    kind: Literal["notice"] = "notice"
    text: str
    level: Literal["info", "error"] = "info"


ChatItem = Annotated[UserItem | AssistantItem | ToolItem | NoticeItem, Field(discriminator="kind")]


class ConversationSummary(_Model):
    id: str
    title: str
    updated: float


class ConversationView(_Model):
    id: str
    title: str
    items: list[ChatItem] = Field(default_factory=list)


# --- agent events (one turn, streamed as it happens) -----------------------------------------


class TurnStart(_Model):
    kind: Literal["turn_start"] = "turn_start"
    text: str
    site: str | None = None
    tools: int = 0


class TextDelta(_Model):
    kind: Literal["text"] = "text"
    text: str


class ToolCallEvent(_Model):
    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    tool: str
    site: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    read_only: bool = False


class ConfirmEvent(_Model):
    """A call waits for the user's Run / Deny."""

    kind: Literal["confirm"] = "confirm"
    call_id: str
    reason: Annotated[str, Field(max_length=2000)] | None = None  # why this call is asked about


class ToolResultEvent(_Model):
    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    ok: bool
    value: str | None = None
    error: str | None = None
    denied: bool = False
    ms: float | None = None


class ProgressEvent(_Model):
    """A running tool's progress (a local MCP server's `notifications/progress`), for its card."""

    kind: Literal["progress"] = "progress"
    call_id: str
    progress: float
    total: float | None = None
    message: Annotated[str, Field(max_length=500)] | None = None


class NoticeEvent(_Model):
    kind: Literal["notice"] = "notice"
    text: str


class ErrorEvent(_Model):
    kind: Literal["error"] = "error"
    code: str
    message: str


class TurnStats(_Model):
    """Where the turn's time went (ms): the model's streams, the tools, and the agent itself."""

    model_ms: float = 0.0
    tool_ms: float = 0.0
    overhead_ms: list[float] = Field(default_factory=list)  # per tool step, model and tool excluded


class TurnEnd(_Model):
    kind: Literal["turn_end"] = "turn_end"
    reason: Literal["done", "stopped", "error", "limit", "timeout"]
    stats: TurnStats = Field(default_factory=TurnStats)


AgentEventBody = Annotated[
    TurnStart | TextDelta | ToolCallEvent | ConfirmEvent | ToolResultEvent | ProgressEvent
    | NoticeEvent | ErrorEvent | TurnEnd,
    Field(discriminator="kind"),
]

# --- host -> panel ---------------------------------------------------------------------------


class ProviderInfo(_Model):
    """A provider preset as the settings form shows it."""

    id: str
    label: str
    kind: Literal["openai", "anthropic"]
    base_url: str
    model: str
    needs_key: bool
    note: str = ""


class KeyringStatus(_Model):
    ok: bool
    message: str = ""


class AgentState(_Model):
    type: Literal["agent_state"] = "agent_state"
    settings: Settings
    providers: list[ProviderInfo]
    keys: dict[str, bool]  # provider -> a key is stored; never the key
    keyring: KeyringStatus
    conversations: list[ConversationSummary]
    conversation: ConversationView | None = None
    running: str | None = None  # the turn id that runs, if any


class AgentKeys(_Model):
    type: Literal["agent_keys"] = "agent_keys"
    keys: dict[str, bool]
    keyring: KeyringStatus
    changed: str | None = None


class AgentConversation(_Model):
    type: Literal["agent_conversation"] = "agent_conversation"
    conversation: ConversationView
    conversations: list[ConversationSummary]


class AgentEvent(_Model):
    type: Literal["agent_event"] = "agent_event"
    conversation_id: str
    turn_id: str
    event: AgentEventBody


class ServerInfo(_Model):
    """One configured local MCP server as the Servers view shows it."""

    name: str
    kind: Literal["stdio", "http", "sse"]
    enabled: bool
    state: str  # stopped, starting, running, crashed, failed
    tools: int = 0
    last_error: str | None = None  # plain words
    disabled_tools: list[str] = Field(default_factory=list)


class ServerCallOutcome(_Model):
    """An Inspector call's outcome, shaped like a page call's `result` (`value` is the
    CallToolResult as JSON text)."""

    ok: bool
    value: str | None = None
    error: dict[str, str] | None = None  # {code, message}
    ms: float | None = None


class AgentServers(_Model):
    """The answer to `panel_servers` `id`, or (no `id`) the servers' state pushed when it changed:
    `servers` (list and every change), `tools` (server -> its enabled tools as MCP `tools/list`
    gives them), `result` (call)."""

    type: Literal["agent_servers"] = "agent_servers"
    id: str | None = None
    ok: bool = True
    servers: list[ServerInfo] | None = None
    tools: dict[str, list[dict[str, Any]]] | None = None
    result: ServerCallOutcome | None = None
    error: str | None = None
    config: str | None = None  # where servers.json is


class AgentServerCall(_Model):
    """A call of a local server's tool, for the operation log (the worker's panel-bridge.js keeps
    it; no panel needs to be open): `start` with its arguments, then `end` with its outcome."""

    type: Literal["agent_server_call"] = "agent_server_call"
    id: str  # `s.N`
    phase: Literal["start", "end"]
    caller: Literal["agent", "inspector"]
    server: str
    tool: str
    args: dict[str, Any] | None = None
    ok: bool | None = None
    value: str | None = None  # the result text, cut
    error: dict[str, str] | None = None  # {code, message}
    ms: float | None = None


class AgentError(_Model):
    """A panel request that could not be done: plain language, and what to do."""

    type: Literal["agent_error"] = "agent_error"
    about: Literal["settings", "key", "chat", "conversation", "request"]
    message: str
