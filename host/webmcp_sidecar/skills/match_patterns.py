"""Chrome match patterns as skills use them (docs/SKILLS.md): `<scheme>://<host>[:<port>]/<path>`.

Stricter than Chrome on purpose: a skill names its site, so a bare `*` host, `<all_urls>` and
`file:` are refused, and only http(s) pages can match. No port means any port, `*` too.

The extension matches tabs with its own copy of these rules; `matches` here is for the host's
checks and tests.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from webmcp_sidecar.wire.public_suffix import is_public_suffix

MAX_PATTERN = 2048
SCHEMES = ("http", "https", "*")
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class PatternError(ValueError):
    """A match pattern that cannot be used; str() says why in plain words."""


@dataclass(frozen=True)
class MatchPattern:
    scheme: str  # "http", "https" or "*" (both)
    host: str  # lower case; an IPv6 address keeps its brackets
    subdomains: bool  # `*.host`: the host and every subdomain of it
    port: int | None  # None: any port
    path: str  # starts with "/", `*` is a wildcard; matched against path + query

    def matches(self, url: str) -> bool:
        try:
            u = urlsplit(url)
            port = u.port
        except ValueError:
            return False
        scheme = u.scheme.lower()
        if scheme not in ("http", "https") or (self.scheme != "*" and scheme != self.scheme):
            return False
        host = (u.hostname or "").lower()
        if ":" in host:
            host = f"[{host}]"
        if not (host == self.host or (self.subdomains and host.endswith("." + self.host))):
            return False
        if self.port is not None and (port or (443 if scheme == "https" else 80)) != self.port:
            return False
        target = (u.path or "/") + (f"?{u.query}" if u.query else "")
        return glob_match(self.path, target)


def parse(pattern: str) -> MatchPattern:
    """The pattern, or PatternError saying what is wrong with it."""
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("a match pattern must be a non-empty string")
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"a match pattern is at most {MAX_PATTERN} characters")
    if pattern == "<all_urls>":
        raise PatternError("`<all_urls>` is refused: a skill names the site it is for")
    scheme, sep, rest = pattern.partition("://")
    if not sep:
        if pattern.lower().startswith("file:"):
            raise PatternError("`file:` patterns are refused: skills are for web pages")
        raise PatternError(f"{pattern!r} is not `<scheme>://<host>/<path>`")
    scheme = scheme.lower()
    if scheme == "file":
        raise PatternError("`file:` patterns are refused: skills are for web pages")
    if scheme not in SCHEMES:
        raise PatternError(f"scheme {scheme!r} is not one of http, https or * (both)")
    authority, slash, path = rest.partition("/")
    if not slash:
        raise PatternError(f"{pattern!r} has no path: end the host with `/` (or `/*` for every page)")
    host, port = _split_port(authority)
    subdomains = False
    if host == "*":
        raise PatternError("a bare `*` host is refused: a skill names its site (e.g. `*.example.com`)")
    if host.startswith("*."):
        subdomains, host = True, host[2:]
    _check_host(host, subdomains)
    return MatchPattern(scheme, host.lower(), subdomains, port, "/" + path)


def _split_port(authority: str) -> tuple[str, int | None]:
    if authority.startswith("["):  # an IPv6 address: [::1] or [::1]:8080
        end = authority.find("]")
        if end < 0:
            raise PatternError(f"host {authority!r} opens `[` but never closes it")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after and not after.startswith(":"):
            raise PatternError(f"unexpected {after!r} after the host {host!r}")
        return host, _port(after[1:]) if after else None
    host, colon, port = authority.partition(":")
    return host, _port(port) if colon else None


def _port(text: str) -> int | None:
    if text == "*":
        return None
    if not text.isascii() or not text.isdigit() or len(text) > 5 or not 0 < int(text) < 65536:
        raise PatternError(f"port {text!r} is not a number from 1 to 65535 or `*`")
    return int(text)


def _check_host(host: str, subdomains: bool) -> None:
    if not host:
        raise PatternError("the host is empty")
    if "*" in host:
        raise PatternError(f"host {host!r}: `*` may only start the host, as `*.example.com`")
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise PatternError(f"host {host!r} is not an IPv6 address") from None
        if subdomains:
            raise PatternError("`*.` cannot go before an IP address")
        return
    if len(host) > 253 or not all(_LABEL.match(label) for label in host.split(".")):
        raise PatternError(
            f"host {host!r} is not a host name (letters, digits, `-` and dots) or an IP address"
        )
    if subdomains and _is_ipv4(host):
        raise PatternError("`*.` cannot go before an IP address")
    if is_public_suffix(host):
        raise PatternError(
            f"host {'*.' if subdomains else ''}{host!r} is a public suffix: anyone can have a site under "
            f"{host!r}, so the pattern would match most of the web; name the site itself "
            f"(e.g. `*.example.{host}`)"
        )


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def glob_match(glob: str, text: str) -> bool:
    """`*` matches any run of characters (none too); everything else matches itself.
    Greedy with one backtrack point, so it is linear in practice (no regex, no blow-up)."""
    g = t = 0
    star, mark = -1, 0
    while t < len(text):
        if g < len(glob) and glob[g] == "*":
            star, mark = g, t
            g += 1
        elif g < len(glob) and glob[g] == text[t]:
            g += 1
            t += 1
        elif star >= 0:
            g, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while g < len(glob) and glob[g] == "*":
        g += 1
    return g == len(glob)
