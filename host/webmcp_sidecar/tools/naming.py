"""Model-facing tool names: readable, deterministic, collision-free.

The strictest clients accept `^[A-Za-z0-9_-]{1,64}$` (Anthropic's API; Cursor rejects dots), so
the MCP server's names for site tools and the side panel agent's names for the model both go
through `sanitize`.
`mail.163.com` + `search.emails` -> `mail_163_com__search_emails`. When two (site, tool) pairs map
to the same name, the pair whose tool name needed no change keeps it and the others get a short
hash of their original names; names over 64 characters are cut and hashed the same way.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_LEN = 64
VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_BAD = re.compile(r"[^A-Za-z0-9_-]+")
SEP = "__"


def sanitize(text: str) -> str:
    """Each run of characters a name may not have becomes one `_`, none at the ends; may be
    empty (callers put their own fallback)."""
    return _BAD.sub("_", text).strip("_")


def site_slug(site: str) -> str:
    """`mail.163.com` -> `mail_163_com`, `localhost:8080` -> `localhost_8080`."""
    return sanitize(site.lower()) or "site"


def tool_slug(name: str) -> str:
    return sanitize(name) or "tool"


def unique_name(name: str, taken: set[str]) -> str:
    """`name` made valid (at most MAX_LEN) and not in `taken`, which it is added to: `_2`,
    `_3`... on a clash (the side panel's agent, which keeps the map to route calls back)."""
    base = tool_slug(name)[:MAX_LEN]
    out, n = base, 2
    while out in taken:
        suffix = f"_{n}"
        out = base[: MAX_LEN - len(suffix)] + suffix
        n += 1
    taken.add(out)
    return out


def _digest(site: str, tool: str) -> str:
    return hashlib.sha256(f"{site}\0{tool}".encode()).hexdigest()[:6]


def _fit(base: str, site: str, tool: str, force_hash: bool) -> str:
    if not force_hash and len(base) <= MAX_LEN:
        return base
    suffix = "_" + _digest(site, tool)
    return base[: MAX_LEN - len(suffix)] + suffix


def plain_name(site: str, tool: str) -> str:
    return f"{site_slug(site)}{SEP}{tool_slug(tool)}"


def assign_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Map each (site, tool) to its MCP name. Depends only on the set of pairs, not its order."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for pair in sorted(set(pairs)):
        groups.setdefault(plain_name(*pair), []).append(pair)
    out: dict[tuple[str, str], str] = {}
    for base, members in groups.items():
        if len(members) == 1:
            (pair,) = members
            out[pair] = _fit(base, *pair, force_hash=False)
            continue
        # The member whose tool name is already clean keeps the plain name (if just one is).
        clean = [p for p in members if tool_slug(p[1]) == p[1]]
        keeper = clean[0] if len(clean) == 1 else None
        for pair in members:
            out[pair] = _fit(base, *pair, force_hash=pair != keeper)
    # A hashed name could in theory equal another pair's plain name: hash that one too.
    seen: dict[str, tuple[str, str]] = {}
    for pair in sorted(out):
        name = out[pair]
        if name in seen:
            out[pair] = _fit(plain_name(*pair) + "_", *pair, force_hash=True)
        seen[out[pair]] = pair
    return out
