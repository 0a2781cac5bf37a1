"""The native-messaging host manifest, the launcher it points at, and our MCP server command."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webmcp_sidecar import GECKO_ID, HOST_NAME
from webmcp_sidecar.extension_ids import chromium_ids
from webmcp_sidecar.paths import data_dir
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.osenv import OsName, current_os

if TYPE_CHECKING:
    from webmcp_sidecar.setup.install.browsers import Family

EXE_NAME = "webmcp-sidecar"


def is_gecko_id(extension_id: str) -> bool:
    """Firefox names add-ons `name@domain` or `{GUID}`; Chromium ids are 32 letters a-p."""
    return "@" in extension_id or extension_id.startswith("{")


def manifest(host_path: Path, extension_ids: list[str] | None = None,
             family: Family = "chromium") -> dict[str, Any]:
    """Our host manifest for a browser `family`: Chromium's allows our development and store
    ids (extension_ids.py); `extension_ids`: more ids to allow besides ours (each goes to the
    family its form belongs to)."""
    ours = chromium_ids()
    extra = [i for i in dict.fromkeys(extension_ids or [])
             if i not in (*ours, GECKO_ID) and is_gecko_id(i) == (family == "firefox")]
    data: dict[str, Any] = {
        "name": HOST_NAME,
        "description": "WebMCP Sidecar native host: bridges the browser's WebMCP tools to MCP "
        "clients.",
        "path": str(host_path),
        "type": "stdio",
    }
    if family == "firefox":
        data["allowed_extensions"] = [GECKO_ID, *extra]
    else:
        data["allowed_origins"] = [f"chrome-extension://{i}/" for i in [*ours, *extra]]
    return data


def manifest_bytes(data: dict[str, Any]) -> bytes:
    """UTF-8 without BOM, stable formatting (so a re-install writes identical bytes)."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def frozen_executable() -> Path | None:
    """The PyInstaller bundle's executable when we run from one."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve()
    return None


def extension_dir() -> Path | None:
    """The unpacked extension to load: inside the bundle, or next to a source checkout."""
    base = Path(getattr(sys, "_MEIPASS", "")) if frozen_executable() else (
        Path(__file__).resolve().parents[3])
    d = base / "extension"
    return d if (d / "manifest.json").is_file() else None


def python_executable() -> Path:
    # Not resolve(): a venv's python is a symlink to the base interpreter, and following it
    # would run Python without the venv's packages.
    return Path(sys.executable).absolute()


def launcher_spec(directory: Path, os_name: OsName | None = None,
                  python: Path | None = None) -> tuple[Path, bytes]:
    """The launcher file (path, bytes): it names the interpreter by absolute path, because
    browsers do not inherit the shell's PATH (nor a venv's activation)."""
    os_name = os_name or current_os()
    python = python or python_executable()
    pkg_root = Path(__file__).resolve().parents[2]
    if os_name == "win32":
        # Chrome starts hosts through cmd.exe with `<origin> --parent-window=N`, Firefox with
        # `<manifest path> <add-on id>`: pass all on; the CLI recognises both.
        text = (
            "@echo off\r\n"
            "rem Started by the browser for native messaging; written by webmcp-sidecar install.\r\n"
            f'set "PYTHONPATH={pkg_root};%PYTHONPATH%"\r\n'
            f'"{python}" -m webmcp_sidecar %*\r\n'
        )
        return directory / "webmcp-sidecar-host.bat", text.encode()
    # PYTHONPATH keeps a source checkout importable even when it is not pip-installed.
    text = (
        "#!/bin/sh\n"
        "# Started by the browser for native messaging; written by `webmcp-sidecar install`.\n"
        f'PYTHONPATH="{pkg_root}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{python}" -m webmcp_sidecar'
        ' "$@"\n'
    )
    return directory / "webmcp-sidecar-host", text.encode()


def default_launcher_dir() -> Path:
    return data_dir() / "bin"


def write_launcher(directory: Path | None = None) -> Path:
    """Write the launcher (or name the bundle's executable); return the path for the manifest."""
    exe = frozen_executable()
    if exe is not None:
        return exe
    directory = directory or default_launcher_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path, data = launcher_spec(directory)
    _write_if_changed(path, data)
    if sys.platform != "win32":
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def mcp_command() -> tuple[str, list[str]]:
    """(command, args) an MCP client runs: the bundle, else this install's console script, else
    `python -m webmcp_sidecar` — always by absolute path."""
    exe = frozen_executable()
    if exe is not None:
        return str(exe), ["mcp"]
    py = python_executable()
    script = py.parent / (EXE_NAME + ".exe" if sys.platform == "win32" else EXE_NAME)
    if script.is_file():
        return str(script), ["mcp"]
    return str(py), ["-m", "webmcp_sidecar", "mcp"]


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    fsops.write_atomic(path, data)
    return True


def install_into(nm_dir: Path, extension_ids: list[str] | None = None,
                 family: Family = "chromium") -> Path:
    """Write our manifest into one `NativeMessagingHosts` directory (Firefox's
    `native-messaging-hosts`); return its path."""
    nm_dir.mkdir(parents=True, exist_ok=True)
    target = nm_dir / f"{HOST_NAME}.json"
    _write_if_changed(target, manifest_bytes(manifest(write_launcher(), extension_ids, family)))
    return target
