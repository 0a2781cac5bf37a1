"""How a browser starts the host, and the extension origin the host serves.

Chrome (and every Chromium): `<host> chrome-extension://<id>/` (plus `--parent-window=N` on
Windows). Firefox: `<host> <path of our host manifest> <add-on id>`; the extension's origin,
`moz-extension://<uuid>`, differs per profile and is not among them, so the host learns it from
the extension's `hello` (which only the browser, on the native port, can send).

Imported by the CLI on every start: standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# What Firefox accepts as an add-on id: an email-like id or a GUID in braces (at most 80 chars).
_GECKO_ID = re.compile(r"(?:[A-Za-z0-9._+-]*@[A-Za-z0-9._-]+|\{[0-9A-Fa-f-]{36}\})")
_MOZ_ORIGIN = re.compile(r"moz-extension://([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
                         r"-[0-9a-f]{12})/?")


@dataclass(frozen=True)
class Launch:
    """Who started the host: `origin` (Chrome's argument; empty when it comes with the hello)
    or `addon_id` (Firefox's)."""

    origin: str = ""
    addon_id: str = ""

    @property
    def origin_from_hello(self) -> bool:
        return not self.origin and bool(self.addon_id)

    def describe(self) -> str:
        return self.origin or (f"Firefox add-on {self.addon_id}" if self.addon_id else "nobody")


def browser_launch(argv: list[str]) -> Launch | None:
    """The browser's launch arguments, or None when `argv` is a command line of ours."""
    if argv and argv[0].startswith("chrome-extension://"):
        return Launch(origin=argv[0])
    if (len(argv) == 2 and argv[0].lower().endswith(".json") and len(argv[1]) <= 80
            and _GECKO_ID.fullmatch(argv[1])):
        return Launch(addon_id=argv[1])
    return None


def moz_origin(value: object) -> str:
    """`value` as `moz-extension://<uuid>/` when it is exactly a Firefox extension origin, else
    "" (a hello cannot widen what the entry links admit: one well-formed origin or nothing)."""
    m = _MOZ_ORIGIN.fullmatch(value) if isinstance(value, str) else None
    return f"moz-extension://{m.group(1)}/" if m else ""
