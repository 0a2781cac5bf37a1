"""Debian's Chromium, driven by Playwright, with our unpacked extension and a fresh profile
whose NativeMessagingHosts holds our manifest, so Chromium itself starts our real host.

The one place the tests and benchmarks start Chromium from: the flags (`chromium_args`), the
manifest a profile gets (`write_host_manifest`, the installer's own writer, in process), and
`launch`. The page harness (tests/e2e/page_harness/harness.py) uses the same flags with the sync
API. Playwright never downloads a browser of its own here: we pass `executable_path` to the
system's Chromium.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import anyio
from playwright.async_api import BrowserContext, Page, Worker, async_playwright

from webmcp_sidecar import HOST_NAME
from webmcp_sidecar.demo.chromium import BASE_FLAGS, extension_dir, find_chromium
from webmcp_sidecar.setup.install.manifest import launcher_spec, manifest, manifest_bytes


def chromium_args(ext: Path | None, native: bool, extra: Sequence[str] = ()) -> list[str]:
    """Every test browser's flags: quiet, no sandbox (we run as root), our extension (or none),
    WebMCP on for `native`."""
    args = [*BASE_FLAGS, "--no-sandbox"]
    if ext is not None:
        args += [f"--load-extension={ext}", f"--disable-extensions-except={ext}"]
    if native:
        args.append("--enable-features=WebMCP")
    return [*args, *extra]


def ignored_default_args(bfcache: bool) -> list[str]:
    """Playwright's defaults we drop: it disables extensions, and (unless `bfcache`) the
    back/forward cache."""
    return ["--disable-extensions", *(["--disable-back-forward-cache"] * bfcache)]


class Browser:
    def __init__(self, ctx: BrowserContext, profile: Path, mode: str) -> None:
        self.ctx = ctx
        self.profile = profile
        self.mode = mode

    async def open(self, url: str) -> Page:
        page = await self.ctx.new_page()
        await page.goto(url)
        return page

    async def worker(self) -> Worker:
        if self.ctx.service_workers:
            return self.ctx.service_workers[0]
        return await self.ctx.wait_for_event("serviceworker", timeout=10_000)

    async def stubs(self, ready: bool = False) -> str | None:
        return await wait_stubs(self.ctx, ready)

    async def reset(self, data_dir: Path) -> None:
        """What a test sharing this browser may count on: one blank tab, no skill installed (in
        its host's `data_dir`, nor in the worker), no site in the worker's registry (so none in
        the host's mirror either, once it has heard) and no call pending."""
        keep = await self.ctx.new_page()
        for p in self.ctx.pages:
            if p is not keep:
                await p.close()
        for f in (data_dir / "skills").glob("*.json"):  # the host watches the folder
            f.unlink()
        w = await self.worker()
        with anyio.fail_after(10):
            while not await w.evaluate(
                "() => globalThis.sidecar.registry.sites().length === 0"
                " && globalThis.sidecar.pending.size === 0"
                " && globalThis.sidecar.skills.list.length === 0"
            ):
                await anyio.sleep(0.05)


async def wait_stubs(ctx: BrowserContext, ready: bool = False) -> str | None:
    """Waits until our worker registered a MAIN stub (background/page-stubs.js: the first start
    after an install registers one at once, so a page opened after this has WebMCP) or, with
    `ready`, this mode's own stub (what the page-weight tests and benchmarks look at); the mode.
    A build from before per-mode stubs (a benchmark's `--ext`) has its stub in the manifest."""
    w = ctx.service_workers[0] if ctx.service_workers else await ctx.wait_for_event(
        "serviceworker", timeout=10_000)
    with anyio.fail_after(15):
        while not await w.evaluate("() => !!globalThis.sidecar"):
            await anyio.sleep(0.02)
        if not await w.evaluate("() => !!globalThis.sidecar.pageStubs"):
            return None
        await w.evaluate("() => globalThis.sidecar.pageStubs.registered")
        return await w.evaluate("() => globalThis.sidecar.pageStubs.ready") if ready else None


_LAUNCHER: Path | None = None


def _launcher() -> Path:
    """The launcher naming this venv's Python, written once per test process (what `install`
    writes into the data dir)."""
    global _LAUNCHER
    if _LAUNCHER is None:
        path, data = launcher_spec(Path(tempfile.mkdtemp(prefix="wms-launcher-")))
        path.write_bytes(data)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        _LAUNCHER = path
    return _LAUNCHER


def write_host_manifest(profile: Path) -> Path:
    """Our host manifest in this profile's NativeMessagingHosts, written in process with the
    installer's own functions (tests/unit covers `install` itself; tests/e2e/test_bundle_e2e.py
    and test_demo.py run the real command)."""
    nm = profile / "NativeMessagingHosts"
    nm.mkdir(parents=True, exist_ok=True)
    target = nm / f"{HOST_NAME}.json"
    target.write_bytes(manifest_bytes(manifest(_launcher())))
    return target


def install_manifest(profile: Path, env: dict[str, str], command: list[str]) -> None:
    """The real `webmcp-sidecar install` for this profile, by `command` (e.g. the bundle)."""
    subprocess.run(
        [*command, "install", "--browser", "chromium", "--user-data-dir", str(profile)],
        check=True, env={**os.environ, **env}, capture_output=True,
    )


@contextlib.asynccontextmanager
async def launch(
    tmp_path: Path, env: dict[str, str], mode: str, command: list[str] | None = None,
    bfcache: bool = False, extra_args: Sequence[str] = (),
) -> AsyncIterator[Browser]:
    """Chromium, so the host it starts, gets this process's whole environment plus `env` (as
    a desktop session's browser would); MCP entries get only the SDK's default environment.
    `command`: install with that program (the real `install`, e.g. the bundle) instead of
    writing the manifest in process. `bfcache`: keep Chromium's back/forward cache on
    (Playwright turns it off by default). `extra_args`: more Chromium flags."""
    profile = tmp_path / f"profile-{mode}"
    if command is None:
        write_host_manifest(profile)
    else:
        install_manifest(profile, env, command)
    async with async_playwright() as p:
        ctx = await p.chromium.launch_persistent_context(
            str(profile), executable_path=find_chromium(), headless=True,
            args=chromium_args(extension_dir(), mode == "native", extra_args),
            ignore_default_args=ignored_default_args(bfcache),
            env={**os.environ, **env},
        )
        try:
            b = Browser(ctx, profile, mode)
            await b.stubs()
            yield b
        finally:
            await ctx.close()


class SharedBrowsers:
    """One browser per WebMCP mode for a whole test module, launched when a test first asks
    for that mode (tests/e2e/conftest.py hands it out to tests not marked `fresh_browser`)."""

    def __init__(self, tmp: Path, env_of: Callable[[str], dict[str, str]]) -> None:
        self.tmp = tmp
        self.env_of = env_of  # each mode's browser has a HOME (so a host) of its own
        self._stack = contextlib.AsyncExitStack()
        self._browsers: dict[str, Browser] = {}

    async def get(self, mode: str) -> Browser:
        """This mode's browser, reset for the next test (Browser.reset)."""
        b = self._browsers.get(mode)
        if b is None:
            b = await self._stack.enter_async_context(launch(self.tmp, self.env_of(mode), mode))
            self._browsers[mode] = b
        await b.reset(Path(self.env_of(mode)["WEBMCP_SIDECAR_DATA_DIR"]))
        return b

    async def aclose(self) -> None:
        await self._stack.aclose()

