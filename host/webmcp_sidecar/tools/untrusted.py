"""Text from a page, framed as untrusted for a model: the side panel's agent (its tool results,
the page's title and URL) and the MCP entry (results of tools that say `untrustedContentHint`)
frame it the same way."""

from __future__ import annotations

import html
import re
import secrets


def untrusted_result(site: str | None, tool: str, text: str, *, error: bool = False) -> str:
    """A tool result (or the page's error message) wrapped as untrusted page content."""
    attrs = {"source": "tool_error" if error else "tool_result", "site": site, "tool": tool}
    return wrap(attrs, text)


# Any spelling of our tags' starts in page text: `<untrusted`, `</UNTRUSTED-…`, `< / untrusted`,
# and the prompt-tool call markup (`<tool_call>`), so a model quoting the page quotes no call.
_TAG_START = re.compile(r"<(\s*/?\s*(?:untrusted|tool_call))", re.IGNORECASE)


def wrap(attrs: dict[str, str | None], text: str, *, newlines: bool = True) -> str:
    """`text` between tags named `untrusted-<random>`: a fresh code per wrap, drawn after the page
    produced `text`, so no page can write our closing tag. Tag-like text in it is defused too, so
    it cannot even look like the start or end of one (whatever its case)."""
    nonce = secrets.token_hex(8)
    tag = f"untrusted-{nonce}"
    body = _TAG_START.sub(r"&lt;\1", text.replace(nonce, "[code removed]"))
    shown = "".join(f' {k}="{html.escape(v, quote=True)}"' for k, v in attrs.items() if v)
    sep = "\n" if newlines else ""
    return f"<{tag}{shown}>{sep}{body}{sep}</{tag}>"
