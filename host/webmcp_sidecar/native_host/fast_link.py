"""The fast link: a loopback WebSocket (wire/link_server.py) that the extension's service worker
opens to this host beside its native messaging port. Site calls and every result take it while it
is open; everything else, and everything while it is down, takes the native port.

Why: Chromium's native messaging delivers about one call in ten several milliseconds late both
ways, while a loopback WebSocket from the worker does not (bench/README.md, "The fast link").

What crosses it: calls and cancels to the worker; results from it, one per text frame (a result
over 64 Ki UTF-16 units takes the native port in chunks), taken in by the same
`Host.on_browser_frame` (the same checks). When the link drops, every call still out is cancelled
in the browser and gets what the browser sends for it next, else the drop's error
(wire/adrift.py), and the link is offered again, with a new token, a few times at most.
"""

from __future__ import annotations

import os

# Setting this to "0" in the host's environment keeps everything on the native port.
FAST_LINK_ENV = "WEBMCP_SIDECAR_FAST_LINK"


def links_enabled() -> bool:
    """False when FAST_LINK_ENV turns the browser's links off (the fast link and entry links)."""
    return os.environ.get(FAST_LINK_ENV, "1") != "0"
