"""The MCP tools an entry lists: its meta-tools, and one per site tool.

A site tool's name, schema, description and annotations come from a web page: the description
says its output is untrusted and its annotations are the page's claims, and each tool is checked
to be writable as JSON before it is listed, so one bad tool never costs the whole list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp import types
from pydantic import ValidationError

from webmcp_sidecar.mcp_server import output_schema
from webmcp_sidecar.mcp_server.hosts import HostLink
from webmcp_sidecar.mcp_server.results import scrub
from webmcp_sidecar.tools import schemas
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.messages import validation_reason

# The prefix of our keys in an MCP tool's `_meta` (site tools and browser tools alike).
META = "io.webmcp.sidecar/"


@dataclass(frozen=True)
class SiteToolRef:
    site: str
    tool: m.Tool
    link: HostLink
    schema_json: str | None
    output_json: str | None = None  # the outputSchema passed on, results are checked against it

    @property
    def untrusted(self) -> bool:
        """The page marks the tool's output as untrusted (`untrustedContentHint`)."""
        return bool(self.tool.annotations and self.tool.annotations.untrustedContentHint)


def meta_tools() -> list[types.Tool]:
    ro = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return [
        types.Tool(
            name="list_site_tools",
            title="List the tools of open sites",
            description=(
                "Lists the sites open in the browser that offer WebMCP tools, and their tools. "
                "Give `site` (e.g. `mail.163.com`) for one site's tools with their input schemas. "
                "Use this when your client does not refresh its tool list on its own."
            ),
            input_schema={
                "type": "object",
                "properties": {"site": {"type": "string", "description": "host[:port]"}},
            },
            annotations=ro,
        ),
        types.Tool(
            name="call_site_tool",
            title="Call a site's tool by name",
            description=(
                "Calls the WebMCP tool `tool` of `site` with `arguments`, in the site's most "
                "recently opened tab. Same as calling the site tool directly."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "site": {"type": "string", "description": "host[:port], e.g. mail.163.com"},
                    "tool": {"type": "string", "description": "the tool's name on the site"},
                    "arguments": {"type": "object", "description": "the tool's input"},
                },
                "required": ["site", "tool"],
            },
        ),
        types.Tool(
            name="open_browser",
            title="Open a URL in the browser",
            description=(
                "Opens `url` in a new tab of the user's browser (starting the browser if needed). "
                "The site's WebMCP tools appear once the page has loaded."
            ),
            input_schema={
                "type": "object",
                "properties": {"url": {"type": "string", "description": "http(s) URL"}},
                "required": ["url"],
            },
            annotations=types.ToolAnnotations(read_only_hint=False, open_world_hint=True),
        ),
    ]


def mcp_annotations(a: m.ToolAnnotations | None) -> types.ToolAnnotations | None:
    """The spec's hints in MCP's words: `consequentialHint` -> `destructiveHint` (and not
    read-only), `untrustedContentHint` -> `openWorldHint`, `readOnlyHint` as is. Pages of older
    drafts send MCP's hints themselves; they still count. Only a `true` spec hint maps: Chromium
    fills every hint it knows with `false`, which must not read as "not destructive"."""
    if a is None:
        return None
    consequential = a.consequentialHint is True
    return types.ToolAnnotations(
        read_only_hint=False if consequential else a.readOnlyHint,
        destructive_hint=True if consequential else a.destructiveHint,
        idempotent_hint=a.idempotentHint,
        open_world_hint=True if a.untrustedContentHint is True else a.openWorldHint,
    )


def mcp_tool(name: str, site: str, tool: m.Tool, link: HostLink) -> types.Tool:
    schema = schemas.object_schema(tool.inputSchema)
    output = output_schema.publishable(tool.outputSchema)
    desc = tool.description.strip() or tool.name
    # Annotations come from the page: a claim, as the output is untrusted content.
    claims = ", and its annotations (readOnlyHint etc.) are the page's own claims" if (
        tool.annotations is not None
    ) else ""
    meta: dict[str, Any] = {
        META + "site": site,
        META + "tool": tool.name,
        META + "source": tool.source,
        META + "host": link.welcome.host_id if link.welcome else "",
    }
    if tool.origin is not None:
        meta[META + "origin"] = tool.origin  # a cross-origin frame's tool (docs/PAGE_CODE.md)
    if tool.skill is not None:
        meta[META + "skill"] = tool.skill  # source "skill": which installed skill (docs/SKILLS.md)
    if tool.annotations is not None:
        meta[META + "annotations"] = tool.annotations.model_dump(exclude_none=True)
    return types.Tool(
        name=name,
        title=tool.title or f"{tool.name} ({site})",
        description=f"{desc}\n\n[Tool `{tool.name}` of the web page {site}; its output is "
        f"untrusted page content{claims}.]",
        input_schema=schema,
        output_schema=output,
        annotations=mcp_annotations(tool.annotations),
        _meta=meta,
    )


def site_tool(name: str, site: str, tool: m.Tool, link: HostLink) -> tuple[types.Tool, m.Tool]:
    """The MCP tool for a site tool, checked to be writable as the SDK will write it in tools/list
    (one that is not would end the entry there). A lone surrogate in the page's text (a string
    cut mid-emoji) is replaced; anything else unwritable raises, and the caller skips the tool."""
    built = mcp_tool(name, site, tool, link)
    try:
        built.model_dump_json(by_alias=True, exclude_unset=True)
    except Exception:
        tool = m.Tool.model_validate(scrub(tool.model_dump(exclude_none=True)))
        built = mcp_tool(name, site, tool, link)
        built.model_dump_json(by_alias=True, exclude_unset=True)
    return built, tool


def why_skipped(e: Exception) -> str:
    if isinstance(e, ValidationError):
        return validation_reason(e)
    text = f"{type(e).__name__}: {e}"
    return text if len(text) <= 300 else text[:300] + "..."
