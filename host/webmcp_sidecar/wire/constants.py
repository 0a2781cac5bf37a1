"""Everything the extension shares with the host, written once.

The Python code imports these; the extension gets them from files made by
`python -m webmcp_sidecar.gen_js` (extension/lib/generated/protocol.js, and classic scripts
for the content scripts, which cannot import modules). The generated files are committed (the
extension needs no build) and tests/unit/test_generated.py fails when one is stale.

Plain data (and the one reader of call ids): no imports from the rest of the package, so anything
may import this.
"""

from __future__ import annotations

from typing import Literal, get_args

# Bump when a message changes shape or meaning. The extension and the host compare it at the
# handshake (`hello` / `host_hello`), the MCP entry and the host at theirs (`entry_hello` /
# `welcome`); on a mismatch neither side routes calls, and both say how to fix it.
PROTOCOL_VERSION = 2

# --- names ---------------------------------------------------------------------------------
HOST_NAME = "io.webmcp.sidecar"  # the native-messaging host the installer registers
PAGE_PORT_NAME = "webmcp-page"  # content script <-> service worker, one port per frame
PANEL_PORT_NAME = "webmcp-panel"  # side panel <-> service worker
CHAT_PORT_NAME = "webmcp-chat"  # a chat site's isolated world <-> service worker (docs/CHAT_SITES.md)
# The side panel's own browser session (`browser_call.session`): the tab in view, any tab id;
# never an MCP entry's.
PANEL_SESSION = "panel"

# --- call ids --------------------------------------------------------------------------------
# A call's id is `<caller>.<rest>`: the caller (the part before the first dot) says who made it;
# the host's router sends a result by it, and an entry link admits only its own entry's calls
# (the worker sends a result back by the reply its call carries, not by the id). The host's own
# calls (the side panel's agent) `h.`, the Inspector's `p.` and chat sites' `c.` (both the
# worker's own), the host's calls of local MCP servers `s.` (only in `agent_server_call`); an
# MCP entry's `<conn>.`, conn = its connection id (`welcome.conn`: "c" and a number).
CALL_ID_SEP = "."
CALLER_AGENT = "h"
CALLER_INSPECTOR = "p"
CALLER_CHAT = "c"
CALLER_SERVER = "s"
CONN_ID_PREFIX = "c"
CONN_ID_PATTERN = r"^c[0-9]{1,12}$"


def call_prefix(call_id: str) -> str:
    """The caller part of a call id ("" when it has none)."""
    caller, sep, _ = call_id.partition(CALL_ID_SEP)
    return caller if sep else ""


# A call that ran out of time, in the same words wherever one is timed out (content script,
# worker, entry, agent): `who` did not answer (the page, the browser, a skill tool, ...).
TIMEOUT_TEXT = "{who} did not answer within {seconds} s."


def timeout_text(who: str, ms: float) -> str:
    """TIMEOUT_TEXT for a limit of `ms` (whole seconds, else one decimal: as gen_js's JS)."""
    s = ms / 1000
    return TIMEOUT_TEXT.format(who=who, seconds=str(int(s)) if s == int(s) else f"{s:.1f}")


# A failed call that says nothing of why (a page that rejected with nothing): what every side
# puts in its place (the worker, the MCP entry, the side panel's agent).
NO_REASON_TEXT = "The tool failed without saying why."


# --- frames (native messaging and the local socket) ----------------------------------------
MiB = 1024 * 1024
# Chrome kills the native port on a bigger host->browser frame: the host splits (`chunk`).
MAX_TO_BROWSER = 1 * MiB
# Chrome refuses browser->host frames over 64 MiB; the worker splits above half of it.
MAX_FROM_BROWSER = 64 * MiB
BROWSER_TO_HOST_SPLIT = 32 * MiB
MAX_SOCKET_FRAME = 256 * MiB
# The largest message either side joins back from chunks.
MAX_REASSEMBLED = 256 * MiB
# A result longer than this (UTF-16 units) travels in pieces of this size on both of Chromium's
# hops: content script -> worker (`result_part`, then the `result` with the rest) and worker ->
# host (`chunk`s on the native port). Chromium's messaging overlaps small messages across its
# processes, where one 5 MiB message takes two to three times as long (bench/README.md, "A long
# result in parts": content script -> worker 31 ms in parts against 91 whole, worker -> host 29
# against 58-65). Speed only: drop it when one message is within 10 ms of the parts there.
RESULT_PART_CHARS = 64 * 1024

