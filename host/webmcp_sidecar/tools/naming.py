"""MCP tool names for site tools: readable, deterministic, collision-free.

The strictest clients accept `^[A-Za-z0-9_-]{1,64}$` (Anthropic's API; Cursor rejects dots).
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


def site_slug(site: str) -> str:
    """`mail.163.com` -> `mail_163_com`, `localhost:8080` -> `localhost_8080`."""
    slug = _BAD.sub("_", site.lower()).strip("_")
    return slug or "site"


def tool_slug(name: str) -> str:
    return _BAD.sub("_", name).strip("_") or "tool"


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
