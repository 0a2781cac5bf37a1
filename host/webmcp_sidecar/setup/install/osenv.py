"""The machine layout install and doctor work against, with the OS as a parameter.

Every location is built from an `OsEnv`, never from `sys.platform` or the real environment
directly, so the Linux, macOS and Windows layouts are all testable on any machine (a temp HOME,
fake APPDATA, fake `/opt`...).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

OsName = Literal["linux", "darwin", "win32"]
OS_NAMES: tuple[OsName, ...] = ("linux", "darwin", "win32")


def current_os() -> OsName:
    if sys.platform == "win32":
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


@dataclass(frozen=True)
class OsEnv:
    os: OsName
    home: Path
    data_dir: Path
    environ: Mapping[str, str] = field(default_factory=dict)
    # Prefix for absolute system paths (/opt, /etc, /Applications): tests point it at a temp dir.
    root: Path = Path("/")

    @classmethod
    def current(cls) -> OsEnv:
        from webmcp_sidecar.paths import data_dir

        name = current_os()
        root = Path(os.environ.get("SystemDrive", "C:") + "\\") if name == "win32" else Path("/")
        return cls(name, Path.home(), data_dir(), dict(os.environ), root)

    def _var(self, name: str, default: Path) -> Path:
        value = self.environ.get(name, "")
        return Path(value) if value and Path(value).is_absolute() else default

    @property
    def config(self) -> Path:
        """XDG config home (Linux; also where Zed keeps its settings on macOS)."""
        if self.os == "linux":
            return self._var("XDG_CONFIG_HOME", self.home / ".config")
        return self.home / ".config"

    @property
    def appsupport(self) -> Path:
        return self.home / "Library" / "Application Support"

    @property
    def appdata(self) -> Path:
        return self._var("APPDATA", self.home / "AppData" / "Roaming")

    @property
    def localappdata(self) -> Path:
        return self._var("LOCALAPPDATA", self.home / "AppData" / "Local")

    @property
    def programdata(self) -> Path:
        return self._var("PROGRAMDATA", self.root / "ProgramData")

    @property
    def programfiles(self) -> Path:
        return self._var("PROGRAMFILES", self.root / "Program Files")

    @property
    def programfilesx86(self) -> Path:
        return self._var("PROGRAMFILES(X86)", self.root / "Program Files (x86)")

    @property
    def claude_config(self) -> Path:
        return self._var("CLAUDE_CONFIG_DIR", self.home)

    @property
    def codex_home(self) -> Path:
        return self._var("CODEX_HOME", self.home / ".codex")

    @property
    def cline_dir(self) -> Path:
        """The Cline CLI's folder (`cline --config`; @cline/shared's resolveClineDir)."""
        return self._var("CLINE_DIR", self.home / ".cline")

    @property
    def cline_mcp_settings(self) -> Path:
        """The Cline CLI's MCP server list, as @cline/shared resolves it."""
        if (given := self._var("CLINE_MCP_SETTINGS_PATH", Path())) != Path():
            return given
        data = self._var("CLINE_DATA_DIR", self.cline_dir / "data")
        return data / "settings" / "cline_mcp_settings.json"

    def expand(self, template: str) -> Path:
        """`{home}/x`-style templates; a leading `/` is a system path under `root`."""
        if template.startswith("/"):
            return self.root / template.lstrip("/")
        head, _, rest = template.partition("/")
        if not (head.startswith("{") and head.endswith("}")):
            raise ValueError(f"bad location template {template!r}")
        base: Path = getattr(self, head[1:-1])
        return base / rest if rest else base
