"""MCP clients: where each keeps its server list, and the entry we put there.

Formats differ in the container key (`mcpServers`, `servers`, `context_servers`,
`mcp_servers`), the entry's shape, and JSON vs TOML; the editing itself is in `jsonc` and
`tomltext`, which keep the rest of the file as the user wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from webmcp_sidecar.setup.install.osenv import OsEnv, OsName
from webmcp_sidecar.setup.textedit import jsonc, tomltext

SERVER_NAME = "webmcp-sidecar"

Entry = Callable[[str, list[str]], dict[str, Any]]


def _plain(command: str, args: list[str]) -> dict[str, Any]:
    return {"command": command, "args": args}


def _stdio(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": args}


def _claude_code(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": args, "env": {}}


def _zed(command: str, args: list[str]) -> dict[str, Any]:
    # "source": "custom" is what Zed versions that distinguish extension servers require.
    return {"source": "custom", "command": command, "args": args, "env": {}}


def _cline(command: str, args: list[str]) -> dict[str, Any]:
    return {"command": command, "args": args, "disabled": False}


def _cline_cli(command: str, args: list[str]) -> dict[str, Any]:
    # What `cline mcp add` writes (its loader reads the flat form too).
    return {"transport": {"type": "stdio", "command": command, "args": args}}


@dataclass(frozen=True)
class Client:
    key: str
    name: str
    config: dict[OsName, str]  # the config file, a template for OsEnv.expand
    detect: dict[OsName, str]  # a dir (or file) whose presence means the client is installed
    container: str
    entry: Entry
    fmt: Literal["json", "toml"] = "json"
    restart: str = "restart it"

    def config_path(self, env: OsEnv) -> Path:
        return env.expand(self.config[env.os])

    def detected(self, env: OsEnv) -> bool:
        if env.os not in self.config:
            return False
        return env.expand(self.detect[env.os]).exists() or self.config_path(env).exists()

    # Editing, whatever the format.
    def get(self, text: str) -> Any:
        if self.fmt == "toml":
            return tomltext.get_entry(text, self.container, SERVER_NAME)
        return jsonc.get_entry(text, self.container, SERVER_NAME)

    def set(self, text: str | None, entry: dict[str, Any],
            replace: bool = False) -> tuple[str, bool]:
        """(new text, container created): the keys of `entry` set (all of them, and only
        them, with `replace`). Raises ValueError when the file cannot be parsed."""
        if self.fmt == "toml":
            had = text is not None and self.container in tomltext.loads(text)
            return tomltext.set_entry(text, self.container, SERVER_NAME, entry, replace), not had
        return jsonc.set_entry(text, self.container, SERVER_NAME, entry, replace=replace)

    def remove(self, text: str, drop_empty_container: bool) -> str:
        if self.fmt == "toml":
            return tomltext.remove_entry(text, self.container, SERVER_NAME)
        return jsonc.remove_entry(text, self.container, SERVER_NAME, drop_empty_container)

    def snippet(self, command: str, args: list[str]) -> str:
        """What to add by hand when we may not edit the file."""
        entry = self.entry(command, args)
        if self.fmt == "toml":
            lines = [f"[{self.container}.{SERVER_NAME}]"]
            lines += [f"{k} = {tomltext._value(v)}" for k, v in entry.items()]
            return "\n".join(lines)
        return jsonc.render({self.container: {SERVER_NAME: entry}}, "", "  ", "\n")


_VSCODE_USER: dict[OsName, str] = {
    "linux": "{config}/Code/User", "darwin": "{appsupport}/Code/User", "win32": "{appdata}/Code/User",
}
_CLINE = "globalStorage/saoudrizwan.claude-dev"


def _all(template: str) -> dict[OsName, str]:
    return {"linux": template, "darwin": template, "win32": template}


def _under(base: dict[OsName, str], rest: str) -> dict[OsName, str]:
    return {os_name: f"{b}/{rest}" for os_name, b in base.items()}


CLIENTS: tuple[Client, ...] = (
    Client(
        "claude-desktop", "Claude Desktop",
        config={"linux": "{config}/Claude/claude_desktop_config.json",
                "darwin": "{appsupport}/Claude/claude_desktop_config.json",
                "win32": "{appdata}/Claude/claude_desktop_config.json"},
        detect={"linux": "{config}/Claude", "darwin": "{appsupport}/Claude",
                "win32": "{appdata}/Claude"},
        container="mcpServers", entry=_plain, restart="quit and reopen Claude Desktop",
    ),
    Client(
        "claude-code", "Claude Code",
        config=_all("{claude_config}/.claude.json"), detect=_all("{home}/.claude"),
        container="mcpServers", entry=_claude_code,
        restart="start a new Claude Code session (`/mcp` lists servers)",
    ),
    Client(
        "cursor", "Cursor", config=_all("{home}/.cursor/mcp.json"), detect=_all("{home}/.cursor"),
        container="mcpServers", entry=_plain, restart="reload Cursor's window",
    ),
    Client(
        "vscode", "VS Code", config=_under(_VSCODE_USER, "mcp.json"), detect=_VSCODE_USER,
        container="servers", entry=_stdio,
        restart="in VS Code run 'MCP: List Servers' and start webmcp-sidecar",
    ),
    Client(
        "windsurf", "Windsurf", config=_all("{home}/.codeium/windsurf/mcp_config.json"),
        detect=_all("{home}/.codeium/windsurf"), container="mcpServers", entry=_plain,
        restart="refresh Windsurf's MCP servers (Cascade > MCP)",
    ),
    Client(
        "codex", "Codex CLI", config=_all("{codex_home}/config.toml"),
        detect=_all("{codex_home}"), container="mcp_servers", entry=_plain, fmt="toml",
        restart="start a new codex session",
    ),
    Client(
        "gemini", "Gemini CLI", config=_all("{home}/.gemini/settings.json"),
        detect=_all("{home}/.gemini"), container="mcpServers", entry=_plain,
        restart="start a new gemini session (`/mcp` lists servers)",
    ),
    Client(
        "zed", "Zed",
        config={"linux": "{config}/zed/settings.json", "darwin": "{home}/.config/zed/settings.json",
                "win32": "{appdata}/Zed/settings.json"},
        detect={"linux": "{config}/zed", "darwin": "{home}/.config/zed",
                "win32": "{appdata}/Zed"},
        container="context_servers", entry=_zed, restart="Zed picks the change up by itself",
    ),
    Client(
        "cline-cli", "Cline CLI", config=_all("{cline_mcp_settings}"), detect=_all("{cline_dir}"),
        container="mcpServers", entry=_cline_cli, restart="start a new cline session",
    ),
    Client(
        "cline", "Cline (VS Code)",
        config=_under(_VSCODE_USER, f"{_CLINE}/settings/cline_mcp_settings.json"),
        detect=_under(_VSCODE_USER, _CLINE), container="mcpServers", entry=_cline,
        restart="Cline reloads its MCP settings by itself",
    ),
)


def by_key(name: str) -> Client:
    for c in CLIENTS:
        if c.key == name.lower() or c.name.lower() == name.lower():
            return c
    known = ", ".join(c.key for c in CLIENTS)
    raise KeyError(f"unknown MCP client {name!r}; known: {known}")


def detect(env: OsEnv) -> list[Client]:
    return [c for c in CLIENTS if c.detected(env)]


def runs(entry: Any) -> dict[str, Any] | None:
    """The part of an entry that holds its `command` and `args` (Cline CLI nests them in
    `transport`), or None when it is not a command entry."""
    if not isinstance(entry, dict):
        return None
    if "command" not in entry and isinstance(entry.get("transport"), dict):
        entry = entry["transport"]
    return entry if "command" in entry else None


def run_of(entry: Any) -> tuple[str, list[str]]:
    """(command, args) of an entry; ("", []) for what is not a command entry."""
    r = runs(entry) or {}
    command, args = r.get("command", ""), r.get("args", [])
    if isinstance(command, dict):  # Zed's older {"command": {"path": ..., "args": ...}} form
        command, args = command.get("path", ""), command.get("args", args)
    return (command if isinstance(command, str) else "",
            [str(a) for a in args] if isinstance(args, list) else [])


def run_digest(entry: Any) -> str:
    """Names what an entry runs (command and args), to tell later whether it is still what we
    wrote; other keys (a client may add its own) do not count."""
    return hashlib.sha256(json.dumps(run_of(entry)).encode()).hexdigest()


def looks_ours(entry: Any) -> bool:
    """An entry that runs this program, by whatever path or launcher."""
    command, args = run_of(entry)
    words = [re.split(r"[\\/]", w)[-1].lower() for w in (command, *args)]  # Windows paths too
    return any(w.startswith("webmcp-sidecar") or w == "webmcp_sidecar" for w in words)


def stale(command: str, env: OsEnv) -> bool:
    """The command no longer runs: an absolute path that has gone, or a name not on PATH."""
    if not command:
        return True
    if Path(command).is_absolute() or "/" in command or "\\" in command:
        p = Path(command)
        return not p.is_file() or (env.os != "win32" and not os.access(p, os.X_OK))
    return shutil.which(command, path=env.environ.get("PATH")) is None


def _after_launcher(args: list[str]) -> list[str]:
    """`args` less a `-m webmcp_sidecar` prefix: what our program itself receives."""
    return args[2:] if args[:2] == ["-m", "webmcp_sidecar"] else args


def repoint(entry: dict[str, Any], command: str, our_args: list[str]) -> dict[str, Any]:
    """The keys to set so `entry` runs `command` (our args' launcher prefix, then the user's own
    arguments after theirs), keeping every other key; Cline CLI's `transport` is set whole."""
    old_args = run_of(entry)[1]
    prefix = our_args[:-1] if our_args[-1:] == ["mcp"] else our_args
    args = [*prefix, *_after_launcher(old_args)]
    holder = runs(entry) or {}
    new = {**holder, "command": command, "args": args}
    return {"transport": new} if holder is not entry else {"command": command, "args": args}


def describe_run(entry: Any) -> str:
    command, args = run_of(entry)
    return " ".join([command, *args])
