"""`webmcp-sidecar demo`: the whole chain on the embedded flight-search site.

Serves the site on localhost, starts Chromium with our extension and a fresh profile whose
NativeMessagingHosts holds our manifest (so the browser itself starts our host), then acts as an
MCP client through `webmcp-sidecar mcp`: once the browser is connected, opens the site with the
`browser_navigate` tool (a fresh install's first page could otherwise load before the extension
registered its page script), lists the tools, searches flights, filters them, and reads back
what the page shows. On SIGTERM, SIGINT or SIGHUP (`--keep-open` waits for one) it
stops the MCP client (and the entry it started), Chromium's whole process group (and the host
Chromium started) and removes the profile dir, whatever it was doing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types

from webmcp_sidecar.demo.chromium import extension_dir, find_chromium, flags
from webmcp_sidecar.setup.install.manifest import install_into

SITE_DIR = Path(__file__).parent / "site"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extra_headers: dict[str, str] = {}  # noqa: RUF012 (set per server by a subclass)

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve_site(directory: Path = SITE_DIR, headers: dict[str, str] | None = None) -> Iterator[str]:
    """Serve `directory` on a free loopback port (a thread), adding `headers` to every answer."""
    cls = type("Handler", (_QuietHandler,), {"extra_headers": dict(headers or {})})
    handler = functools.partial(cls, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _say(msg: str = "") -> None:
    print(msg, flush=True)


async def _drive(url: str, keep_open: bool) -> int:
    site = url.split("/")[2]
    # Started as any MCP client starts it: the SDK's default environment (HOME, PATH, ...), from
    # which it finds the socket dir of the browser's host all the same.
    params = StdioServerParameters(command=sys.executable, args=["-m", "webmcp_sidecar", "mcp"])
    async with Client(params, client_info=types.Implementation(name="demo", version="1")) as c:
        _say(f"MCP client connected to `webmcp-sidecar mcp` (protocol {c.protocol_version}).")
        tools: list[types.Tool] = []
        # The browser is connected once its tools are offered; its extension has registered the
        # page script by then (background/page-stubs.js), so the site's page gets WebMCP.
        with anyio.move_on_after(45):
            while not any(t.name == "browser_navigate" for t in tools):
                tools = (await c.list_tools()).tools
                await anyio.sleep(0.25)
        r = await c.call_tool("browser_navigate", {"url": url})
        _say(f"Opened {url} with browser_navigate (isError={r.is_error}).")
        with anyio.move_on_after(45):
            while not any(t.name.endswith("__searchFlights") for t in tools):
                tools = (await c.list_tools()).tools
                await anyio.sleep(0.25)
        site_tools = [t for t in tools if "__" in t.name]
        if not site_tools:
            _say(
                "The site's tools did not show up within 45 s. Run `webmcp-sidecar doctor`; "
                "logs are in the directory it prints."
            )
            return 1
        _say(f"\nTools the MCP client sees ({len(tools)}):")
        for t in tools:
            _say(f"  {t.name:34} {(t.description or '').splitlines()[0][:70]}")

        def name(tool: str) -> str:
            return next(t.name for t in site_tools if t.name.endswith("__" + tool))

        args = {"from": "PEK", "to": "SHA", "date": "2026-12-01", "passengers": 1}
        _say(f"\nCalling {name('searchFlights')} {json.dumps(args)}")
        t0 = time.perf_counter()
        r = await c.call_tool(name("searchFlights"), args)
        dt = (time.perf_counter() - t0) * 1000
        found = r.structured_content or {}
        _say(f"  -> {found.get('count')} flights {found.get('route')} in {dt:.1f} ms (isError={r.is_error})")
        for f in (found.get("flights") or [])[:3]:
            _say(f"     {f['id']} {f['airline']:14} {f['departure']} stops={f['stops']} ¥{f['price']}")

        _say(f'\nCalling {name("setFilters")} {{"maxStops": 0, "sortBy": "departure"}}')
        r = await c.call_tool(name("setFilters"), {"maxStops": 0, "sortBy": "departure"})
        _say(f"  -> {_text(r)}")

        _say(f"\nCalling {name('searchFlights')} with a bad date (validated before the page):")
        r = await c.call_tool(name("searchFlights"), {"from": "PEK", "to": "SHA", "date": "soon"})
        _say("  -> " + _text(r).splitlines()[1] + f" (isError={r.is_error})")

        _say(f"\nWhat the page at {site} now shows ({name('listFlights')}):")
        r = await c.call_tool(name("listFlights"), {})
        shown = r.structured_content or {}
        _say(f"  {shown.get('status')}")
        for line in shown.get("flights", []):
            _say(f"   - {line}")

        if keep_open:
            _say(
                "\nThe browser stays open. Point your MCP client at this command:\n"
                f"  {shutil.which('webmcp-sidecar') or sys.executable + ' -m webmcp_sidecar'} mcp\n"
                "e.g. Claude Desktop's claude_desktop_config.json:\n"
                '  {"mcpServers": {"webmcp-sidecar": {"command": "webmcp-sidecar", '
                '"args": ["mcp"]}}}\n'
                "Press Ctrl-C to stop."
            )
            await anyio.sleep_forever()
    return 0


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Stopper:
    """SIGTERM, SIGINT and SIGHUP end the demo the same way, so what it started goes with it.

    While the MCP client runs, the signal cancels it (from the event loop, never an exception
    thrown into the middle of it: the SDK would wrap it in an exception group); otherwise it is a
    KeyboardInterrupt, which unwinds every `finally`. `got` says which signal it was."""

    def __init__(self) -> None:
        self.got: list[int] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.scope: anyio.CancelScope | None = None

    def __call__(self, signum: int, frame: object) -> None:
        self.got.append(signum)
        if self.loop is not None and self.scope is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.scope.cancel)
            return
        raise KeyboardInterrupt

    async def drive(self, url: str, keep_open: bool) -> int:
        with anyio.CancelScope() as scope:
            self.loop, self.scope = asyncio.get_running_loop(), scope
            return await _drive(url, keep_open)
        return 0  # stopped by a signal; main() says which


def main(args: argparse.Namespace) -> int:
    stopper = _Stopper()
    for sig in _STOP_SIGNALS:
        signal.signal(sig, stopper)
    code = 0
    try:
        code = _main(args, stopper)
    except KeyboardInterrupt:  # before the browser was started, or as it was stopped
        pass
    finally:
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
    got = stopper.got  # Ctrl-C is the documented way to stop: 0; SIGTERM, SIGHUP: 128 + signal
    return 128 + got[0] if got and got[0] != signal.SIGINT else code


def _main(args: argparse.Namespace, stopper: _Stopper) -> int:
    if getattr(args, "browser", "chromium") == "firefox":
        return _main_firefox(args, stopper)
    chromium = find_chromium(args.chromium)
    ext = extension_dir()
    profile = Path(tempfile.mkdtemp(prefix="webmcp-sidecar-demo-"))
    try:
        install_into(profile / "NativeMessagingHosts")
        with serve_site() as url:
            return _with_browser(args, stopper, chromium, ext, profile, url)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def _with_browser(
    args: argparse.Namespace, stopper: _Stopper, chromium: str, ext: Path, profile: Path, url: str
) -> int:
    cmd = [chromium, f"--user-data-dir={profile}",
           *flags(ext, webmcp=not args.no_webmcp_flag, headless=not args.headed)]  # fmt: skip
    mode = "native WebMCP" if not args.no_webmcp_flag else "the WebMCP Sidecar polyfill"
    _say(
        f"Demo site: {url}\nChromium: {chromium} ({'headed' if args.headed else 'headless'},"
        f" {mode})\nExtension: {ext}\nProfile: {profile}\n"
    )
    # Its own process group, so that what it leaves (zygote, renderers...) can be ended at once.
    browser = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        return anyio.run(stopper.drive, url, args.keep_open)
    finally:
        for sig in _STOP_SIGNALS:  # a second signal must not cut the cleaning short
            signal.signal(sig, signal.SIG_IGN)
        _stop_browser(browser)


def _stop_browser(browser: subprocess.Popen[bytes]) -> None:
    """SIGTERM (Chromium closes its children and the host it started), then SIGKILL what is left
    in its group, so nothing writes into the profile dir as it is removed."""
    browser.send_signal(signal.SIGTERM)
    try:
        browser.wait(10)
    except subprocess.TimeoutExpired:
        browser.kill()
        browser.wait()
    with contextlib.suppress(OSError):
        os.killpg(browser.pid, signal.SIGKILL)


def _main_firefox(args: argparse.Namespace, stopper: _Stopper) -> int:
    """Firefox ESR with our extension as a temporary add-on (demo/firefox.py). Firefox reads host
    manifests from the home, so it gets a HOME of its own (the manifest, its profile), while its
    host uses this user's socket, data and log dirs: this user's MCP clients see it, as with
    Chromium."""
    from webmcp_sidecar import paths
    from webmcp_sidecar.demo.firefox import find_firefox

    firefox = find_firefox(args.firefox)
    home = Path(tempfile.mkdtemp(prefix="webmcp-sidecar-demo-"))
    env = {**os.environ, "HOME": str(home), "WEBMCP_SIDECAR_SOCKET_DIR": str(paths.socket_dir()),
           "WEBMCP_SIDECAR_DATA_DIR": str(paths.data_dir()),
           "WEBMCP_SIDECAR_LOG_DIR": str(paths.log_dir())}
    try:
        install_into(home / ".mozilla" / "native-messaging-hosts", family="firefox")
        with serve_site() as url:
            _say(f"Demo site: {url}\nFirefox: {firefox} ({'headed' if args.headed else 'headless'}"
                 f", the WebMCP Sidecar polyfill: Firefox has no WebMCP)\nExtension: "
                 f"{extension_dir()} (a temporary add-on)\nProfile: {home / 'profile'}\n")
            return anyio.run(_firefox_drive, args, stopper, firefox, env, home, url)
    finally:
        shutil.rmtree(home, ignore_errors=True)


async def _firefox_drive(args: argparse.Namespace, stopper: _Stopper, firefox: str,
                         env: dict[str, str], home: Path, url: str) -> int:
    from webmcp_sidecar.demo.firefox import launch

    async with launch(home / "profile", env, extension_dir(), headless=not args.headed,
                      firefox=firefox):
        try:
            return await stopper.drive(url, args.keep_open)
        finally:
            for sig in _STOP_SIGNALS:  # a second signal must not cut the cleaning short
                signal.signal(sig, signal.SIG_IGN)
