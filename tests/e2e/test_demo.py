"""The README's main job, `webmcp-sidecar demo`, run as a user would."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from webmcp_sidecar.servers.guard import descendants

pytestmark = [pytest.mark.e2e, pytest.mark.fresh_browser]  # the demo starts its own browser


@pytest.mark.parametrize("flag", [[], ["--no-webmcp-flag"]], ids=["native", "polyfill"])
def test_demo_searches_and_shows_what_the_page_shows(flag, sidecar_env):
    out = subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "demo", *flag],
        capture_output=True, text=True, timeout=180, env={**os.environ, **sidecar_env},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert "__searchFlights" in text and "__bookFlight" in text
    assert "8 flights PEK-SHA" in text
    assert "(isError=True)" in text  # the bad date was refused before the page
    assert "of 8 flights PEK→SHA on 2026-12-01" in text  # read back from the page's DOM
    assert "nonstop" in text


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] not in (b"Z", b"X")  # a zombie is dead for our purpose


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_demo_keep_open_takes_everything_it_started_with_it(sig, sidecar_env, tmp_path):
    """Issue 26 item 11: `demo --keep-open` ended by a signal leaves no Chromium (nor host, nor
    MCP entry) and no profile dir behind."""
    # A short TMPDIR of its own: Chromium's singleton socket goes there, and a Unix socket's
    # path must fit in 107 bytes (tmp_path under pytest-xdist is too long).
    tmp = Path(tempfile.mkdtemp(prefix="wms-t"))
    env = {**os.environ, **sidecar_env, "TMPDIR": str(tmp)}
    err = (tmp_path / "demo.err").open("w")
    demo = subprocess.Popen(
        [sys.executable, "-m", "webmcp_sidecar", "demo", "--keep-open"],
        stdout=subprocess.PIPE, stderr=err, text=True, env=env,
        start_new_session=True,  # the signal reaches the demo alone, not a terminal's whole group
    )  # fmt: skip
    watchdog = threading.Timer(240, demo.kill)  # a demo that never gets ready fails, not hangs
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
        profile = Path(re.search(r"^Profile: (.+)$", text, re.M).group(1))
        assert profile.is_dir()
        started = descendants(demo.pid)
        browsers = [p for p in started if "chromium" in _cmdline(p)]
        assert browsers, [_cmdline(p) for p in started]
        assert any("webmcp_sidecar mcp" in _cmdline(p) for p in started)  # the demo's MCP entry
        assert any("chrome-extension://" in _cmdline(p) for p in started)  # the host Chromium started
        demo.send_signal(sig)
        expected = 0 if sig == signal.SIGINT else 128 + sig  # Ctrl-C is the documented way out
        assert demo.wait(60) == expected, (tmp_path / "demo.err").read_text()[-2000:]
        assert "Traceback" not in (tmp_path / "demo.err").read_text()
        # Processes a browser leaves may take a moment after the demo: wait for them (bounded).
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [_cmdline(p) for p in started if _alive(p)] == []
        assert not profile.exists()
    finally:
        watchdog.cancel()
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        for p in descendants(1):  # tidy up after a failed run: what still uses our temp dir
            if str(tmp) in _cmdline(p):
                os.kill(p, signal.SIGKILL)
        err.close()
        shutil.rmtree(tmp, ignore_errors=True)
