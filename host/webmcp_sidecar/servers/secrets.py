"""Server secrets in the OS keyring (through `agent/keys.py`): stored, resolved, forgotten.

servers.json holds `{"keyring": "server:<name>:env:<KEY>"}` where a secret was; the value is read
only when the server starts, and only the server gets it (its env, or its HTTP headers).
"""

from __future__ import annotations

from typing import Literal

from webmcp_sidecar.agent import keys
from webmcp_sidecar.servers.config import SecretRef, ServerConfigError, ServerEntry, Value, secret_account

KeyringUnavailable = keys.KeyringUnavailable


def store(server: str, where: Literal["env", "header"], key: str, value: str) -> SecretRef:
    """Put `value` in the keyring; the reference to write in servers.json instead."""
    account = secret_account(server, where, key)
    keys.set_secret(account, value)
    return SecretRef(keyring=account)


def forget(entry: ServerEntry) -> None:
    for account in entry.refs():
        keys.delete_secret(account)


def forget_account(account: str) -> None:
    keys.delete_secret(account)


def resolve(name: str, entry: ServerEntry) -> tuple[dict[str, str], dict[str, str]]:
    """(env, headers) with every keyring reference replaced by its value.

    ServerConfigError (plain words) when a secret is missing or the keyring is unusable.
    """
    return _resolve(name, "env", entry.env), _resolve(name, "header", entry.headers)


def _resolve(name: str, where: str, values: dict[str, Value]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in values.items():
        if isinstance(v, str):
            out[k] = v
            continue
        try:
            secret = keys.get_secret(v.keyring)
        except keys.KeyringUnavailable as e:
            raise ServerConfigError(
                f"The secret {where} {k} of server {name!r} could not be read: {e}"
            ) from None
        if secret is None:
            flag = "--secret-env" if where == "env" else "--secret-header"
            raise ServerConfigError(
                f"The secret {where} {k} of server {name!r} is not in the OS keyring any more. Add the "
                f"server again with `{flag} {k}` to store it."
            )
        out[k] = secret
    return out
