"""Secrets in the OS keyring: service `webmcp-sidecar`, one account per secret (the side panel's
provider keys, agent/keys.py; local MCP servers' env values and headers, servers/secrets.py).

No usable backend (keyring's fail/null backends, or a plaintext file one) is an error that says
what to install: a key is never written anywhere else. Nothing here logs a key.
"""

from __future__ import annotations

import logging
import sys

import keyring
import keyring.backend
import keyring.errors

SERVICE = "webmcp-sidecar"
log = logging.getLogger(__name__)

# Backends that would keep a key in a plain file, or not at all.
_UNSAFE_BACKENDS = ("fail", "null", "plaintext", "encrypted")  # keyrings.alt file backends


class KeyringUnavailable(RuntimeError):
    """No usable OS keyring: the message says what to install or start."""


def _install_hint() -> str:
    if sys.platform == "darwin":
        return "macOS's Keychain should always be there; check that your login keychain is unlocked."
    if sys.platform == "win32":
        return "Windows Credential Manager should always be there; check that you are logged in normally."
    return (
        "On Linux a Secret Service must run in your session: install GNOME Keyring "
        "(Debian/Ubuntu: sudo apt install gnome-keyring) or KWallet, and log in to a desktop session "
        "that starts it. Without a desktop, start one inside `dbus-run-session` with "
        "`gnome-keyring-daemon --unlock --components=secrets` (password on stdin)."
    )


def _backend_name(backend: keyring.backend.KeyringBackend) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def backend() -> keyring.backend.KeyringBackend:
    """The keyring backend to use, or KeyringUnavailable."""
    kr = keyring.get_keyring()
    # A chainer is only as good as what it chains.
    chained = getattr(kr, "backends", None)
    candidates = list(chained) if chained is not None else [kr]
    usable = [b for b in candidates if not _unsafe(b)]
    if not usable:
        names = ", ".join(_backend_name(b) for b in candidates) or "none"
        raise KeyringUnavailable(
            "No OS keyring is available to keep API keys safely (found: "
            f"{names}). WebMCP Sidecar never stores keys in a plain file. {_install_hint()}"
        )
    return kr if chained is None else usable[0]


def _unsafe(b: keyring.backend.KeyringBackend) -> bool:
    name = _backend_name(b).lower()
    return any(f".{word}" in name or word in type(b).__name__.lower() for word in _UNSAFE_BACKENDS)


def check() -> tuple[bool, str]:
    """(usable, plain-language message)."""
    try:
        b = backend()
    except KeyringUnavailable as e:
        return False, str(e)
    return True, f"Keys are kept in the OS keyring ({getattr(b, 'name', type(b).__name__)})."


def call(what: str, fn, *args):  # thin wrapper: the error mapping
    try:
        return fn(*args)
    except keyring.errors.KeyringLocked as e:
        raise KeyringUnavailable(
            f"The OS keyring is locked, so the key could not be {what}. Unlock it (log in to your "
            "desktop session, or unlock the 'login' keyring) and try again."
        ) from e
    except keyring.errors.KeyringError as e:
        raise KeyringUnavailable(
            f"The OS keyring refused: the key could not be {what} ({type(e).__name__}). "
            f"{_install_hint()}"
        ) from e


# Any secret, under an account name of its owner's (a provider's name; a local server's
# `server:<name>:env:<KEY>`, which cannot be a provider's).


def set_secret(account: str, value: str) -> None:
    if not value:
        raise ValueError("The secret is empty: nothing was stored.")
    call("stored", backend().set_password, SERVICE, account, value)


def get_secret(account: str) -> str | None:
    return call("read", backend().get_password, SERVICE, account)


def delete_secret(account: str) -> bool:
    """True if a secret was there."""
    b = backend()
    if call("read", b.get_password, SERVICE, account) is None:
        return False
    try:
        call("deleted", b.delete_password, SERVICE, account)
    except KeyringUnavailable as e:
        if isinstance(e.__cause__, keyring.errors.PasswordDeleteError):
            return False
        raise
    return True
