"""The Chrome Web Store's screenshots (1280x800), made by the release script from the real side
panel: headless Chromium with the release's unpacked extension and a fresh profile whose host is
this checkout's (the venv's launcher), the demo flight site in a tab.

Each screenshot is the site (860 px) and the side panel (420 px) side by side, as a user sees
them: Chromium draws no side panel when headless, so the panel page is shot in a tab of its own
at the panel's width and the two are put together in one more page.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import tempfile
from pathlib import Path

from playwright.async_api import Page, async_playwright, expect

from webmcp_sidecar import EXTENSION_ID, HOST_NAME
from webmcp_sidecar.demo.chromium import BASE_FLAGS, find_chromium
from webmcp_sidecar.demo.run import serve_site
from webmcp_sidecar.setup.install.manifest import launcher_spec, manifest, manifest_bytes

WIDTH, HEIGHT, PANEL = 1280, 800, 420
WAIT_MS = 30_000  # the host starts, the page registers its tools


def take(extension: Path, out: Path) -> list[Path]:
    """Writes the screenshots into `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="wms-shots-"))
    env = {**os.environ, "HOME": str(tmp / "home"), "WEBMCP_SIDECAR_LOG_DIR": str(tmp / "log"),
           "WEBMCP_SIDECAR_DATA_DIR": str(tmp / "data"),
           "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp / "config")}
    env.pop("WEBMCP_SIDECAR_SOCKET_DIR", None)
    profile = tmp / "profile"
    nm = profile / "NativeMessagingHosts"
    nm.mkdir(parents=True)
    launcher, text = launcher_spec(tmp)
    launcher.write_bytes(text)
    launcher.chmod(0o755)
    (nm / f"{HOST_NAME}.json").write_bytes(manifest_bytes(manifest(launcher)))
    try:
        return asyncio.run(_take(extension, out, profile, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _take(extension: Path, out: Path, profile: Path, env: dict[str, str]) -> list[Path]:
    shots: list[Path] = []
    with serve_site() as url:
        async with async_playwright() as p:
            ctx = await p.chromium.launch_persistent_context(
                str(profile), executable_path=find_chromium(), headless=True,
                args=[*BASE_FLAGS, "--no-sandbox", f"--load-extension={extension}",
                      f"--disable-extensions-except={extension}"],
                ignore_default_args=["--disable-extensions"], env=env,
                viewport={"width": WIDTH - PANEL, "height": HEIGHT})
            try:
                site = await ctx.new_page()
                await site.goto(url)
                # A search done, so the page and the tool's answer have flights to show.
                await site.fill("#from", "PEK")
                await site.fill("#to", "SHA")
                await site.fill("#date", "2026-12-18")
                await site.click("button[type=submit]")
                panel = await ctx.new_page()
                await panel.set_viewport_size({"width": PANEL, "height": HEIGHT})
                await panel.goto(f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html")
                await expect(panel.locator("#conn")).to_have_attribute(
                    "data-state", "connected", timeout=WAIT_MS)
                shots.append(await _inspector(site, panel, out))
                shots.append(await _log(site, panel, out))
            finally:
                await ctx.close()
    return shots


async def _inspector(site: Page, panel: Page, out: Path) -> Path:
    """The Inspector: the site's WebMCP tools, one of them called by hand."""
    await panel.click("#tab-inspector")
    block = panel.locator("section.site details.tool-block[data-tool=listFlights]")
    await expect(block).to_have_count(1, timeout=WAIT_MS)
    await block.locator("summary").first.click()
    await block.locator("button", has_text="Call").click()
    await expect(block.locator(".inspect-result .pill")).to_have_text("ok", timeout=WAIT_MS)
    return await _compose(site, panel, out / "1-inspector.png")


async def _log(site: Page, panel: Page, out: Path) -> Path:
    """The Log: every call, from any caller, with where it went."""
    await panel.click("#tab-log")
    await expect(panel.locator("details.log-row")).to_have_count(1, timeout=WAIT_MS)
    await panel.locator("details.log-row summary").first.click()
    return await _compose(site, panel, out / "2-log.png")


async def _compose(site: Page, panel: Page, path: Path) -> Path:
    left = base64.b64encode(await site.screenshot()).decode()
    right = base64.b64encode(await panel.screenshot()).decode()
    page = await site.context.new_page()
    try:
        await page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        await page.set_content(
            "<body style='margin:0;display:flex;background:#fff'>"
            f"<img src='data:image/png;base64,{left}' width={WIDTH - PANEL} height={HEIGHT}>"
            f"<img src='data:image/png;base64,{right}' width={PANEL} height={HEIGHT} "
            "style='border-left:1px solid #ccc;box-sizing:border-box'></body>")
        await page.screenshot(path=str(path))
    finally:
        await page.close()
    return path
