"""`webmcp-sidecar demo --browser firefox` (what `./scripts/demo.sh --browser firefox` runs), as a
user would run it: its own Firefox ESR, host and MCP client; nothing of it left afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from webmcp_sidecar import GECKO_ID


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


def test_firefox_demo_keep_open_ends_on_sigterm_with_all_it_started(tmp_path):
    """`--keep-open`: Firefox, the host it started and the demo's MCP entry run until a signal;
    SIGTERM then ends them all and removes the demo's HOME and profile."""
    from webmcp_sidecar.servers.guard import descendants

    home = Path(tempfile.mkdtemp(prefix="wmd-"))
    err = (tmp_path / "demo.err").open("w")
    demo = subprocess.Popen(
        [sys.executable, "-m", "webmcp_sidecar", "demo", "--browser", "firefox", "--keep-open"],
        stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True,
        env={**os.environ, "HOME": str(home), "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
             "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data")})
    watchdog = threading.Timer(180, demo.kill)  # a demo that never gets ready fails, not hangs
    watchdog.start()
    try:
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if line.startswith("Press Ctrl-C to stop."):
                break
        text = "".join(lines)
        assert "Press Ctrl-C to stop." in text, text + (tmp_path / "demo.err").read_text()
        profile = next(x.split(": ", 1)[1] for x in lines if x.startswith("Profile: ")).strip()
        started = descendants(demo.pid)
        assert _running_with(profile), "no Firefox with the demo's profile"
        assert any(GECKO_ID.encode() in _cmdline(p) for p in started)  # the host Firefox started
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(60) == 128 + signal.SIGTERM, (tmp_path / "demo.err").read_text()[-2000:]
        assert "Traceback" not in (tmp_path / "demo.err").read_text()
        deadline = time.monotonic() + 20  # what a browser leaves may take a moment (bounded)
        while any(_cmdline(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [_cmdline(p) for p in started if _cmdline(p)] == []
        assert _running_with(profile) == [] and not Path(profile).exists()
    finally:
        watchdog.cancel()
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        err.close()
        shutil.rmtree(home, ignore_errors=True)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
