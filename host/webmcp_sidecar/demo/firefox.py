"""Launching Firefox (Debian's `firefox-esr`) with our extension and a private profile (demo,
tests, bench).

Firefox has no `--load-extension`: an unpacked extension goes in as a temporary add-on, which
WebDriver BiDi (built into Firefox, `--remote-debugging-port`) installs with
`webExtension.install`. So this is a small BiDi client over `websockets`: no geckodriver (none
installs offline here) and no Playwright (1.65 fails on this Firefox).

Firefox reads native-messaging host manifests from the user's home (`~/.mozilla/
native-messaging-hosts`), not from the profile: give it a HOME of its own to keep a test's or
the demo's manifest away from the user's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import uuid as uuidlib
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from webmcp_sidecar import GECKO_ID

CANDIDATES = ["/usr/bin/firefox-esr", "/usr/lib/firefox-esr/firefox-esr", "/usr/bin/firefox"]
START_TIMEOUT_S = 60.0
LISTENING = "WebDriver BiDi listening on "


def find_firefox(explicit: str | None = None) -> str:
    for c in [explicit, os.environ.get("WEBMCP_SIDECAR_FIREFOX"), *CANDIDATES]:
        if c and Path(c).is_file():
            return c
    for name in ("firefox-esr", "firefox"):
        if found := shutil.which(name):
            return found
    raise FileNotFoundError(
        "Firefox not found. Install it (Debian/Ubuntu: sudo apt-get install firefox-esr) or pass "
        "--firefox PATH."
    )


def user_prefs(extension_uuid: str) -> str:
    """The profile's user.js: quiet (this machine has no internet), and our add-on's internal
    UUID fixed, so its origin (`moz-extension://<uuid>`) is known before it is installed."""
    prefs: dict[str, Any] = {
        "extensions.webextensions.uuids": json.dumps({GECKO_ID: extension_uuid}),
        "browser.shell.checkDefaultBrowser": False,
        "browser.startup.homepage_override.mstone": "ignore",
        "browser.aboutwelcome.enabled": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "app.update.disabledForTesting": True,
        "browser.safebrowsing.update.enabled": False,
        "extensions.update.enabled": False,
        "network.captive-portal-service.enabled": False,
        "network.connectivity-service.enabled": False,
        "browser.newtabpage.enabled": False,
    }
    return "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items())


def write_profile(profile: Path, extension_uuid: str) -> None:
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "user.js").write_text(user_prefs(extension_uuid), encoding="utf-8")


class BidiError(Exception):
    """An error answer of a BiDi command (`error`, `message`)."""


class Bidi:
    """A WebDriver BiDi session: commands by id, events to whoever listens for them."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._listeners: dict[str, list[Callable[[dict[str, Any]], None]]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                fut = self._waiting.pop(msg["id"], None) if "id" in msg else None
                if fut is not None and not fut.done():
                    if msg.get("type") == "error":
                        fut.set_exception(BidiError(f"{msg.get('error')}: {msg.get('message')}"))
                    else:
                        fut.set_result(msg.get("result") or {})
                elif msg.get("type") == "event":
                    for listener in list(self._listeners.get(msg.get("method", ""), ())):
                        listener(msg.get("params") or {})
        finally:
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the BiDi connection closed"))

    async def send(self, method: str, params: Mapping[str, Any] | None = None,
                   timeout: float = 60.0) -> dict[str, Any]:
        cid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[cid] = fut
        await self.ws.send(json.dumps({"id": cid, "method": method, "params": dict(params or {})}))
        return await asyncio.wait_for(fut, timeout)

    def on(self, event: str, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Calls `listener` with each `event`'s params (subscribe to it too); returns an undo."""
        self._listeners.setdefault(event, []).append(listener)
        return lambda: self._listeners[event].remove(listener)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(Exception):
            await self.ws.close()


def value_of(remote: dict[str, Any]) -> Any:
    """A BiDi RemoteValue as plain Python (what JSON can say; others as their type name)."""
    kind = remote.get("type")
    v = remote.get("value")
    if kind in ("string", "boolean"):
        return v
    if kind == "number":
        return v if isinstance(v, int | float) else float(str(v).replace("Infinity", "inf"))
    if kind in ("undefined", "null"):
        return None
    if kind == "array":
        return [value_of(x) for x in v or []]
    if kind == "object":
        return {(k if isinstance(k, str) else str(value_of(k))): value_of(x) for k, x in v or []}
    return f"<{kind}>"


class Firefox:
    """A running Firefox and its BiDi session."""

    def __init__(self, proc: asyncio.subprocess.Process, bidi: Bidi, profile: Path,
                 extension_uuid: str) -> None:
        self.proc = proc
        self.bidi = bidi
        self.profile = profile
        self.extension_uuid = extension_uuid

    @property
    def extension_origin(self) -> str:
        return f"moz-extension://{self.extension_uuid}"

    async def install_extension(self, ext: Path) -> str:
        """Our unpacked extension as a temporary add-on; returns its id."""
        r = await self.bidi.send("webExtension.install",
                                 {"extensionData": {"type": "path", "path": str(ext)}})
        return str(r.get("extension", ""))

    async def new_tab(self, url: str | None = None) -> str:
        """A new tab (its browsing context id), loaded with `url` when one is given."""
        ctx = str((await self.bidi.send("browsingContext.create", {"type": "tab"}))["context"])
        if url is not None:
            await self.navigate(ctx, url)
        return ctx

    async def navigate(self, ctx: str, url: str, wait: str = "complete") -> None:
        await self.bidi.send("browsingContext.navigate", {"context": ctx, "url": url,
                                                          "wait": wait})

    async def evaluate(self, ctx: str, expression: str) -> Any:
        """`expression` in the page's own realm (awaited when it is a promise), as Python."""
        r = await self.bidi.send("script.evaluate", {
            "expression": expression, "target": {"context": ctx}, "awaitPromise": True,
            "resultOwnership": "none"})
        if r.get("type") == "exception":
            details = r.get("exceptionDetails") or {}
            raise BidiError(f"page script threw: {details.get('text')}")
        return value_of(r.get("result") or {})

    async def chrome_eval(self, expression: str) -> Any:
        """`expression` in the browser window's own (privileged) scope: needs `system_access`."""
        tree = await self.bidi.send("browsingContext.getTree", {"moz:scope": "chrome"})
        r = await self.bidi.send("script.evaluate", {
            "expression": expression, "target": {"context": tree["contexts"][0]["context"]},
            "awaitPromise": True, "resultOwnership": "none"})
        if r.get("type") == "exception":
            raise BidiError(f"browser script threw: {(r.get('exceptionDetails') or {}).get('text')}")
        return value_of(r.get("result") or {})

    async def tabs(self) -> list[str]:
        tree = await self.bidi.send("browsingContext.getTree", {"maxDepth": 0})
        return [str(c["context"]) for c in tree.get("contexts", [])]

    async def activate(self, ctx: str) -> None:
        await self.bidi.send("browsingContext.activate", {"context": ctx})

    async def close_tab(self, ctx: str) -> None:
        await self.bidi.send("browsingContext.close", {"context": ctx})


async def _listening_url(proc: asyncio.subprocess.Process) -> str:
    """Reads Firefox's stderr until it says where BiDi listens; the rest is drained after."""
    assert proc.stderr is not None
    while line := await proc.stderr.readline():
        text = line.decode("utf-8", "replace").strip()
        if text.startswith(LISTENING):
            return text[len(LISTENING):]
    raise RuntimeError(f"Firefox exited (status {await proc.wait()}) before WebDriver BiDi "
                       "listened")


async def _drain(stream: asyncio.StreamReader | None) -> None:
    while stream is not None and await stream.read(65536):
        pass


@contextlib.asynccontextmanager
async def launch(profile: Path, env: Mapping[str, str], ext: Path | None = None,
                 headless: bool = True, firefox: str | None = None,
                 urls: tuple[str, ...] = (), system_access: bool = False
                 ) -> AsyncIterator[Firefox]:
    """Firefox on a fresh `profile`, with the environment `env` (give it a HOME of its own: see
    the module's doc), our extension `ext` installed as a temporary add-on when given, and a tab
    for each of `urls`. `system_access`: BiDi may also run script in the browser's own windows
    (`Firefox.chrome_eval`; tests open the sidebar so). Closed (the whole process group) on the
    way out."""
    ext_uuid = str(uuidlib.uuid4())
    write_profile(profile, ext_uuid)
    cmd = [find_firefox(firefox), "--profile", str(profile), "--no-remote",
           "--remote-debugging-port", "0", *(["--headless"] if headless else []),
           *(["--remote-allow-system-access"] if system_access else [])]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=dict(env), start_new_session=True)
    drain: asyncio.Task[None] | None = None
    bidi: Bidi | None = None
    try:
        url = await asyncio.wait_for(_listening_url(proc), START_TIMEOUT_S)
        drain = asyncio.get_running_loop().create_task(_drain(proc.stderr))
        ws = await connect(url.rstrip("/") + "/session", max_size=64 * 2**20, open_timeout=30)
        bidi = Bidi(ws)
        await bidi.send("session.new", {"capabilities": {}})
        browser = Firefox(proc, bidi, profile, ext_uuid)
        if ext is not None:
            await browser.install_extension(ext)
        for u in urls:
            await browser.new_tab(u)
        yield browser
    finally:
        if bidi is not None:
            with contextlib.suppress(Exception):
                await bidi.send("browser.close", timeout=10)
            await bidi.close()
        await _stop(proc)
        if drain is not None:
            drain.cancel()


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Firefox (which closes the host it started) within 10 s, else its whole group is killed."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