# --- loopback links (wire/link_server.py; the worker's end: background/loopback-link.js) --------
# The worker opens `ws://LINK_HOST:<port>LINK_PATH_PREFIX<token>`, port and token from an offer
# (`entry_link`). A token is `secrets.token_urlsafe(32)` (43 characters); the pattern bounds what
# either side accepts, and keeps it to characters a URL path carries as they are.
LINK_HOST = "127.0.0.1"
LINK_PATH_PREFIX = "/link/"
LINK_TOKEN_PATTERN = r"^[A-Za-z0-9_-]{32,128}$"
# The largest frame a link server takes from the worker: a result of RESULT_PART_CHARS UTF-16
# units (the most the worker sends whole on a link) is at most 3 bytes a unit in UTF-8, plus its
# envelope.
MAX_LINK_FRAME = 1 * MiB
assert MAX_LINK_FRAME > 3 * RESULT_PART_CHARS + 4096, "a whole result part fits a link frame"
# A call bigger than this (its JSON, bytes) takes the host instead of the entry's link (which
# splits it for native messaging if need be).
MAX_LINK_CALL_BYTES = 512 * 1024

# --- what a page may put into the chain (the extension cuts, the host checks again) ---------
# Nesting of objects/arrays in one tool's inputSchema, outputSchema or annotations; the value
# itself is level 1. Deeper data breaks JSON encoders (pydantic's stops at ~254 levels).
MAX_SCHEMA_DEPTH = 32
# Compact JSON (UTF-8) of one tool's inputSchema, and separately of its annotations.
MAX_SCHEMA_BYTES = 64 * 1024
# Tools one frame may report (the rest are dropped) and one site may offer (the rest are cut,
# and the site says so).
MAX_TOOLS_PER_FRAME = 256
MAX_TOOLS_PER_SITE = 256
# Compact JSON (UTF-8) of all of one site's tool definitions together (and of one frame's).
MAX_SITE_BYTES = 1 * MiB
# A tool's description and title are cut to these many characters.
MAX_DESCRIPTION = 8 * 1024
MAX_TITLE = 256
# `site_tools` per site, limited by what they cost every MCP client (each update is a
# list_changed and a tools/list): a bucket of BURST tokens, one back per INTERVAL; an update takes
# one token per started TOKEN_CHARS of its JSON. Small changes flow at 40 a second (a page's tool
# change reaches clients in milliseconds); a full 1 MiB site goes at most every ~1.6 s. The last
# state always goes.
SITE_UPDATE_BURST = 64
SITE_UPDATE_INTERVAL_MS = 25
SITE_UPDATE_TOKEN_CHARS = 16 * 1024

# WebMCP's own rule for tool names (a JS RegExp source as well as a Python one).
TOOL_NAME_PATTERN = r"^[A-Za-z0-9_.\-]{1,128}$"
ToolSource = Literal["native", "polyfill", "legacy", "declarative", "skill", "browser"]
TOOL_SOURCES: tuple[str, ...] = get_args(ToolSource)

