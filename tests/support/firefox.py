"""Debian's Firefox ESR, headless, with our extension as a temporary add-on, driven by its own
WebDriver BiDi (webmcp_sidecar/demo/firefox.py: no geckodriver, no Playwright), for tests/firefox/
and the bench.

Firefox reads host manifests from the user's home, not the profile, so each browser gets a fresh
HOME (short: the host's socket lives under it) and a fresh profile, and the manifest is written
by the real `webmcp-sidecar install --browser firefox --no-clients` (this venv's), so the
installer is on every Firefox test's path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

from webmcp_sidecar import GECKO_ID
from webmcp_sidecar.demo.chromium import extension_dir
from webmcp_sidecar.demo.firefox import Firefox, launch


class Tab:
    """One tab (a BiDi browsing context)."""

    def __init__(self, browser: FirefoxBrowser, ctx: str) -> None:
        self.browser = browser
        self.ctx = ctx

    async def evaluate(self, expression: str) -> Any:
        return await self.browser.ff.evaluate(self.ctx, expression)

    async def text_content(self, selector: str) -> Any:
        return await self.evaluate(f"document.querySelector({selector!r})?.textContent ?? null")

    async def wait_for(self, expression: str, timeout: float = 10) -> None:
        """Until `expression` is truthy in the page (re-read on each animation frame there). An
        expression that throws (the document still loading: no `body` yet) is not true yet; the
        last error is in the time-out's message."""
        await self.evaluate(f"""new Promise((resolve, reject) => {{
          const t0 = performance.now();
          let last = '';
          const look = () => {{
            try {{
              if ({expression}) return resolve(true);
            }} catch (e) {{
              last = String(e);
            }}
            if (performance.now() - t0 > {timeout * 1000}) return reject(new Error('timed out ' + last));
            requestAnimationFrame(look);
          }};
          look();
        }})""")

    async def url(self) -> str:
        return str(await self.evaluate("location.href"))

    async def close(self) -> None:
        await self.browser.ff.close_tab(self.ctx)


class FirefoxBrowser:
    def __init__(self, ff: Firefox, env: dict[str, str]) -> None:
        self.ff = ff
        self.env = env
        self.mode = "polyfill"  # Firefox has no WebMCP of its own

    @property
    def home(self) -> Path:
        return Path(self.env["HOME"])

    @property
    def data_dir(self) -> Path:
        return Path(self.env["WEBMCP_SIDECAR_DATA_DIR"])

    async def open(self, url: str) -> Tab:
        return Tab(self, await self.ff.new_tab(url))

    async def open_extension_page(self, path: str) -> Tab:
        """One of our extension's pages in a tab (BiDi may not navigate to moz-extension: the
        browser's own window opens it, as the user's address bar would)."""
        url = f"{self.ff.extension_origin}/{path}"
        before = set(await self.ff.tabs())
        await self.ff.chrome_eval(
            f"gBrowser.selectedTab = gBrowser.addTab({url!r}, {{triggeringPrincipal: "
            "Services.scriptSecurityManager.getSystemPrincipal()}), true")
        with anyio.fail_after(10):
            while not (new := set(await self.ff.tabs()) - before):
                await anyio.sleep(0.05)
        tab = Tab(self, new.pop())
        await tab.wait_for("document.readyState === 'complete'")
        return tab

    def host_log(self) -> str:
        logs = sorted(Path(self.env["WEBMCP_SIDECAR_LOG_DIR"]).glob("host.log*"))
        return "".join(p.read_text(errors="replace") for p in logs)

    async def wait_log(self, words: str, timeout: float = 10) -> None:
        """Until the host's log says `words` (the log is the only view into a Firefox host)."""
        with anyio.fail_after(timeout):
            while words not in self.host_log():
                await anyio.sleep(0.05)

    def entry_log(self) -> str:
        """The MCP entries' log: they start with an MCP SDK's default environment (HOME and a
        few more, no WEBMCP_SIDECAR_LOG_DIR), so it is in the log dir under this HOME."""
        logs = sorted(self.home.rglob("mcp.log*"))
        return "".join(p.read_text(errors="replace") for p in logs)

    async def reset(self) -> None:
        """One blank tab and no skill installed, for the next test of the module."""
        keep = await self.ff.new_tab("about:blank")
        for ctx in await self.ff.tabs():
            if ctx != keep:
                await self.ff.close_tab(ctx)
        for f in (self.data_dir / "skills").glob("*.json"):  # the host watches the folder
            f.unlink()


def install_for_firefox(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The real installer, for Firefox only, into `env`'s HOME and data dir."""
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "install", "--browser", "firefox", "--no-clients"],
        env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60,
    )


def firefox_env(base: Path) -> dict[str, str]:
    home = Path(tempfile.mkdtemp(prefix="wmf-"))  # short: the host's socket path lives under it
    return {
        "HOME": str(home),
        "WEBMCP_SIDECAR_LOG_DIR": str(base / "log"),
        "WEBMCP_SIDECAR_DATA_DIR": str(base / "data"),
        "WEBMCP_SIDECAR_LOG_LEVEL": "DEBUG",
    }


async def wait_stubs(ff: Firefox) -> None:
    """Waits until our background page registered its MAIN stub (background/page-stubs.js), so
    a page opened after this has WebMCP: Firefox's own list of the add-on's content scripts."""
    expr = (f"!!WebExtensionPolicy.getByID({GECKO_ID!r})?.contentScripts"
            ".some(s => s.world === 'MAIN' && s.jsPaths.some(p => p.endsWith('/page/main/start.js')))")
    with anyio.fail_after(15):
        while not await ff.chrome_eval(expr):
            await anyio.sleep(0.02)


@contextlib.asynccontextmanager
async def launch_firefox(base: Path, env: dict[str, str] | None = None,
                         install: bool = True) -> AsyncIterator[FirefoxBrowser]:
    """Firefox (so the host it starts) with this process's environment plus `env` (a fresh HOME
    and log and data dirs under `base` unless given); `install`: run the real installer first."""
    env = env or firefox_env(base)
    if install:
        install_for_firefox(env)
    try:
        async with launch(base / "profile", {**os.environ, **env}, extension_dir(),
                          system_access=True) as ff:
            await wait_stubs(ff)
            yield FirefoxBrowser(ff, env)
    finally:
        shutil.rmtree(env["HOME"], ignore_errors=True)
