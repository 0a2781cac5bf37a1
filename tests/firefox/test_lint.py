"""`web-ext lint` (Mozilla's add-on linter, npm dev dependency) on the one extension tree: no
errors, and no warning but the Chrome-only parts that the shared tree keeps on purpose and
Firefox ignores or never reaches (guarded by feature checks: lib/browser-support.js)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[2]
# (code, file, what): each a Chrome-only part of the shared manifest or code.
EXPECTED = {
    ("MANIFEST_PERMISSIONS", "manifest.json", '"sidePanel"'),  # Chrome's side panel
    ("MANIFEST_PERMISSIONS", "manifest.json", '"debugger"'),  # real input, screenshots
    ("MANIFEST_PERMISSIONS", "manifest.json", '"offscreen"'),  # Chrome's mode probe
    ("BACKGROUND_SERVICE_WORKER_IGNORED", "manifest.json", "service_worker"),  # beside scripts
    ("UNSUPPORTED_API", "background/cdp.js", "debugger."),  # only once chrome.debugger exists
    ("UNSUPPORTED_API", "background/panel-bridge.js", "sidePanel."),  # only if chrome.sidePanel
}


def test_web_ext_lint_is_clean_but_for_the_chrome_only_parts():
    out = subprocess.run(
        [str(ROOT / "node_modules/.bin/web-ext"), "lint", "--source-dir", str(ROOT / "extension"),
         "--output", "json"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    report = json.loads(out.stdout)
    assert report["summary"]["errors"] == 0, report["errors"]
    assert report["summary"]["notices"] == 0, report["notices"]
    unexpected = [w for w in report["warnings"]
                  if not any(w["code"] == code and w.get("file") == file and what in w["message"]
                             for code, file, what in EXPECTED)]
    assert unexpected == [], json.dumps(unexpected, indent=1)
