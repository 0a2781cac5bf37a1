"""Fixtures shared by unit and end-to-end tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bundle() -> Path:
    given = os.environ.get("WEBMCP_SIDECAR_BUNDLE")
    if given:
        return Path(given)
    out = subprocess.run([str(ROOT / "installers/build.sh")], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    exe = Path(out.stdout.strip().splitlines()[-1])
    assert exe.is_file() and os.access(exe, os.X_OK)
    return exe


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def private_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh HOME for this test, set in this process.

    MCP entries start with the SDK's default environment (HOME, PATH, ...), so HOME is what an
    entry and the hosts this test starts share: both derive the socket dir from it. It is short
    (not under tmp_path) because a Unix socket's whole path must fit in ~104 bytes.
    """
    home = Path(tempfile.mkdtemp(prefix="wms-"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def sock_env(tmp_path: Path, private_home: Path,
             monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What the hosts this test starts get: its own HOME (hence socket dir) and log dir."""
    e = {"HOME": str(private_home), "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log")}
    for k, v in e.items():
        monkeypatch.setenv(k, v)
    return e
