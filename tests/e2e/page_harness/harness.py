"""Drive the content scripts in real Chromium, without the real service worker or host.

`scratch_extension()` copies the content scripts the real manifest lists (`extension/page/`) next
to `recorder_sw.js` (a service worker that records every port message and can post calls), with
that manifest's content scripts. `Ext` wraps that worker for the tests. Pages come from `site/`,
served on two ports of 127.0.0.1 (two origins, for the cross-origin iframe cases).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import chromium_args, ignored_default_args
from webmcp_sidecar.demo.chromium import find_chromium
from webmcp_sidecar.demo.run import serve_site

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
EXTENSION = REPO / "extension"
SITE = HERE / "site"


def _chromium() -> Path:
    """Chromium as every test finds it (WEBMCP_SIDECAR_CHROMIUM, else Debian's path); a
    missing one makes the tests that need it skip rather than fail at import."""
    try:
        return Path(find_chromium())
    except FileNotFoundError:
        return Path("/nonexistent/chromium")


CHROMIUM = _chromium()

try:
    import playwright.sync_api  # noqa: F401

    HAVE_PLAYWRIGHT = True
except ImportError:  # pragma: no cover
    HAVE_PLAYWRIGHT = False

# What every page-harness test file marks itself with.
MARKS = [
    pytest.mark.e2e,
    pytest.mark.skipif(not (HAVE_PLAYWRIGHT and CHROMIUM.exists()), reason="needs Playwright and Chromium"),
]

@contextmanager
def serve(directory: Path = SITE) -> Iterator[str]:
    """Serves `directory` on a free port of 127.0.0.1 (the e2e tests' server); yields the
    origin. no-cache, not no-store: no-store pages are kept out of the back/forward cache."""
    with serve_site(directory, headers={"Cache-Control": "no-cache"}) as url:
        yield url.rstrip("/")


PAGE_INSTALL = ("background/page-install.js", "background/page-stubs.js", "offscreen/mode-probe.html",
                "offscreen/mode-probe.js", "lib/install-gate.js", "lib/rate-limit.js", "lib/page-files.js",
                "lib/senders.js")


def scratch_extension(dest: Path) -> Path:
    """The real content scripts (the manifest's, and the MAIN stubs the worker registers) plus
    the recording service worker."""
    manifest = json.loads((EXTENSION / "manifest.json").read_text())
    manifest["background"] = {"service_worker": "recorder_sw.js", "type": "module"}
    manifest.pop("side_panel", None)
    manifest.pop("action", None)
    for entry in manifest["content_scripts"]:
        for rel in entry["js"]:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(EXTENSION / rel, dest / rel)
    for entry in manifest.get("web_accessible_resources", []):  # the frame lane's bridge, with its script
        for rel in entry["resources"]:
            shutil.copytree((EXTENSION / rel).parent, (dest / rel).parent, dirs_exist_ok=True)
    # The rest of the page code, and the worker's part that injects it on a frame's first use.
    for rel in PAGE_INSTALL:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXTENSION / rel, dest / rel)
    for world in ("isolated", "main"):
        shutil.copytree(EXTENSION / "page" / world, dest / "page" / world, dirs_exist_ok=True)
    shutil.copy(HERE / "recorder_sw.js", dest / "recorder_sw.js")
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return dest


@contextmanager
def driver() -> Iterator[Any]:
    """One Playwright driver: the sync API cannot nest, so every browser of a module shares it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@contextmanager
def browser(p: Any, native: bool) -> Iterator[tuple[Any, Ext]]:
    """A persistent Chromium context with the scratch extension; `native` turns WebMCP on."""
    tmp = Path(tempfile.mkdtemp(prefix="webmcp-page-harness-"))
    try:
        ext_dir = scratch_extension(tmp / "ext")
        ctx = p.chromium.launch_persistent_context(
            str(tmp / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=chromium_args(ext_dir, native),
            ignore_default_args=ignored_default_args(bfcache=True),
        )
        try:
            sw = ctx.service_workers[0] if ctx.service_workers else ctx.wait_for_event("serviceworker")
            # This mode's MAIN stub registered (background/page-stubs.js), before any page opens.
            assert sw.evaluate("self.pageStubs.ready") == ("native" if native else "polyfill")
            yield ctx, Ext(sw)
        finally:
            ctx.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def bare_native(p: Any) -> Iterator[Any]:
    """Chromium with WebMCP and no extension at all: what the page sees without us."""
    tmp = Path(tempfile.mkdtemp(prefix="webmcp-conformance-"))
    try:
        ctx = p.chromium.launch_persistent_context(
            str(tmp / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=chromium_args(None, native=True),
        )
        try:
            yield ctx
        finally:
            ctx.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def three_modes() -> Iterator[dict[str, Any]]:
    """The three browsers a page-level test compares: `native` (WebMCP, no extension: the
    reference), `native_ext` (the same with our content scripts) and `polyfill` (no flag)."""
    with (
        driver() as p,
        bare_native(p) as nat,
        browser(p, True) as (nat_ext, _),
        browser(p, False) as (poly, _),
    ):
        yield {"native": nat, "native_ext": nat_ext, "polyfill": poly}


def wait_for(fn: Callable[[], Any], timeout: float = 5.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last value: {v!r}")
        time.sleep(0.05)


class Ext:
    """The recording service worker, seen from the test."""

    def __init__(self, sw: Any) -> None:
        self.sw = sw
        self._ids = 0

    def frames(self, url_part: str) -> list[dict[str, Any]]:
        """The newest tools message of each live port whose URL contains `url_part`."""
        return self.sw.evaluate("(p) => self.toolsOf(p)", url_part)

    def wait_frames(
        self, url_part: str, pred: Callable[[list[dict[str, Any]]], bool], timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        return wait_for(
            lambda: (f := self.frames(url_part)) and pred(f) and f, timeout, f"tools of {url_part}"
        )

    def tools(self, url_part: str) -> dict[str, dict[str, Any]]:
        """Tools by name across the frames of `url_part`."""
        return {t["name"]: t for f in self.frames(url_part) for t in f["tools"]}

    def wait_tool(self, url_part: str, name: str, timeout: float = 5.0) -> dict[str, Any]:
        f = self.wait_frames(
            url_part, lambda fs: any(t["name"] == name for x in fs for t in x["tools"]), timeout
        )
        return next(x for x in f if any(t["name"] == name for t in x["tools"]))

    def call(
        self,
        pid: int,
        tool: str,
        args: dict[str, Any] | None = None,
        *,
        timeout_ms: int = 5000,
        max_bytes: int = 16 * 1024 * 1024,
        call_id: str | None = None,
        wait_ms: int = 10000,
    ) -> dict[str, Any]:
        if call_id is None:
            self._ids += 1
            call_id = f"t{self._ids}"
        msg = {
            "type": "call",
            "id": call_id,
            "tool": tool,
            "args": args or {},
            "timeout_ms": timeout_ms,
            "max_bytes": max_bytes,
        }
        return self.sw.evaluate("([pid, msg, w]) => self.call(pid, msg, w)", [pid, msg, wait_ms])

    def post(self, pid: int, msg: dict[str, Any]) -> bool:
        return self.sw.evaluate("([pid, msg]) => self.post(pid, msg)", [pid, msg])

    def results_for(self, call_id: str) -> list[dict[str, Any]]:
        return self.sw.evaluate("(id) => self.resultsFor(id)", call_id)

    def log(self) -> list[dict[str, Any]]:
        return self.sw.evaluate("() => self.log")

    def kick(self, pid: int) -> bool:
        return self.sw.evaluate("(pid) => self.kick(pid)", pid)
