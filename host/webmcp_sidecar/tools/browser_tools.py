"""The browser tools' definitions, as plain data.

Shared by the MCP entry (`mcp_server/browser_tools.py`, which offers them to MCP clients) and the side
panel's agent in the host (`agent/browser.py`, which offers them to the model and runs them
with session `panel`, the tab the user looks at). No MCP SDK here: the host must not load it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PREFIX = "browser_"

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
    # Hands local files to the page: paths checked by `tools/uploads.py`; the panel's agent
    # always asks first, in every mode.
    local_files: bool = False

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
        "Sets the files of file chooser `ref` (<input type=file>) to local files. Only files "
        "inside folders the user allowed for uploads (`webmcp-sidecar uploads allow <folder>`); "
        "never dotfiles, hidden folders, keys or browser data.",
        {"ref": _REF, "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                "maxItems": 32,
                                "description": "absolute paths of files on this computer"}},
        ("ref", "paths"),
        local_files=True,
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
    BrowserTool(
        "skill_draft",
        "Draft a skill from this run",
        "Turns your recent browser calls on your current tab (from call number `from`, counting "
        "this session's browser calls from 1; default: since your last draft) into a skill "
        "draft: one tool, `tool_name`, whose steps repeat the run with selectors recorded as it "
        "happened. Typed text becomes a parameter: `params` names them ({typed text: name}; "
        "others are named after their field). The last page_text (or snapshot of a ref) becomes "
        "the result, unless `extract` says what to read. Returns {skill, notes, ...}; nothing is "
        "installed: save `skill` as <name>.skill.json and run `webmcp-sidecar skills add FILE`.",
        {
            "name": {
                "type": "string",
                "pattern": r"^[a-z0-9][a-z0-9_-]{0,63}$",
                "description": "the skill's name (lower case, digits, - and _)",
            },
            "tool_name": {
                "type": "string",
                "pattern": r"^[A-Za-z0-9_.-]{1,128}$",
                "description": "the name of the skill's tool",
            },
            "description": {
                "type": "string",
                "minLength": 1,
                "maxLength": 8192,
                "description": "what the tool does, for the model that will call it",
            },
            "params": {
                "type": "object",
                "maxProperties": 64,
                "additionalProperties": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"},
                "description": "recorded text (typed or an option chosen) -> parameter name",
            },
            "from": {
                "type": "integer",
                "minimum": 1,
                "description": "the first of your browser calls to use (1 = your first)",
            },
            "extract": {
                "type": "object",
                "additionalProperties": False,
                "required": ["selector"],
                "properties": {
                    "selector": {"type": "string", "minLength": 1, "maxLength": 1024},
                    "attribute": {"type": "string", "minLength": 1},
                    "all": {"type": "boolean"},
                },
                "description": "what the tool returns: a CSS selector's text (or attribute)",
            },
        },
        ("name", "tool_name"),
        read_only=True,
    ),
)

# The tools that hand local files to the page: their `paths` go through `uploads.checked_args`.
LOCAL_FILES = frozenset(t.name for t in TOOLS if t.local_files)
