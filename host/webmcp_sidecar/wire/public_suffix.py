"""Public suffixes: hosts under which anyone can have a site (`com`, `co.uk`, `github.io`), from
the Public Suffix List as the `publicsuffixlist` package bundles it (no network at run time).

A skill's match pattern or a chat-site adapter's hostname may not be one, nor `*.` + one: a
shared file could then cover most of the web. The extension checks the same list (generated
into extension/lib/generated/public-suffixes.js by gen_js.py), so both sides agree.
Names the list does not know (`localhost`, `test`, IP addresses) are not public suffixes here.
"""

from __future__ import annotations

import ipaddress
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList


@cache
def _list() -> PublicSuffixList:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(accept_unknown=False)


def is_public_suffix(host: str) -> bool:
    """Whether `host` (no `*.`, no port) is a public suffix."""
    name = host.strip(".").lower()
    if not name or name.startswith("["):
        return False
    try:
        ipaddress.ip_address(name)
        return False
    except ValueError:
        pass
    return bool(_list().is_public(name))


def rules() -> list[str]:
    """The list's rules as URL hosts spell them (`com`, `*.ck`, `!www.ck`, IDNs in punycode),
    for the extension's copy: the ASCII ones of the parsed list, which holds both spellings."""
    parsed: frozenset[str] = getattr(_list(), "_publicsuffix", frozenset())
    found = sorted(r for r in parsed if r.isascii())
    if len(found) < 1000:  # the package's layout changed: fail loudly rather than ship a stub
        raise RuntimeError("publicsuffixlist: could not read its rules")
    return found
