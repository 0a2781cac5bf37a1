"""Server secrets in the OS keyring (through `keyring_store.py`): stored, resolved, forgotten.

servers.json holds `{"keyring": "server:<name>:env:<KEY>", "shown": ...}` where a secret was (an
env value, a header, an argument or the URL); the value is read only when the server starts, and
only the server gets it (its env, its command line, its HTTP headers or URL).
"""

from __future__ import annotations

from dataclasses import dataclass

from webmcp_sidecar import keyring_store as keys
from webmcp_sidecar.servers import redact
from webmcp_sidecar.servers.config import (
    SecretRef,
    ServerConfigError,
    ServerEntry,
    Value,
    Where,
    secret_account,
)

KeyringUnavailable = keys.KeyringUnavailable


def store(server: str, where: Where, key: str, value: str, shown: str | None = None) -> SecretRef:
    """Put `value` in the keyring; the reference to write in servers.json instead."""
    account = secret_account(server, where, key)
    keys.set_secret(account, value)
    return SecretRef(keyring=account, shown=shown)


def forget(entry: ServerEntry) -> None:
    for account in entry.refs():
        keys.delete_secret(account)


def forget_account(account: str) -> None:
    keys.delete_secret(account)


@dataclass
class Moved:
    """What `move_to_keyring` did: where each secret went (`env GITHUB_TOKEN`, `arg 3: --api-key=***`)
    and what stayed in clear in servers.json (for the user to check)."""

    moved: list[str]
    clear: list[str]


def move_to_keyring(server: str, entry: ServerEntry) -> Moved:
    """Every plain value of `entry` that looks secret (`redact.py`) goes to the keyring, in place."""
    moved: list[str] = []
    clear: list[str] = []
    for where, values in (("env", entry.env), ("header", entry.headers)):
        plain = {k: v for k, v in values.items() if isinstance(v, str)}
        found = redact.split_values(plain)
        for k, (secret, shown) in found.secrets.items():
            values[k] = store(server, where, k, secret, shown)  # type: ignore[arg-type]
            moved.append(f"{where} {k}" + (f" ({shown})" if shown != redact.MASK else ""))
        clear += [f"{where} {c}" for c in found.clear]
    plain_args = [a if isinstance(a, str) else "" for a in entry.args]
    found = redact.split_args(plain_args)
    for i, (secret, shown) in found.secrets.items():
        if isinstance(entry.args[int(i)], str):
            entry.args[int(i)] = store(server, "arg", i, secret, shown)
            moved.append(f"argument {int(i) + 1} ({shown})")
    if found.clear:
        clear.append("arguments " + " ".join(a for a in found.clear if a))
    if isinstance(entry.url, str):
        shown_url = redact.mask_url(entry.url)
        if shown_url is not None:
            entry.url = store(server, "url", "", entry.url, shown_url)
            moved.append(f"url ({shown_url})")
        else:
            clear.append(f"url {entry.url}")
    return Moved(moved, clear)


@dataclass
class Resolved:
    """An entry's values with every keyring reference replaced by its secret: only for starting
    the server (never logged, never written)."""

    env: dict[str, str]
    headers: dict[str, str]
    args: list[str]
    url: str | None


def resolve(name: str, entry: ServerEntry) -> Resolved:
    """ServerConfigError (plain words) when a secret is missing or the keyring is unusable."""
    return Resolved(
        env=_resolve_map(name, "env", entry.env),
        headers=_resolve_map(name, "header", entry.headers),
        args=[_one(name, f"argument {i + 1}", a) for i, a in enumerate(entry.args)],
        url=None if entry.url is None else _one(name, "url", entry.url),
    )


def _resolve_map(name: str, where: str, values: dict[str, Value]) -> dict[str, str]:
    return {k: _one(name, f"{where} {k}", v, where, k) for k, v in values.items()}


def _one(name: str, what: str, v: Value, where: str = "", key: str = "") -> str:
    if isinstance(v, str):
        return v
    try:
        secret = keys.get_secret(v.keyring)
    except keys.KeyringUnavailable as e:
        raise ServerConfigError(f"The secret {what} of server {name!r} could not be read: {e}") from None
    if secret is None:
        if where in ("env", "header"):
            flag = "--secret-env" if where == "env" else "--secret-header"
            how = f"Add the server again with `{flag} {key}` to store it."
        else:
            how = "Add or import the server again (with --replace) to store it."
        raise ServerConfigError(
            f"The secret {what} of server {name!r} is not in the OS keyring any more. {how}"
        )
    return secret
