"""`webmcp-sidecar demo --browser firefox` (what `./scripts/demo.sh --browser firefox` runs), as a
user would run it: its own Firefox ESR, host and MCP client; nothing of it left afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _running_with(words: str) -> list[int]:
    """Processes whose command line has `words` (the demo's Firefox names its profile)."""
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if words.encode() in (p / "cmdline").read_bytes():
                    out.append(int(p.name))
            except OSError:
                continue
    return out


def test_the_firefox_demo_calls_the_sites_tools_and_leaves_nothing_behind(tmp_path):
    home = Path(tempfile.mkdtemp(prefix="wmd-"))
    try:
        out = subprocess.run(
            [sys.executable, "-m", "webmcp_sidecar", "demo", "--browser", "firefox"],
            capture_output=True, text=True, timeout=180,
            env={**os.environ, "HOME": str(home), "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
                 "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data")},
        )
        assert out.returncode == 0, out.stdout + out.stderr
        text = out.stdout
        assert "Firefox has no WebMCP" in text and "(a temporary add-on)" in text
        assert "__searchFlights" in text and "__bookFlight" in text
        assert "8 flights PEK-SHA" in text and "(isError=True)" in text
        assert "of 8 flights PEK→SHA on 2026-12-01" in text and "nonstop" in text
        profile = next(line.split(": ", 1)[1] for line in text.splitlines()
                       if line.startswith("Profile: "))
        assert not Path(profile).exists()  # its HOME (manifest, profile) went with it
        assert "extension 0.1.0 connected (Firefox " in (tmp_path / "log" / "host.log").read_text()
        assert _running_with(profile) == []
    finally:
        shutil.rmtree(home, ignore_errors=True)
