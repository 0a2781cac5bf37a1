"""Servers from another MCP client's config (`servers import --from CLIENT [--file PATH]`).

Where each client keeps its list, and in which format, is `setup/install/clients.py`'s (the same
table `install` writes our entry with); the files are read with `setup/textedit` (JSON with
comments, TOML). Each client's entry shape is mapped to ours. Our own `webmcp-sidecar` entry is
never imported (it would make a loop). What looks secret (`redact.py`: env values, headers,
arguments, the URL) is moved to the keyring by the caller (`secrets.move_to_keyring`) before the
entry is saved; `scan` itself touches no keyring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from webmcp_sidecar.servers.config import OUR_NAME, ServerEntry, is_ours, safe_name
from webmcp_sidecar.setup.install.clients import Client, by_key
from webmcp_sidecar.setup.install.osenv import OsEnv


class ImportError_(Exception):
    """Why nothing could be imported, in plain words."""


@dataclass
class Found:
    name: str  # as we will call it
    entry: ServerEntry  # as found, secrets still in it: `secrets.move_to_keyring` takes them out
    note: str = ""  # why it was renamed


@dataclass
class Scan:
    path: Path
    found: list[Found] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "name: why", in plain words


def scan(client_key: str, file: Path | None = None, env: OsEnv | None = None) -> Scan:
    try:
        client = by_key(client_key)
    except KeyError as e:
        raise ImportError_(str(e.args[0])) from None
    path = file if file is not None else client.config_path(env or OsEnv.current())
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ImportError_(f"{client.name}'s config is not at {path} (give it with --file).") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ImportError_(f"{path} cannot be read: {e}") from None
    servers = _servers(client, text, path)
    out = Scan(path)
    for raw_name, raw in servers.items():
        name = str(raw_name)
        if name == OUR_NAME or (isinstance(raw, dict) and is_ours(_flatten(raw))):
            out.skipped.append(f"{name}: WebMCP Sidecar itself (importing it would make a loop)")
            continue
        if not isinstance(raw, dict):
            out.skipped.append(f"{name}: not a server entry")
            continue
        try:
            out.found.append(_one(name, _flatten(raw)))
        except (ValidationError, ValueError) as e:
            first = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
            out.skipped.append(f"{name}: {first}")
    return out


def _servers(client: Client, text: str, path: Path) -> dict[str, Any]:
    try:
        if client.fmt == "toml":
            from webmcp_sidecar.setup.textedit import tomltext

            data: Any = tomltext.loads(text)
        else:
            from webmcp_sidecar.setup.textedit import jsonc

            data = jsonc.loads(text) if text.strip() else {}
    except ValueError as e:
        raise ImportError_(f"{path} cannot be parsed: {e}") from None
    servers = data.get(client.container) if isinstance(data, dict) else None
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise ImportError_(f"{path}: `{client.container}` is not a list of servers.")
    return servers


def _flatten(raw: dict[str, Any]) -> dict[str, Any]:
    """Other clients' shapes as the usual one: Zed's `command: {path, args, env}`, Windsurf's
    `serverUrl`, Gemini's `httpUrl`, `type` meaning the transport."""
    e = dict(raw)
    cmd = e.get("command")
    if isinstance(cmd, dict):
        e["command"] = cmd.get("path")
        e.setdefault("args", cmd.get("args", []))
        e.setdefault("env", cmd.get("env", {}))
    for k in ("serverUrl", "httpUrl"):
        if k in e and "url" not in e:
            e["url"] = e.pop(k)
    kind = str(e.pop("type", "") or "").lower()
    if "url" in e and kind == "sse":
        e["transport"] = "sse"
    return e


_KEEP = ("command", "args", "env", "cwd", "url", "headers", "transport", "disabled")


def _one(name: str, raw: dict[str, Any]) -> Found:
    new = safe_name(name)
    note = f"renamed from {name!r}" if new != name else ""
    data = {k: raw[k] for k in _KEEP if k in raw and raw[k] is not None}
    if isinstance(data.get("args"), list):
        data["args"] = [str(a) for a in data["args"]]
    for where in ("env", "headers"):
        values = data.get(where)
        if isinstance(values, dict):
            data[where] = {str(k): str(v) for k, v in values.items()}
    if "url" in data:
        data["url"] = str(data["url"])
    return Found(new, ServerEntry.model_validate(data), note)
