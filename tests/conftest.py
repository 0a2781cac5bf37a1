"""Fixtures shared by unit and end-to-end tests."""

from __future__ import annotations

import os
import subprocess
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
def sock_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A private socket dir and log dir for hosts and entries this test starts."""
    e = {"WEBMCP_SIDECAR_SOCKET_DIR": str(tmp_path / "sock"),
         "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log")}
    for k, v in e.items():
        monkeypatch.setenv(k, v)
    return e
