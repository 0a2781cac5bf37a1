"""A page's regular expressions (JSON Schema `pattern`, `patternProperties`), run with RE2.

Python's `re` backtracks: a pattern like `^(a+)+$` takes exponential time on a short input and
holds the GIL while it does, so no thread or deadline could save the event loop. RE2 matches in
time linear in the input (and releases the GIL while it matches). Patterns are ECMA-262 regexes;
RE2 reads nearly all of what schemas use once `\\uXXXX` escapes are rewritten. What RE2 cannot
run (lookaround, backreferences) compiles to None and the caller decides what that means.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a page's bad pattern is not worth a line on our stderr
_OPTIONS.max_mem = 1 << 20  # per pattern (program + DFA cache); past it RE2 stays linear, slower
_MAX_PATTERN = 8192  # characters; longer is no pattern a form needs

# \uXXXX (a surrogate pair of them counts as one character) and \u{X...}
_U_ESCAPE = re.compile(
    r"\\u(?:\{([0-9A-Fa-f]{1,6})\}|(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|([0-9A-Fa-f]{4}))",
    re.IGNORECASE,
)


def to_re2(pattern: str) -> str:
    """ECMA-262 escapes RE2 spells differently, rewritten; anything else is left alone."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        m = _U_ESCAPE.match(pattern, i)
        if m is None:
            out.append(pattern[i : i + 2])  # any other escape, taken whole so `\\u` stays literal
            i += 2
            continue
        braced, high, low, plain = m.groups()
        if high is not None:
            code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        else:
            code = int(braced or plain, 16)
        out.append(f"\\x{{{code:X}}}")
        i = m.end()
    return "".join(out)


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Any:
    """The compiled RE2 pattern, or None when RE2 cannot run it."""
    if len(pattern) > _MAX_PATTERN:
        return None
    try:
        return re2.compile(to_re2(pattern), _OPTIONS)
    except re2.error:
        return None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema patterns are unanchored).
    The caller has checked that it compiles."""
    rx = compile_pattern(pattern)
    return rx is not None and rx.search(text) is not None
