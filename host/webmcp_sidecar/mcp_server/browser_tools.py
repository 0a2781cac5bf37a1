"""Browser tools as MCP tools: tabs, navigate, snapshot, act by ref, read,
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
import weakref
from typing import Any

import anyio
from mcp import types

from webmcp_sidecar.mcp_server.config import EntryConfig
from webmcp_sidecar.mcp_server.hosts import HostGone, HostLink, HostPool
from webmcp_sidecar.mcp_server.results import error_result, to_call_result
from webmcp_sidecar.mcp_server.site_tools import META
from webmcp_sidecar.texts import NO_BROWSER
from webmcp_sidecar.tools import uploads
from webmcp_sidecar.tools.browser_tools import TOOLS, BrowserTool
from webmcp_sidecar.tools.validation import check_arguments, schema_key
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.constants import timeout_text

log = logging.getLogger(__name__)

DEFAULT_CLIENT = "MCP client"


def mcp_tool(t: BrowserTool) -> types.Tool:
    return types.Tool(
        name=t.mcp_name,
        title=t.title,
        description=t.description,
        input_schema=t.input_schema,
        annotations=types.ToolAnnotations(
            read_only_hint=t.read_only,
            destructive_hint=False if t.read_only else None,
            open_world_hint=True,
        ),
        _meta={META + "source": "browser", META + "tool": t.name},
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
        return [mcp_tool(t) for t in TOOLS if page or not t.needs_page]

    async def call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        tool = BY_MCP_NAME[name]
        problem = check_arguments(_SCHEMAS[name], args)
        if problem:
            return error_result(f"{problem}\nThe tool's input schema: {_SCHEMAS[name]}")
        if tool.local_files:
            try:
                # Resolved paths go on: a link swapped after the check changes nothing.
                args = await anyio.to_thread.run_sync(uploads.checked_args, args)
            except uploads.UploadRefused as e:
                return error_result(str(e))
        link = self.link()
        if link is None or link.welcome is None:
            problem = self.pool.problem  # e.g. a host of another protocol, which refuses calls
            return error_result(f"{problem}\n\n{NO_BROWSER}" if problem else NO_BROWSER)
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
            return error_result(timeout_text(f"The browser ({name})", self.config.timeout_s * 1000))
        except HostGone:
            return error_result(
                f"The browser disconnected while {name} ran (closed or restarted?). "
                "Browser tools come back when it reconnects."
            )
        return to_call_result(result, self.config.max_result_bytes)

