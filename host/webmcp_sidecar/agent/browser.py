"""Browser tools for the side panel's agent: the same tools MCP clients get
(`tools/browser_tools.py`), run as session `panel` on the tab the user is looking at.

Tab management (list, open, select, close) is left out: the panel's agent works on the user's
tab, which the user chose; it may still navigate it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from webmcp_sidecar.agent.toolset import Target, ToolFailed, ToolSpec
from webmcp_sidecar.tools import uploads
from webmcp_sidecar.tools.browser_tools import LOCAL_FILES, TOOLS
from webmcp_sidecar.wire.constants import PANEL_SESSION

if TYPE_CHECKING:
    from webmcp_sidecar.agent.port import HostPort

_NOT_FOR_PANEL = frozenset({"tabs", "tab_open", "tab_select", "tab_close"})


class BrowserToolProvider:
    def __init__(self, host: HostPort) -> None:
        self.host = host

    def specs(self, target: Target) -> list[ToolSpec]:
        if target.tab_id is None or not self.host.extension_connected:
            return []
        return [
            ToolSpec(name=t.mcp_name, description=t.description, parameters=t.input_schema,
                     read_only=t.read_only, site=None, tool=t.name, origin="browser",
                     always_confirm=t.local_files)
            for t in TOOLS
            if t.name not in _NOT_FOR_PANEL
        ]

    async def precheck(self, spec: ToolSpec, args: dict[str, Any]) -> str | None:
        """Uploads outside the allowed folders are refused before the user is asked."""
        try:
            await self._checked(spec, args)
        except ToolFailed as e:
            return str(e)
        return None

    async def _checked(self, spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
        paths = args.get("paths")
        if spec.tool in LOCAL_FILES and isinstance(paths, list) and all(isinstance(p, str) for p in paths):
            try:
                # Resolved paths go on: a link swapped after the check changes nothing.
                return await asyncio.to_thread(uploads.checked_args, args)
            except uploads.UploadRefused as e:
                raise ToolFailed(f"Not run. {e}", "invalid_args") from None
        return args  # anything else malformed is refused by the schema check in run_call

    async def run(self, spec: ToolSpec, args: dict[str, Any], timeout: float, target: Target) -> str:
        from webmcp_sidecar.agent.service import run_call

        args = await self._checked(spec, args)
        call = {"type": "browser_call", "session": PANEL_SESSION, "tab_id": target.tab_id,
                "tool": spec.tool, "args": args, "timeout_ms": int(timeout * 1000)}
        return await run_call(self.host, call, spec, args, timeout)
