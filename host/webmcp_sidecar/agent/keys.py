"""API keys of the side panel's provider profiles, one keyring account per provider (the keyring
itself, and its refusal of unsafe backends: keyring_store.py). Nothing here logs a key.
"""

from __future__ import annotations

import logging

from webmcp_sidecar.agent.presets import PRESETS
from webmcp_sidecar.keyring_store import SERVICE, KeyringUnavailable, backend, call, check, delete_secret

__all__ = ["KeyringUnavailable", "backend", "check", "delete_key", "get_key", "set_key", "which"]

log = logging.getLogger(__name__)


def check_provider(provider: str) -> None:
    if provider not in PRESETS:
        raise ValueError(f"Unknown provider {provider!r}. Known: {', '.join(PRESETS)}.")


def set_key(provider: str, key: str) -> None:
    check_provider(provider)
    key = key.strip()
    if not key:
        raise ValueError("The key is empty: nothing was stored.")
    if any(c.isspace() for c in key) or len(key) > 4096:
        raise ValueError("That does not look like an API key (it has spaces or is very long).")
    call("stored", backend().set_password, SERVICE, provider, key)
    log.info("key for %s stored in the keyring", provider)


def get_key(provider: str) -> str | None:
    return call("read", backend().get_password, SERVICE, provider)


def delete_key(provider: str) -> bool:
    """True if a key was there."""
    check_provider(provider)
    if not delete_secret(provider):
        return False
    log.info("key for %s deleted from the keyring", provider)
    return True


def which() -> dict[str, bool]:
    """Provider -> whether a key is stored. Never the key."""
    b = backend()
    return {p: call("read", b.get_password, SERVICE, p) is not None for p in PRESETS}
