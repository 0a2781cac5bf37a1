"""Install / uninstall against the real MCP client programs from npm (package.json pins them).

Each test gets a fresh HOME; the client programs are shared (node_modules/.bin). A client
writes its own config first (its own `mcp add`), our `install` / `uninstall` run as the user
would run them (the venv's `webmcp-sidecar`), and the client re-saves the file in between.
What the test checks is what the client itself reports (`mcp get` / `mcp list`) plus the file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
CLIENTS = ("claude", "gemini", "codex", "cline")
# This install's MCP command, as `install` writes it (manifest.mcp_command in this venv).
SIDECAR = Path(sys.executable).parent / "webmcp-sidecar"
# A command path that no longer exists: an entry written by an install since removed.
GONE = "/nonexistent/old-venv/bin/webmcp-sidecar"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.clients)


@pytest.fixture(autouse=True, scope="session")
def _need_clients() -> None:
    missing = [c for c in CLIENTS if not (BIN / c).exists()]
    if missing or not SIDECAR.exists():
        pytest.fail(f"missing {missing or SIDECAR}: run ./scripts/setup.sh (npm ci; pip install -e .)")


class Machine:
    """A user's fresh HOME, and the programs they run in it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("WEBMCP_SIDECAR_", "XDG_", "CLAUDE_", "CODEX_", "GEMINI_",
                                    "CLINE_"))}
        env.update(HOME=str(home), GEMINI_CLI_TRUST_WORKSPACE="true", NO_COLOR="1",
                   DISABLE_AUTOUPDATER="1", CI="1")
        self.env = env

    def run(self, program: str, *args: str, ok: bool = True, stdout: bool = False) -> str:
        """The program's output (stdout and stderr, or stdout alone); it must succeed unless
        not `ok`."""
        exe = str(BIN / program) if program in CLIENTS else program
        out = subprocess.run([exe, *args], cwd=self.home, env=self.env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=120)
        text = out.stdout + out.stderr
        if ok:
            assert out.returncode == 0, f"{program} {' '.join(args)} -> {out.returncode}\n{text}"
        return out.stdout if stdout else text

    def sidecar(self, *args: str, ok: bool = True) -> str:
        return self.run(str(SIDECAR), *args, ok=ok)

    def read(self, rel: str) -> str:
        return (self.home / rel).read_text(encoding="utf-8")

    def json(self, rel: str) -> dict:
        return json.loads(self.read(rel))


@pytest.fixture
def machine() -> Iterator[Machine]:
    # Short, not under tmp_path: the MCP entry a client starts puts a Unix socket under HOME.
    home = Path(tempfile.mkdtemp(prefix="wmc-"))
    try:
        yield Machine(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
