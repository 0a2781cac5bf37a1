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
