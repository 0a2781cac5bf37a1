"""Debian's Chromium, driven by Playwright, with our unpacked extension and a fresh profile
whose NativeMessagingHosts holds our manifest, so Chromium itself starts our real host.

Used by the end-to-end tests and the benchmarks. Playwright never downloads a browser of its own here: we pass
`executable_path` to the system's Chromium.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from playwright.async_api import BrowserContext, Page, Worker, async_playwright

from webmcp_sidecar.demo.chromium import BASE_FLAGS, extension_dir, find_chromium


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


def install_manifest(profile: Path, env: dict[str, str], command: list[str] | None = None) -> None:
    """`webmcp-sidecar install` for this profile, by this venv or by `command` (the bundle)."""
    cmd = command or [sys.executable, "-m", "webmcp_sidecar"]
    subprocess.run(
        [*cmd, "install", "--browser", "chromium", "--user-data-dir", str(profile)],
        check=True, env={**os.environ, **env}, capture_output=True,
    )


@contextlib.asynccontextmanager
async def launch(
    tmp_path: Path, env: dict[str, str], mode: str, command: list[str] | None = None, bfcache: bool = False,
    extra_args: tuple[str, ...] = (),
) -> AsyncIterator[Browser]:
    """Chromium, so the host it starts, gets this process's whole environment plus `env` (as
    a desktop session's browser would); MCP entries get only the SDK's default environment.
    `bfcache`: keep Chromium's back/forward cache on (Playwright turns it off by default).
    `extra_args`: more Chromium switches (e.g. `--host-resolver-rules`)."""
    profile = tmp_path / f"profile-{mode}"
    install_manifest(profile, env, command)
    ext = extension_dir()
    args = [*BASE_FLAGS, "--no-sandbox", f"--load-extension={ext}",
            f"--disable-extensions-except={ext}", *extra_args]
    if mode == "native":
        args.append("--enable-features=WebMCP")
    async with async_playwright() as p:
        ctx = await p.chromium.launch_persistent_context(
            str(profile), executable_path=find_chromium(), headless=True, args=args,
            ignore_default_args=["--disable-extensions", *(["--disable-back-forward-cache"] * bfcache)],
            env={**os.environ, **env},
        )
        try:
            yield Browser(ctx, profile, mode)
        finally:
            await ctx.close()


