"""Which extensions the host lets in, and what to call the one that connected.

Two Chromium builds of one extension exist: the development build (`extension/` or the release's
unpacked tree, id pinned by the `key` in its manifest) and the Chrome Web Store build (no `key`:
the store assigns its id at the first upload, and refuses a manifest that has one). A user may
also publish the store zip under an id of their own: `--extension-id ID` of `install`/`doctor`,
or `WEBMCP_SIDECAR_EXTENSION_IDS` (comma-separated) in install's environment, adds it.
"""

from __future__ import annotations

import os
import re

from webmcp_sidecar import EXTENSION_ID, GECKO_ID

STORE_EXTENSION_ID = ""
"""The Chrome Web Store's id for our store build: empty until the store assigns one at the first
upload (docs/STORE.md, "Publishing"); once set, every host manifest allows it."""

ENV_VAR = "WEBMCP_SIDECAR_EXTENSION_IDS"

_CHROMIUM_ID = re.compile(r"^[a-p]{32}$")
# Firefox add-on ids: `name@domain` (letters, digits, . _ - +) or a `{GUID}`.
_GECKO_ID = re.compile(r"^(?:[A-Za-z0-9._+-]{1,80}@[A-Za-z0-9.-]{1,80}|\{[0-9a-fA-F-]{36}\})$")


def is_extension_id(value: str) -> bool:
    """A Chromium id (32 letters a-p) or a Firefox add-on id."""
    return bool(_CHROMIUM_ID.match(value) or _GECKO_ID.match(value))


def chromium_ids() -> list[str]:
    """Our own Chromium ids, always allowed: the development id, then the store's once known."""
    return [EXTENSION_ID, *([STORE_EXTENSION_ID] if STORE_EXTENSION_ID else [])]


def from_env(environ: dict[str, str] | None = None) -> list[str]:
    """The ids `WEBMCP_SIDECAR_EXTENSION_IDS` names; ValueError names one that is not an id."""
    raw = (os.environ if environ is None else environ).get(ENV_VAR, "")
    ids = [i.strip() for i in raw.split(",") if i.strip()]
    bad = [i for i in ids if not is_extension_id(i)]
    if bad:
        raise ValueError(f"{ENV_VAR}: {bad[0][:80]!r} is not an extension id (a Chromium id is "
                         "32 letters a-p; a Firefox one is name@domain or {GUID})")
    return ids


def describe_origin(origin: str) -> str:
    """Which build an origin (`chrome-extension://<id>/`, `moz-extension://<uuid>/`) is, in
    words for `doctor`."""
    m = re.fullmatch(r"chrome-extension://([a-p]{32})/?", origin or "")
    if m:
        ext_id = m.group(1)
        if ext_id == EXTENSION_ID:
            return f"the development build ({origin}, unpacked)"
        if STORE_EXTENSION_ID and ext_id == STORE_EXTENSION_ID:
            return f"the Chrome Web Store build ({origin})"
        return f"an extension id of your own ({origin}, allowed with --extension-id)"
    if (origin or "").startswith("moz-extension://"):
        return f"the Firefox add-on ({GECKO_ID}, {origin})"
    return f"an unknown extension ({origin or 'origin not yet known'})"
