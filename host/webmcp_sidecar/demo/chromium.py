"""Launching Debian's Chromium with our extension and a private profile (demo, tests, bench)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CANDIDATES = [
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
]

# Quiet flags: no sign-in, sync, updates or background fetches (this machine has no internet).
BASE_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    "--disable-quic",
    "--password-store=basic",
]


def find_chromium(explicit: str | None = None) -> str:
    for c in [explicit, os.environ.get("WEBMCP_SIDECAR_CHROMIUM"), *CANDIDATES]:
        if c and Path(c).is_file():
            return c
    found = shutil.which("chromium")
    if found:
        return found
    raise FileNotFoundError(
        "Chromium not found. Install it (Debian/Ubuntu: sudo apt-get install chromium) or pass "
        "--chromium PATH."
    )


def extension_dir() -> Path:
    """The unpacked extension: `extension/` of the source checkout."""
    override = os.environ.get("WEBMCP_SIDECAR_EXTENSION_DIR")
    if override:
        return Path(override)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "extension" / "manifest.json").is_file():
            return parent / "extension"
    raise FileNotFoundError(
        "extension/ not found next to the package; set WEBMCP_SIDECAR_EXTENSION_DIR"
    )


def flags(ext: Path, *, webmcp: bool, headless: bool) -> list[str]:
    out = [*BASE_FLAGS, f"--load-extension={ext}", f"--disable-extensions-except={ext}"]
    if webmcp:
        out.append("--enable-features=WebMCP")
    if headless:
        out.append("--headless")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        out.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return out
