"""`servers.json`: the user's local MCP servers, in the `mcpServers` shape MCP clients use.

```json
{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            "env": {"TOKEN": {"keyring": "server:files:env:TOKEN"}}, "cwd": "/tmp"},
  "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": {"keyring": "..."}},
             "transport": "streamable-http"},
  "off": {"command": "x", "disabled": true, "disabledTools": ["delete"], "timeout": 30}
}}
```

A secret is never a value here: an env value, header, argument or URL that is a secret is
`{"keyring": ACCOUNT, "shown": MASKED}`, an entry of the OS keyring (`agent/keys.py`'s service);
`shown` only says what it was (`postgresql://me:***@db/app`). Keys we do not know are kept as they are
(other clients' `type`, comments' neighbours...). Writes are atomic and private (0600 in a 0700 dir).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from webmcp_sidecar import paths
from webmcp_sidecar.textfiles import atomic_write

CONFIG_FILE = "servers.json"
MAX_FILE_BYTES = 1 << 20
# Tools reach the agent as `<server>__<tool>`: letters, digits, `-` and `_`, no `__` (the joint).
NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,39}$"
_NAME = re.compile(NAME_PATTERN)
OUR_NAME = "webmcp-sidecar"


class ServerConfigError(Exception):
    """A config problem in plain words (str() is for the user)."""


class SecretRef(BaseModel):
    """Stands for a value kept in the OS keyring."""

    model_config = ConfigDict(extra="forbid")
    keyring: str = Field(min_length=1, max_length=200)
    # How it is shown (`postgresql://me:***@db/app`, `--api-key=***`): never the secret itself.
    shown: str | None = Field(default=None, max_length=4000)


Value = str | SecretRef


def shown(v: Value) -> str:
    """A value as `list` and the logs show it: a secret by its masked form."""
    return v if isinstance(v, str) else (v.shown or "***")


class ServerEntry(BaseModel):
    """One server: stdio (`command`...) or remote (`url`...), plus our own keys."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    command: str | None = Field(default=None, min_length=1)
    args: list[Value] = Field(default_factory=list)
    env: dict[str, Value] = Field(default_factory=dict)
    cwd: str | None = None
    url: Value | None = Field(default=None)
    headers: dict[str, Value] = Field(default_factory=dict)
    transport: Literal["streamable-http", "sse"] | None = None
    # Ours:
    disabled: bool = False
    disabled_tools: list[str] = Field(default_factory=list, alias="disabledTools")
    timeout: float | None = Field(default=None, gt=0, le=3600)
    # Seconds unused before the server is stopped (started again on next use); 0 = never.
    idle_timeout: float | None = Field(default=None, ge=0, le=7 * 86400, alias="idleTimeout")

    @model_validator(mode="after")
    def _one_kind(self) -> ServerEntry:
        if (self.command is None) == (self.url is None):
            raise ValueError("a server has either `command` (stdio) or `url` (remote), not both")
        if self.url is not None and not re.match(r"^https?://", shown(self.url), re.I):
            raise ValueError("`url` must start with http:// or https://")
        return self

    def target(self) -> str:
        """What it runs or reaches, secrets masked: `npx -y pkg postgresql://me:***@db`. A value
        that looks secret but was written in clear (by hand) is masked too."""
        from webmcp_sidecar.servers import redact

        if self.url is not None:
            return shown(self.url) if not isinstance(self.url, str) else redact.mask_url(self.url) or self.url
        plain = redact.split_args([a if isinstance(a, str) else "" for a in self.args]).secrets
        args = [plain[str(i)][1] if str(i) in plain else shown(a) for i, a in enumerate(self.args)]
        return " ".join([self.command or "", *args])

    @property
    def kind(self) -> Literal["stdio", "http", "sse"]:
        if self.command is not None:
            return "stdio"
        return "sse" if self.transport == "sse" else "http"

    def refs(self) -> list[str]:
        """The keyring accounts this entry's secrets live under."""
        values = (*self.env.values(), *self.headers.values(), *self.args, self.url)
        return [v.keyring for v in values if isinstance(v, SecretRef)]

    def dump(self) -> dict[str, Any]:
        """As written to servers.json: empty defaults left out, our keys by their JSON names."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)


class ServersFile(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    servers: dict[str, ServerEntry] = Field(default_factory=dict, alias="mcpServers")


Where = Literal["env", "header", "arg", "url"]


def secret_account(server: str, where: Where, key: str = "") -> str:
    """`server:NAME:env:KEY`, `server:NAME:header:KEY`, `server:NAME:arg:INDEX`, `server:NAME:url`."""
    return f"server:{server}:{where}" + (f":{key}" if where != "url" else "")


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ServerConfigError(
            f"{name!r} cannot be a server name: use up to 40 letters, digits, '-' or '_' (not '__'), "
            "starting with a letter or digit."
        )
    if name == OUR_NAME:
        raise ServerConfigError(
            f"{OUR_NAME!r} is WebMCP Sidecar itself: adding it as its own server would make a loop."
        )
    return name


def safe_name(name: str) -> str:
    """A usable name for one found elsewhere (an imported config's `My Server` -> `My-Server`)."""
    s = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_")
    s = re.sub(r"_{2,}", "_", s)[:40].strip("-_")
    return s or "server"


def config_path() -> Path:
    return paths.config_dir() / CONFIG_FILE


def is_ours(entry: dict[str, Any] | ServerEntry) -> bool:
    """An entry that runs WebMCP Sidecar itself (what must never be imported: a loop)."""
    from webmcp_sidecar.setup.install.clients import looks_ours

    raw = entry.dump() if isinstance(entry, ServerEntry) else entry
    return looks_ours(raw)


class ServersConfig:
    """Reads and writes one servers.json (default: in the user config dir)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else config_path()

    def load(self) -> ServersFile:
        try:
            with self.path.open("rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return ServersFile()
        except OSError as e:
            raise ServerConfigError(f"{self.path} cannot be read: {e.strerror or e}") from None
        if len(data) > MAX_FILE_BYTES:
            raise ServerConfigError(f"{self.path} is too large (over {MAX_FILE_BYTES >> 10} KiB).")
        try:
            return ServersFile.model_validate_json(data)
        except ValidationError as e:
            raise ServerConfigError(f"{self.path} is not a valid servers file: {_plain(e)}") from None

    def save(self, doc: ServersFile) -> None:
        paths.ensure_private_dir(self.path.parent)
        raw = doc.model_dump(mode="json", by_alias=True, exclude={"servers"})
        raw["mcpServers"] = {name: e.dump() for name, e in doc.servers.items()}
        atomic_write(self.path, json.dumps(raw, indent=2, ensure_ascii=False) + "\n")

    def get(self, name: str) -> ServerEntry:
        doc = self.load()
        if name not in doc.servers:
            raise ServerConfigError(f"No server named {name!r}. `webmcp-sidecar servers list` shows them.")
        return doc.servers[name]


def _plain(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:5]:
        where = ".".join(str(x) for x in err["loc"]) or "the file"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)
