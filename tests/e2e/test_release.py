"""A release as a user meets it (issue 35): scripts/release.sh's artifacts, on a fresh HOME.

The release is built from this checkout into a temporary dist/ (installers/release.py, the
bundle the session's `bundle` fixture built, so PyInstaller runs once per test run), its
checksums checked, the host tarball unpacked and its install.sh run as a user would (only HOME
and a bare PATH). Chromium (the profile install.sh registered the host in) then loads the BUILT
extension: first the unpacked tree with the development id, then the Chrome Web Store zip (no
`key`, no `debugger`; allowed through WEBMCP_SIDECAR_EXTENSION_IDS, as a self-published id is);
then Firefox ESR loads the built .xpi as a temporary add-on (WebDriver BiDi). Through the
installed `webmcp-sidecar mcp` (the SDK's default environment) a page tool answers in all three;
in the store build and Firefox a tool that needs the debugger says so plainly, and `doctor`
names the build that connected. `install.sh --uninstall` then leaves none of the files install wrote.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from playwright.async_api import BrowserContext, async_playwright, expect

from tests.support.browser import chromium_args, ignored_default_args, wait_stubs
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar import EXTENSION_ID, GECKO_ID, __version__
from webmcp_sidecar.demo.chromium import find_chromium
from webmcp_sidecar.demo.firefox import launch as firefox_launch

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.bundle, pytest.mark.firefox,
              pytest.mark.fresh_browser]

ROOT = Path(__file__).resolve().parents[2]


def unpacked_id(path: Path) -> str:
    """The id Chromium gives an extension without `key` loaded from `path`: the first 128 bits
    of the SHA-256 of the absolute path, hex digits written as the letters a-p."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def tree(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*")}


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """What a user's shell gives install.sh and doctor: no test variables."""
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **extra}


@contextlib.asynccontextmanager
async def chromium(home: Path, extension: Path) -> AsyncIterator[BrowserContext]:
    """Chromium on the user's default profile (where install.sh put the host manifest)."""
    async with async_playwright() as p:
        ctx = await p.chromium.launch_persistent_context(
            str(home / ".config" / "chromium"), executable_path=find_chromium(), headless=True,
            args=chromium_args(extension, native=False),
            ignore_default_args=ignored_default_args(False), env=user_env(home))
        try:
            await wait_stubs(ctx)
            yield ctx
        finally:
            await ctx.close()


async def worker_id(ctx: BrowserContext) -> str:
    w = ctx.service_workers[0] if ctx.service_workers else await ctx.wait_for_event(
        "serviceworker", timeout=10_000)
    return w.url.split("/")[2]


async def run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    with anyio.fail_after(300):
        out = await anyio.run_process(cmd, env=env, check=False)
    return subprocess.CompletedProcess(cmd, out.returncode, out.stdout.decode(),
                                       out.stderr.decode())


async def doctor_live(exe: Path, home: Path) -> dict[str, str]:
    out = await run([str(exe), "doctor", "--json", "--no-launch"], user_env(home))
    [live] = [c for c in json.loads(out.stdout)["checks"] if c["id"].startswith("host:")]
    return live


