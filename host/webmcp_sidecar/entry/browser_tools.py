"""Browser tools as MCP tools (PRODUCT.md section 6): tabs, navigate, snapshot, act by ref, read,
screenshot, for any site, driven by the extension (chrome.debugger and page scripts).

Each MCP session (this entry's connection to a host, `welcome.conn`) works in its own tabs, which
the browser groups and names after the MCP client (`session_info` tells the host the name). The
offer follows the context: with no browser there are none; with a browser but no tab of this
session, only the tools that open or pick one; once the session has a tab (the browser's
`session_tabs` says so), the page tools too, announced by `list_changed`.

The definitions are plain data so the side panel's agent can offer the same tools (it calls them
with session `panel`, meaning the tab the user is looking at).
"""

from __future__ import annotations

import logging
import os
import weakref
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types

from ..protocol import messages as m
from .config import EntryConfig
from .hosts import HostGone, HostLink, HostPool
from .results import error_result, to_call_result
from .validation import check_arguments, schema_key

log = logging.getLogger(__name__)

PREFIX = "browser_"
META = "io.webmcp.sidecar/"
DEFAULT_CLIENT = "MCP client"

NO_BROWSER = (
    "No browser is connected to WebMCP Sidecar, so browser tools cannot run. Open Chrome (or "
    "Edge, Brave, Chromium) with the WebMCP Sidecar extension enabled; if it is open, run "
    "`webmcp-sidecar doctor` in a terminal to see what is wrong."
)

_REF = {
    "type": "string",
    "pattern": r"^e\d+$",
    "description": "an element ref from browser_snapshot, e.g. e12",
}


