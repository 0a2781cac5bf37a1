"""When the side panel's agent asks the user before a call, and where a result's data came from.

A page's `readOnlyHint` is the page's own claim. One conversation spans sites, so data read on
site A could flow into site B's "read-only" tool (which can keep or send on whatever it is
given) without a click if the hint alone decided. So in confirm mode a page-hinted read-only tool
runs without asking only while every result the conversation holds came from that same site or
from no site; once another site's data (or page data of unknown site) is in it, it asks. Browser
tools and other sources keep their own classification: their `read_only` is ours, not a page's.
A site tool counts as read-only only when its page says `readOnlyHint` and not `consequentialHint`
(nor the legacy `destructiveHint`): `ToolAnnotations.read_only`, read by toolset.build.

Uploads of local files are asked for in every mode, auto included.

Local MCP servers' tools (origin "mcp"): their hints are the user's own server's, so
`readOnlyHint` skips the card; any other tool is asked about in confirm mode, with a stronger
word when the server does not say `destructiveHint: false` (MCP's default is destructive). Their
results count as data from `mcp:<server>`: a page's read-only tool is asked about once a local
file (or whatever the server gave) is in the conversation.

Pure: the loop feeds it the spec, the mode and the conversation so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from webmcp_sidecar.agent.history import UNKNOWN_SITE, Message
from webmcp_sidecar.agent.toolset import ToolSpec

MCP_SOURCE = "mcp:"  # data_from of a local MCP server's results: `mcp:<server>`

# Browser tools that never take the tab to another page (reading, pointing, scrolling, files).
# Any other browser tool may (a click on a link, Enter in a form, navigate, back): after one,
# what the tab shows may be another site's, so its results count as of unknown site.
_KEEPS_PAGE = frozenset({"snapshot", "page_text", "screenshot", "wait_for", "hover", "scroll",
                         "upload_file", "reload", "tabs", "skill_draft"})


@dataclass(frozen=True)
class Decision:
    confirm: bool
    reason: str = ""  # for the confirm card, when the usual "this tool can change things" is not it


def carried_sites(history: Iterable[Message]) -> set[str]:
    """The sites whose page data the conversation's tool results hold."""
    return {m.data_from for m in history if m.role == "tool" and m.data_from is not None}


def decide(spec: ToolSpec, mode: str, carried: set[str]) -> Decision:
    if spec.always_confirm:
        return Decision(True, "This hands files from your computer to the page: it is always "
                        "asked, in every mode.")
    if mode != "confirm":
        return Decision(False)
    if not spec.read_only:
        if spec.origin == "mcp" and spec.destructive:
            return Decision(True, f"Your local server {spec.server} does not say this tool is safe: "
                            "it may delete or overwrite things.")
        return Decision(True)
    if spec.origin == "page":
        others = sorted(carried - {spec.site})
        if others:
            shown = [_source_words(s) for s in others[:3]]
            names = ", ".join(shown) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            return Decision(True, f"{spec.site} says this tool only reads, but that is the page's "
                            f"own claim, and this conversation holds data from {names}: running it "
                            f"could hand that data to {spec.site}.")
    return Decision(False)


def _source_words(source: str) -> str:
    if source == UNKNOWN_SITE:
        return "a page of unknown site"
    if source.startswith(MCP_SOURCE):
        return f"your local server {source[len(MCP_SOURCE):]}"
    return source


def moves_tab(spec: ToolSpec) -> bool:
    """A browser tool that may show another page in the tab afterwards."""
    return spec.origin == "browser" and spec.tool not in _KEEPS_PAGE


def data_source(spec: ToolSpec, tab_site: str | None, tab_moved: bool) -> str | None:
    """The site whose page data a result of `spec` holds. A browser tool acts on the panel's tab:
    its site, until a call may have taken the tab elsewhere."""
    if spec.origin == "page":
        return spec.site or UNKNOWN_SITE
    if spec.origin == "browser":
        return UNKNOWN_SITE if tab_moved or not tab_site else tab_site
    if spec.origin == "mcp":
        return f"{MCP_SOURCE}{spec.server}"
    return None
