"""Fixtures for tests that run real MCP servers (npm packages from node_modules, PyPI's
mcp-server-time from the venv, and our misbehaving fixture server) under a ServerManager."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
EVERYTHING = BIN / "mcp-server-everything"
FILESYSTEM = BIN / "mcp-server-filesystem"
TIME = Path(sys.executable).parent / "mcp-server-time"
FAULTY = Path(__file__).parent / "fixtures" / "faulty_server.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.servers)


@pytest.fixture(autouse=True)
def _need_servers() -> None:
    missing = [p.name for p in (EVERYTHING, FILESYSTEM, TIME) if not p.exists()]
    if missing:
        pytest.fail(f"missing {missing}: run ./scripts/setup.sh (npm ci; pip install -e .[test])")


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[[dict], Path]:
    path = tmp_path / "cfg" / "servers.json"

    def write(servers: dict) -> Path:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"mcpServers": servers}))
        return path

    return write


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    d = tmp_path / "marks"
    d.mkdir()
    return d


def faulty(marks: Path, *extra: str) -> dict:
    return {"command": sys.executable, "args": [str(FAULTY), str(marks), *extra]}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return True
