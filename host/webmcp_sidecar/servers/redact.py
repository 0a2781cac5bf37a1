"""What in a server entry looks secret, and how it is shown once it is in the keyring.

An imported (or added) entry's values go through `split()`: what looks secret is taken out to
be stored in the keyring, and servers.json keeps `{"keyring": ACCOUNT, "shown": MASKED}` in its
place (MASKED says what it was without the secret: `postgresql://me:***@db/app`, `--api-key=***`).

Looks secret:
- an env value or header under a secret-looking name (`GITHUB_TOKEN`, `Authorization`...);
- a URL with userinfo (`postgresql://user:pass@host`, a Sentry DSN's key), or with a query value
  under a secret-looking name (`?api_key=...`) or that looks like a token;
- a token-like string: a known prefix (`sk-`, `xoxb-`, `ghp_`, `github_pat_`, `glpat-`, `AKIA`...)
  or a long high-entropy string (a run of 20+ letters and digits, mixed, >= 3.5 bits/char);
- the value of a secret-looking flag: `--bot-token X`, `--api-key=X`, `--password X`.
Placeholders (`${input:x}`, `$VAR`) are never secrets: the client fills them in.

Pure functions, no keyring: `imports.py` and `cli.py` store what `split()` finds.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from webmcp_sidecar.wire.constants import (
    SECRET_NAME_PATTERN,
    SECRET_QUERY_NAME_PATTERN,
    TOKEN_MIN_ENTROPY,
    TOKEN_MIN_RUN,
    TOKEN_PREFIX_PATTERN,
)

MASK = "***"
# The patterns are the extension's too (wire/constants.py; lib/secret-text.js applies them there).
SECRET_NAME = re.compile(SECRET_NAME_PATTERN, re.I)
_SECRET_QUERY = re.compile(SECRET_QUERY_NAME_PATTERN, re.I)  # besides SECRET_NAME's
_TOKEN_PREFIX = re.compile(TOKEN_PREFIX_PATTERN)
_PLACEHOLDER = re.compile(r"^\$\{[^}]+\}$|^\$[A-Z_][A-Z0-9_]*$")
_TOKEN_CHARS = re.compile(r"^[A-Za-z0-9_\-+/=.~]{20,}$")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
# A flag whose value is secret (not a flag naming a file that holds one).
_SECRET_FLAG = re.compile(r"^--?([A-Za-z0-9][\w-]*)$")
_NOT_A_VALUE_FLAG = re.compile(r"(?:file|path|dir|env|name|id|type|mode|url|header)$", re.I)
_URLISH = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value.strip()))


def secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def looks_secret(key: str, value: str) -> bool:
    """An env value or header under a secret-looking name (placeholders excepted)."""
    return secret_name(key) and bool(value) and not is_placeholder(value)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def token_like(value: str) -> bool:
    """A known token prefix, or a long random-looking string (paths and words are not)."""
    v = value.strip()
    if _TOKEN_PREFIX.match(v):
        return True
    if not _TOKEN_CHARS.match(v) or v.count("/") > 1 or v.count(".") > 2:
        return False  # a path, a domain or a version is not a token
    run = max(_ALNUM_RUN.findall(v), key=len, default="")  # names and versions have short runs
    if len(run) < TOKEN_MIN_RUN:
        return False
    letters = any(c.isalpha() for c in run)
    digits = sum(c.isdigit() for c in run)
    mixed_case = any(c.isupper() for c in run) and any(c.islower() for c in run)
    return letters and digits >= 2 and (mixed_case or digits >= 4) and _entropy(run) >= TOKEN_MIN_ENTROPY


def mask_url(value: str) -> str | None:
    """The URL with its secret parts masked, or None when nothing in it looks secret."""
    if not _URLISH.match(value):
        return None
    try:
        parts = urlsplit(value)
        _ = parts.port  # a malformed port raises: treat as not a URL
    except ValueError:
        return None
    changed = False
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, sep, _pw = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if sep and user else f"{MASK}@{host}"
        changed = True
    query = parts.query
    if query:
        out = []
        for k, v in parse_qsl(query, keep_blank_values=True):
            if v and not is_placeholder(v) and (secret_name(k) or _SECRET_QUERY.match(k) or token_like(v)):
                out.append(f"{k}={MASK}")
                changed = True
            else:
                out.append(f"{k}={v}" if v or "=" in query else k)
        query = "&".join(out)
    path_hit = any(token_like(seg) for seg in parts.path.split("/") if seg)  # /hooks/T0/B0/XXXX
    if path_hit:
        path = "/".join(MASK if seg and token_like(seg) else seg for seg in parts.path.split("/"))
        changed = True
    else:
        path = parts.path
    if not changed:
        return None
    shown = f"{parts.scheme}://{netloc}{path}"
    if query:
        shown += f"?{query}"
    if parts.fragment:
        shown += f"#{parts.fragment}"
    return shown


def masked(value: str) -> str | None:
    """How a secret-looking value is shown, or None when it does not look secret."""
    if not value or is_placeholder(value):
        return None
    url = mask_url(value)
    if url is not None:
        return url
    if token_like(value):
        return MASK
    return None


@dataclass
class Split:
    """What `split_*` found: values kept in clear, and {index or key: (secret, shown)}."""

    secrets: dict[str, tuple[str, str]] = field(default_factory=dict)
    clear: list[str] = field(default_factory=list)  # what stayed in clear, for the user to check


def split_args(args: list[str]) -> Split:
    """Which arguments (by index) hold a secret: the value after a secret-looking flag, a
    `--flag=value` with a secret-looking name, a URL with secrets, a token."""
    out = Split()
    after_flag = False
    for i, a in enumerate(args):
        if after_flag and not a.startswith("-") and not is_placeholder(a):
            out.secrets[str(i)] = (a, MASK)
            after_flag = False
            continue
        after_flag = False
        flag, eq, value = a.partition("=")
        m = _SECRET_FLAG.match(flag)
        if m and secret_name(m.group(1)) and not _NOT_A_VALUE_FLAG.search(m.group(1)):
            if not eq:
                after_flag = True
                out.clear.append(a)
                continue
            if value and not is_placeholder(value):
                out.secrets[str(i)] = (a, f"{flag}={MASK}")
                continue
        shown = masked(value) if m and eq else masked(a)
        if shown is not None:
            out.secrets[str(i)] = (a, f"{flag}={shown}" if m and eq else shown)
        else:
            out.clear.append(a)
    return out


def split_values(values: dict[str, str]) -> Split:
    """Which env values or headers hold a secret: by their name, or by what they look like."""
    out = Split()
    for k, v in values.items():
        if looks_secret(k, v):
            out.secrets[k] = (v, mask_url(v) or MASK)
            continue
        shown = masked(v)
        if shown is not None:
            out.secrets[k] = (v, shown)
        else:
            out.clear.append(f"{k}={v}")
    return out