@dataclass(frozen=True)
class BrowserTool:
    name: str  # on the wire (`browser_call.tool`); the MCP name is `browser_<name>`
    title: str
    description: str
    properties: dict[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    needs_page: bool = True  # offered only once the session has a tab
    read_only: bool = False

    @property
    def mcp_name(self) -> str:
        return PREFIX + self.name

    @property
    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": self.properties,
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def mcp_tool(self) -> types.Tool:
        return types.Tool(
            name=self.mcp_name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            annotations=types.ToolAnnotations(
                read_only_hint=self.read_only,
                destructive_hint=False if self.read_only else None,
                open_world_hint=True,
            ),
            _meta={META + "source": "browser", META + "tool": self.name},
        )


TOOLS: tuple[BrowserTool, ...] = (
    BrowserTool(
        "tabs",
        "List browser tabs",
        "Lists the browser's open tabs: id, title, url, whether active, and owner ('you' for "
        "this session's tabs, another MCP session's name, or null for the user's). Browser tools "
        "act on your current tab; `current` says which.",
        needs_page=False,
        read_only=True,
    ),
    BrowserTool(
        "navigate",
        "Open a URL",
        "Loads `url` in your current tab (a new tab in your tab group if you have none) and "
        "waits for it to load. Reuses your tab instead of opening one per page.",
        {"url": {"type": "string", "description": "http(s) or file URL; 'example.com' works"}},
        ("url",),
        needs_page=False,
    ),
    BrowserTool(
        "tab_open",
        "Open a new tab",
        "Opens a new tab in your tab group (loading `url` if given) and makes it your current "
        "tab. Prefer browser_navigate, which reuses your tab.",
        {"url": {"type": "string", "description": "http(s) or file URL to load"}},
        needs_page=False,
    ),
    BrowserTool(
        "tab_select",
        "Switch to a tab",
        "Makes tab `tab_id` your current tab (browser tools then act on it) and brings it to the "
        "front. A tab of the user becomes yours; a tab of another MCP session needs "
        "take_over: true.",
        {
            "tab_id": {"type": "integer", "description": "an id from browser_tabs"},
            "take_over": {"type": "boolean", "description": "take another session's tab"},
        },
        ("tab_id",),
        needs_page=False,
    ),
    BrowserTool(
        "tab_close",
        "Close a tab",
        "Closes one of your tabs: `tab_id`, or your current tab.",
        {"tab_id": {"type": "integer", "description": "an id from browser_tabs"}},
    ),
    BrowserTool("back", "Go back", "Goes back one page in your tab's history and waits for it."),
    BrowserTool("forward", "Go forward", "Goes forward one page in your tab's history."),
    BrowserTool("reload", "Reload", "Reloads your tab's page and waits for it to load."),
    BrowserTool(
        "snapshot",
        "Outline the page",
        "A compact outline of your tab's page, one line per element, with a ref like [e12] for "
        "each to act on (click, type...). By default only what can be acted on, with headings "
        "and landmarks for context; interactive: false shows everything, text too. Refs stay "
        "valid until the page changes: after a navigation, take a new snapshot. A long outline "
        "comes in pages (`page`); or outline one part with `ref`.",
        {
            "interactive": {"type": "boolean", "description": "only actionable elements (default true)"},
            "ref": {**_REF, "description": "outline only inside this element"},
            "depth": {"type": "integer", "minimum": 1, "description": "nesting levels to show"},
            "max_chars": {"type": "integer", "minimum": 200, "maximum": 200000,
                          "description": "characters per page of the outline (default 12000)"},
            "page": {"type": "integer", "minimum": 1, "description": "which page of a long outline"},
        },
        read_only=True,
    ),
    BrowserTool(
        "click",
        "Click an element",
        "Clicks element `ref` (from browser_snapshot) like a user: scrolls it into view and "
        "clicks its centre. Says if the page navigated.",
        {
            "ref": _REF,
            "button": {"type": "string", "enum": ["left", "right", "middle"]},
            "double": {"type": "boolean", "description": "double-click"},
        },
        ("ref",),
    ),
    BrowserTool(
        "type",
        "Type into a field",
        "Types `text` into text field `ref`, replacing what it holds (clear: false appends); "
        "submit: true presses Enter afterwards.",
        {
            "ref": _REF,
            "text": {"type": "string"},
            "submit": {"type": "boolean", "description": "press Enter after typing"},
            "clear": {"type": "boolean", "description": "replace the field's text (default true)"},
        },
        ("ref", "text"),
    ),
    BrowserTool(
        "press_key",
        "Press a key",
        "Presses a key or combination (e.g. Enter, Escape, Tab, ArrowDown, Control+A) in the "
        "focused element, or in `ref` after focusing it.",
        {"key": {"type": "string"}, "ref": _REF},
        ("key",),
    ),
    BrowserTool(
        "select_option",
        "Choose in a drop-down",
        "Chooses option(s) of drop-down list `ref` by label or value.",
        {"ref": _REF, "values": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        ("ref", "values"),
    ),
    BrowserTool(
        "hover",
        "Hover over an element",
        "Moves the pointer over element `ref` (menus and tooltips that open on hover).",
        {"ref": _REF},
        ("ref",),
    ),
    BrowserTool(
        "scroll",
        "Scroll",
        "Scrolls element `ref` into view, or scrolls the page (or inside `ref`) in `direction` "
        "by `amount` screens.",
        {
            "ref": _REF,
            "direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
            "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 100,
                       "description": "screens to scroll (default 1)"},
        },
    ),
    BrowserTool(
        "upload_file",
        "Upload files",
        "Sets the files of file chooser `ref` (<input type=file>) to local files.",
        {"ref": _REF, "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                "description": "absolute paths of files on this computer"}},
        ("ref", "paths"),
    ),
    BrowserTool(
        "wait_for",
        "Wait for the page",
        "Waits until `text` appears on the page (gone: true: disappears), element `ref` becomes "
        "visible (or gone), or with navigation: true until a navigation has loaded; at most "
        "`timeout_s` seconds (default 10).",
        {
            "text": {"type": "string", "minLength": 1},
            "ref": _REF,
            "gone": {"type": "boolean"},
            "navigation": {"type": "boolean"},
            "timeout_s": {"type": "number", "minimum": 0, "maximum": 600},
        },
        read_only=True,
    ),
    BrowserTool(
        "page_text",
        "Read the page's text",
        "The readable text of your tab's page (its main content when it marks one), in pages "
        "of `max_chars` characters (default 10000); `page` picks one; `ref` reads inside one "
        "element only.",
        {
            "page": {"type": "integer", "minimum": 1},
            "max_chars": {"type": "integer", "minimum": 500, "maximum": 100000},
            "ref": _REF,
        },
        read_only=True,
    ),
    BrowserTool(
        "screenshot",
        "Take a screenshot",
        "A picture of your tab: the visible part, the full page (full_page: true) or one "
        "element (`ref`); JPEG (default) or PNG, scaled down to `max_width` pixels (default "
        "1280).",
        {
            "full_page": {"type": "boolean"},
            "ref": _REF,
            "format": {"type": "string", "enum": ["jpeg", "png"]},
            "quality": {"type": "integer", "minimum": 1, "maximum": 100, "description": "JPEG only"},
            "max_width": {"type": "integer", "minimum": 100, "maximum": 8000},
        },
        read_only=True,
    ),
)

BY_MCP_NAME: dict[str, BrowserTool] = {t.mcp_name: t for t in TOOLS}
_SCHEMAS: dict[str, str | None] = {t.mcp_name: schema_key(t.input_schema) for t in TOOLS}


def client_name(ctx: Any) -> str | None:
    """The MCP client's own name (`clientInfo.name`), when it gave one."""
    try:
        params = ctx.session.client_params
    except AttributeError:
        return None
    name = params.client_info.name if params is not None else None
    return name.strip() or None if isinstance(name, str) else None


class BrowserSide:
    """This entry's browser tools: which to offer, running them, telling hosts who we are."""

    def __init__(self, pool: HostPool, config: EntryConfig) -> None:
        self.pool = pool
        self.config = config
        self.client: str | None = None
        self._told: weakref.WeakSet[HostLink] = weakref.WeakSet()

    def note_client(self, name: str | None) -> None:
        """The MCP client said who it is: hosts name this session's tab group after it."""
        if name and name != self.client:
            self.client = name
            self._told.clear()
            self.sync()

    def sync(self) -> None:
        """Introduces this session to every browser that has not heard of it yet (new hosts,
        a browser that connected to its host after us)."""
        if self.client is None:
            return
        for link in list(self.pool.links.values()):
            if not link.extension_connected:
                self._told.discard(link)
            elif link not in self._told and link.welcome is not None:
                link.notify(m.SessionInfo(client=self.client).model_dump())
                self._told.add(link)

    def link(self) -> HostLink | None:
        """The browser browser tools act in: the most recently connected one."""
        links = self.pool.connected_browsers()
        return links[-1] if links else None

    def has_page(self) -> bool:
        link = self.link()
        return bool(link is not None and link.session_tabs is not None and link.session_tabs.tabs)

    def tools(self) -> list[types.Tool]:
        if self.link() is None:
            return []
        page = self.has_page()
        return [t.mcp_tool() for t in TOOLS if page or not t.needs_page]

    async def call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        tool = BY_MCP_NAME[name]
        problem = check_arguments(_SCHEMAS[name], args)
        if problem:
            return error_result(f"{problem}\nThe tool's input schema: {_SCHEMAS[name]}")
        if tool.name == "upload_file":
            bad = _missing_files(args["paths"])
            if bad:
                return error_result(bad)
        link = self.link()
        if link is None or link.welcome is None:
            return error_result(NO_BROWSER)
        if link not in self._told:
            self.note_client(self.client or DEFAULT_CLIENT)
        call = m.BrowserCall(
            id="",
            session=link.welcome.conn,
            tool=tool.name,
            args=args,
            timeout_ms=int(self.config.timeout_s * 1000),
        ).model_dump(exclude_none=True)
        try:
            # The browser enforces the timeout itself; ours is the backstop if it cannot answer.
            with anyio.fail_after(self.config.timeout_s + 2):
                result = await link.request(call)
        except TimeoutError:
            return error_result(f"The browser did not answer {name} within {self.config.timeout_s:g} s.")
        except HostGone:
            return error_result(
                f"The browser disconnected while {name} ran (closed or restarted?). "
                "Browser tools come back when it reconnects."
            )
        return to_call_result(result, self.config.max_result_bytes)


def _missing_files(paths: list[str]) -> str | None:
    for p in paths:
        if not os.path.isabs(p):
            return f"`{p}` is not an absolute path; give each file's full path on this computer."
        if not os.path.isfile(p):
            return f"There is no file at `{p}` on this computer."
    return None
