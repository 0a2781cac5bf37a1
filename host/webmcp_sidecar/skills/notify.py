"""Telling running hosts that the installed skills changed.

`webmcp-sidecar skills add|remove|enable|disable` call `notify_hosts()` after each change. It
is a placeholder for now, kept best-effort (it must never fail a command): the lead fills it
in with the hosts' link. Until then a host notices changes by itself, by polling the skills
dir (`native_host/skills_link.py`).
"""

from __future__ import annotations


def notify_hosts() -> None:
    """Best-effort: tell every running host to send the extension the new skills. A no-op
    placeholder for now (see the module's doc)."""
    return None