# --- what looks secret (servers/redact.py in the host, lib/secret-text.js in the extension) ----
# A name whose value is secret (env, header, query parameter, flag); case-insensitive.
SECRET_NAME_PATTERN = r"key|token|secret|passw|pwd|credential|auth|cookie|session|private|dsn"
# Query parameters that carry secrets under short names (besides SECRET_NAME_PATTERN's).
SECRET_QUERY_NAME_PATTERN = r"^(?:sig|signature|code|pw|pass|p|otp|nonce)$"
# Well-known token shapes: OpenAI/Anthropic, Stripe, Slack, GitHub, GitLab, AWS keys, npm, Hugging
# Face, Google API keys and OAuth tokens, JWTs (case-sensitive).
TOKEN_PREFIX_PATTERN = (
    r"^(?:sk-|sk_live_|sk_test_|rk_live_|pk_live_|xox[abposr]-|xapp-|ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|"
    r"glpat-|AKIA|ASIA|npm_|hf_|AIza|ya29\.|eyJ)[A-Za-z0-9_\-.+/=]{8,}$"
)
# A random-looking token: a run of this many letters and digits at least, mixed, with at least
# this many bits of entropy per character (words, names, versions and UUIDs fall short).
TOKEN_MIN_RUN = 20
TOKEN_MIN_ENTROPY = 3.5

# --- calls ---------------------------------------------------------------------------------
DEFAULT_TIMEOUT_MS = 60_000
# A site call may not ask for more than a day (anything longer is a bug upstream); a browser
# tool call, ten minutes.
MAX_TIMEOUT_MS = 24 * 3600 * 1000
MAX_BROWSER_TIMEOUT_MS = 10 * 60_000
DEFAULT_MAX_BYTES = 16 * MiB

# --- errors: `result.error.code`, stable; each with what it means in plain words ------------
ErrorCode = Literal[
    "no_extension",
    "no_tab",
    "not_found",
    "invalid_args",
    "page_error",
    "timeout",
    "cancelled",
    "too_large",
    "tab_closed",
    "bad_request",
    "internal",
]
ERROR_TEXTS: dict[ErrorCode, str] = {
    "no_extension": "The browser is not connected to the host.",
    "no_tab": "No tab of the site is open.",
    "not_found": "There is no such tool (or element) now.",
    "invalid_args": "The arguments are not what the tool accepts.",
    "page_error": "The page's tool failed.",
    "timeout": "The page did not answer in time.",
    "cancelled": "The call was cancelled.",
    "too_large": "The result is larger than allowed.",
    "tab_closed": "The tab running the call was closed before the tool answered.",
    "bad_request": "The request was malformed or not allowed.",
    "internal": "WebMCP Sidecar failed.",
}
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
assert set(ERROR_TEXTS) == set(ERROR_CODES), "every error code has its text"


# On a protocol mismatch: the panel's status, both logs, and what MCP clients are told.
VERSION_MISMATCH = (
    "The extension (protocol {extension}) and the host (protocol {host}) don't match: "
    "update/reinstall the host with `webmcp-sidecar install` or update the extension."
)
ENTRY_MISMATCH = (
    "The MCP server (protocol {entry}) and the browser's host (protocol {host}) don't match: "
    "they come from different versions of WebMCP Sidecar. Reinstall it (`webmcp-sidecar "
    "install`), then restart the browser and the MCP client."
)


# --- the side panel's messages (models in agent/panel_messages.py, wire/doc_messages.py) -----
PANEL_TYPES = (
    "panel_hello", "panel_settings", "panel_key", "panel_chat", "panel_stop", "panel_confirm",
    "panel_open", "panel_new", "panel_delete", "panel_doc", "panel_servers",
)  # fmt: skip
AGENT_TYPES = (
    "agent_state", "agent_keys", "agent_conversation", "agent_event", "agent_error",
    "agent_servers", "agent_server_call",
)  # fmt: skip
# The user's documents (documents/kinds.py): `panel_doc` names a kind, and one `doc_answer` of
# that kind answers it (the documents plugin, native_host/doc_link.py, which knows the kinds).
DOCS_PANEL_TYPES = ("panel_doc",)
DOC_KIND_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
# Panel messages the local servers plugin handles (native_host/servers_link.py), not the agent.
SERVERS_PANEL_TYPES = ("panel_servers",)
# Panel messages the side panel's agent handles (agent/hook.py): the rest.
AGENT_PANEL_TYPES = tuple(t for t in PANEL_TYPES if t not in (*DOCS_PANEL_TYPES, *SERVERS_PANEL_TYPES))