async def test_a_release_as_a_user_meets_it(bundle: Path, tmp_path: Path, private_home: Path,
                                            site_url: str) -> None:
    home = private_home
    dist = tmp_path / "dist"
    with anyio.fail_after(900):
        await anyio.run_process([sys.executable, str(ROOT / "installers" / "release.py"),
                                 "--dist", str(dist), "--bundle", str(bundle.parent),
                                 "--no-screenshots"])
    name = f"webmcp-sidecar-{__version__}"
    sums = dict(reversed(line.split("  ")) for line in (dist / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == {f"{name}-chrome.zip", f"{name}-chrome-store.zip", f"{name}-firefox.xpi",
                         f"{name}-linux-x86_64.tar.gz"}
    for file, digest in sums.items():
        assert hashlib.sha256((dist / file).read_bytes()).hexdigest() == digest, file

    # The download: unpacked, install.sh run as the user would, with a self-published id.
    download = tmp_path / "download"
    with tarfile.open(dist / f"{name}-linux-x86_64.tar.gz") as t:
        t.extractall(download, filter="tar")
    store = tmp_path / "store"
    with zipfile.ZipFile(dist / f"{name}-chrome-store.zip") as z:
        z.extractall(store)
    store_id = unpacked_id(store)
    before = tree(home)
    inst = await run([str(download / name / "install.sh"), "--browser", "chromium,firefox"],
                     user_env(home, WEBMCP_SIDECAR_EXTENSION_IDS=store_id))
    assert inst.returncode == 0, inst.stdout + inst.stderr
    written = tree(home) - before
    exe = home / ".local" / "bin" / "webmcp-sidecar"
    assert exe.is_symlink() and os.access(exe, os.X_OK)
    host_manifest = json.loads(
        (home / ".config/chromium/NativeMessagingHosts/io.webmcp.sidecar.json").read_text())
    assert host_manifest["allowed_origins"] == [f"chrome-extension://{EXTENSION_ID}/",
                                                f"chrome-extension://{store_id}/"]
    assert host_manifest["path"] == str(home / ".local/share/webmcp-sidecar/app/webmcp-sidecar")
    firefox_manifest = json.loads(
        (home / ".mozilla/native-messaging-hosts/io.webmcp.sidecar.json").read_text())
    assert firefox_manifest["allowed_extensions"] == [GECKO_ID]

    site = site_url.split("/")[2].replace(".", "_").replace(":", "_")
    # The full build, as "Load unpacked" of the release's folder: the development id.
    async with chromium(home, dist / f"{name}-chrome") as ctx:
        assert await worker_id(ctx) == EXTENSION_ID
        page = await ctx.new_page()
        await page.goto(site_url + "tools.html")
        async with McpSession({"HOME": str(home)}, command=[str(exe)]) as mcp:
            await mcp.wait_tools(lambda n: f"{site}__add" in n)
            r = await mcp.call(f"{site}__add", {"a": 40, "b": 2})
            assert r.structured_content == {"sum": 42, "label": "A"}
            assert await page.text_content("#out") == "40+2=42"
            live = await doctor_live(exe, home)
            assert live["status"] == "ok", live
            assert f"the development build (chrome-extension://{EXTENSION_ID}/" in live["detail"]

    # The store build: no debugger permission; page tools work, acting tools say why not.
    manifest = json.loads((store / "manifest.json").read_text())
    assert "key" not in manifest and "debugger" not in manifest["permissions"]
    async with chromium(home, store) as ctx:
        assert await worker_id(ctx) == store_id
        page = await ctx.new_page()
        await page.goto(site_url + "tools.html")
        async with McpSession({"HOME": str(home)}, command=[str(exe)]) as mcp:
            await mcp.wait_tools(lambda n: f"{site}__add" in n)
            r = await mcp.call(f"{site}__add", {"a": 1, "b": 2})
            assert r.structured_content == {"sum": 3, "label": "A"}
            r = await mcp.call("browser_navigate", {"url": site_url + "tools.html"})
            assert not r.is_error, text(r)
            r = await mcp.call("browser_snapshot", {})
            assert not r.is_error and "[e" in text(r), text(r)
            r = await mcp.call("browser_click", {"ref": "e1"})
            assert r.is_error
            assert "browser_click is not available in this build of WebMCP Sidecar" in text(r)
            assert "Chrome Web Store build does not ask for" in text(r)
            live = await doctor_live(exe, home)
            assert f"an extension id of your own (chrome-extension://{store_id}/" in live["detail"]
        # The side panel says what this build leaves out, and where the full one is.
        panel = await ctx.new_page()
        await panel.goto(f"chrome-extension://{store_id}/sidepanel/index.html")
        await panel.click("#tab-settings")
        note = panel.locator("#build-note")
        await expect(note).to_be_visible()
        await expect(note).to_contain_text("This is the Chrome Web Store build")
        await expect(note).to_contain_text("load the full build from the release download")

    # Firefox: the built .xpi as a temporary add-on (unsigned), the same host and entry.
    ff_env = {k: v for k, v in os.environ.items() if not k.startswith("WEBMCP_SIDECAR_")}
    async with firefox_launch(tmp_path / "ff-profile", {**ff_env, "HOME": str(home)}) as ff:
        r = await ff.bidi.send("webExtension.install", {"extensionData": {
            "type": "archivePath", "path": str(dist / f"{name}-firefox.xpi")}})
        assert r.get("extension") == GECKO_ID
        tab = await ff.new_tab(site_url + "tools.html")
        async with McpSession({"HOME": str(home)}, command=[str(exe)]) as mcp:
            await mcp.wait_tools(lambda n: f"{site}__add" in n)
            r = await mcp.call(f"{site}__add", {"a": 5, "b": 6})
            assert r.structured_content == {"sum": 11, "label": "A"}
            assert await ff.evaluate(tab, "document.querySelector('#out').textContent") == "5+6=11"
            r = await mcp.call("browser_navigate", {"url": site_url + "tools.html"})
            assert not r.is_error, text(r)
            r = await mcp.call("browser_click", {"ref": "e1"})
            assert r.is_error and "browser_click is not available in Firefox" in text(r)
            live = await doctor_live(exe, home)
            assert "the Firefox add-on (webmcp-sidecar@webmcp.io, moz-extension://" in live["detail"]

    # Uninstall: every file and link install wrote is gone, and the program folder with them.
    out = await run([str(download / name / "install.sh"), "--uninstall"], user_env(home))
    assert out.returncode == 0, out.stdout + out.stderr
    # What stays is not install's: the browsers' own profiles and caches (and the Downloads
    # folder Firefox makes), and the logs the host and the entry wrote while they ran (kept, as
    # a user's data is; uninstall names them).
    theirs = (".config/chromium", ".config/mozilla", ".mozilla", ".cache", "Downloads",
              ".local/state/webmcp-sidecar", ".local/state", ".local")
    left = [p for p in sorted(written) if (home / p).exists() or (home / p).is_symlink()]
    # A folder install made that now holds one of theirs (`.config` around the browser's
    # profile) stays with it.
    holds_theirs = {str(Path(t).parent) for t in theirs} | set(theirs)
    assert [p for p in left if p not in holds_theirs] == [], left
    now = sorted(tree(home) - before)
    stray = [p for p in now if not p.startswith(theirs) and p not in holds_theirs]
    assert stray == [], stray
    assert not (home / ".mozilla/native-messaging-hosts/io.webmcp.sidecar.json").exists()
    assert not (home / ".local/share").exists() and not (home / ".local/bin").exists()
    assert {p.name for p in (home / ".local/state/webmcp-sidecar/log").iterdir()} <= {
        "host.log", "mcp.log"}
    assert "logs stay in" in out.stdout
