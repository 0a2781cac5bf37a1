"""The README's main job, `webmcp-sidecar demo`, run as a user would."""

import os
import subprocess
import sys

import pytest

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
