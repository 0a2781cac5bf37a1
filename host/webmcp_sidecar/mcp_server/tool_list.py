"""The entry's MCP tool list: meta-tools, one tool per site tool, the browser tools; built per
site and kept, and its tools/list answer kept as bytes.

Why per site: a change reaches the entry as one site's new tool list (`site_tools`), and building
an MCP tool (checking it is writable, the signature that says whether clients must hear of the
change) costs ~0.1 ms a tool; rebuilding all of them on every change made one change at 50 sites
x 20 tools cost ~115 ms in every entry (bench/README.md, "Scale"). A site whose tool list object,
host link and assigned names are the ones it was built with is taken as built.

Why bytes: a tools/list through the SDK dumps every `Tool`, validates the dump against the
protocol version's result surface and serializes it, each time (~150 ms for 1000 tools). The
list only changes on a rebuild, so its answer's `result` is made once per protocol version per
rebuild and the fast lane (fastlane.py) sends it as is: the same bytes the SDK would write.
Both are speed only (bench.scale, "Scale"): drop them when one change at 50 sites x 20 tools
costs an entry under 5 ms rebuilt whole and answered through the SDK.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

import pydantic_core
from mcp import types
from mcp_types.methods import serialize_server_result

from webmcp_sidecar.mcp_server.hosts import HostLink, SiteEntry
from webmcp_sidecar.mcp_server.site_tools import SiteToolRef, meta_tools, site_tool, why_skipped
from webmcp_sidecar.tools import naming
from webmcp_sidecar.tools.validation import schema_key
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.messages import loggable

log = logging.getLogger(__name__)


def _signature(tools: list[types.Tool]) -> str:
    """What clients must hear of when it changes: everything but `_meta` (which names the host,
    and a host coming back under a new id changes nothing a client can use)."""
    return json.dumps(
        [t.model_dump(mode="json", by_alias=True, exclude={"meta"}) for t in tools], sort_keys=True
    )


@dataclass
class _Site:
    """One site's part of the list, and what it was built from."""

    source: list[m.Tool]  # the very list object the host link holds (compared by identity)
    link: HostLink
    names: tuple[str, ...]
    tools: list[types.Tool] = field(default_factory=list)
    refs: dict[str, SiteToolRef] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # tool name -> why
    signature: str = ""
    wire: dict[str, bytes] = field(default_factory=dict)  # version -> its tools' JSON, comma-joined

    def fits(self, entry: SiteEntry, names: tuple[str, ...]) -> bool:
        return self.source is entry.tools and self.link is entry.link and self.names == names


def _build_site(site: str, entry: SiteEntry, names: tuple[str, ...], meta_names: set[str]) -> _Site:
    part = _Site(entry.tools, entry.link, names)
    for tool, name in zip(entry.tools, names, strict=True):
        if name in meta_names:
            continue
        # One by one: a tool that cannot be an MCP tool costs itself, not the list.
        try:
            mcp_tool, tool = site_tool(name, site, tool, entry.link)
        except Exception as e:
            part.skipped[tool.name] = why_skipped(e)
            continue
        part.refs[name] = SiteToolRef(
            site, tool, entry.link, schema_key(tool.inputSchema), schema_key(mcp_tool.output_schema)
        )
        part.tools.append(mcp_tool)
    part.signature = _signature(part.tools)
    return part


class ToolList:
    def __init__(self) -> None:
        self._meta = meta_tools()
        self._meta_signature = _signature(self._meta)
        self.meta_names = {t.name for t in self._meta}
        self.tools: list[types.Tool] = list(self._meta)
        self.refs: dict[str, SiteToolRef] = {}
        self._sites: dict[str, _Site] = {}
        self._signature: tuple[str, ...] = ()
        self._skipped: dict[tuple[str, str], str] = {}  # (site, tool) -> why, logged once
        self._wire: dict[str, bytes] = {}  # protocol version -> the tools/list result's JSON
        self._meta_wire: dict[str, bytes] = {}
        self._browser: list[types.Tool] = []

    def rebuild(self, merged: dict[str, SiteEntry], browser_tools: list[types.Tool]) -> bool:
        """Recompute the list from the merged registry; True when clients must hear of it."""
        pairs = [(site, t.name) for site, entry in merged.items() for t in entry.tools]
        assigned = naming.assign_names(pairs)
        sites: dict[str, _Site] = {}
        for site, entry in sorted(merged.items()):
            names = tuple(assigned[(site, t.name)] for t in entry.tools)
            old = self._sites.get(site)
            sites[site] = (
                old
                if old is not None and old.fits(entry, names)
                else _build_site(site, entry, names, self.meta_names)
            )
        skipped = {(site, tool): why for site, part in sites.items() for tool, why in part.skipped.items()}
        for (site, tool_name), why in skipped.items():
            if self._skipped.get((site, tool_name)) != why:
                log.warning("tool %r of %s left out of the tool list: %s", tool_name, loggable(site), why)
        tools = list(self._meta)
        refs: dict[str, SiteToolRef] = {}
        for part in sites.values():
            tools.extend(part.tools)
            refs.update(part.refs)
        # Browser tools have no `__`, so they never meet a site tool's name.
        tools.extend(browser_tools)
        signature = (
            self._meta_signature,
            *(part.signature for part in sites.values()),
            _signature(browser_tools),
        )
        self._sites, self._skipped, self.tools, self.refs = sites, skipped, tools, refs
        self._browser = browser_tools
        self._wire = {}
        changed = signature != self._signature
        self._signature = signature
        return changed

    def result(self) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    def wire_result(self, version: str) -> bytes:
        """The tools/list `result` as JSON, as the SDK's `ServerRunner` shapes it for `version`
        (dump, then the version's result surface) and its stdio writer writes it. Made from
        each site's part, kept per version: after a change only the changed site's tools are
        dumped and checked again."""
        cached = self._wire.get(version)
        if cached is None:
            parts = [_tools_wire(self._meta, version, self._meta_wire)]
            parts += [_tools_wire(part.tools, version, part.wire) for part in self._sites.values()]
            parts.append(_tools_wire(self._browser, version, {}))
            cached = b'{"tools":[' + b",".join(p for p in parts if p) + b"]}"
            self._wire[version] = cached
        return cached


def _tools_wire(tools: list[types.Tool], version: str, kept: dict[str, bytes]) -> bytes:
    """`tools` as the SDK writes them in a tools/list result for `version`, comma-joined."""
    if not tools:
        return b""
    out = kept.get(version)
    if out is None:
        dumped = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]
        shaped = serialize_server_result("tools/list", version, {"tools": dumped})
        out = b",".join(pydantic_core.to_json(t) for t in shaped["tools"])
        kept[version] = out
    return out
