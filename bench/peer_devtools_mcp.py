"""The peer: chrome-devtools-mcp's `execute_webmcp_tool` on the same page and tool.

Installs `chrome-devtools-mcp` with npm into a cache dir outside the repo (only if missing), runs
it as an MCP stdio server through the Python MCP SDK with its own headless Chromium (Debian's,
--no-sandbox, --enable-features=WebMCP), opens the bench page with its `new_page` tool, and times
sequential `execute_webmcp_tool` calls of `add`.

    .venv/bin/python -m bench.peer_devtools_mcp [--calls 300]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from bench._util import Stats, serve_site, stats_row, table
from webmcp_sidecar.demo.chromium import find_chromium

PACKAGE = "chrome-devtools-mcp"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "webmcp-sidecar-bench"
PEER_DIR = Path(os.environ.get("WEBMCP_BENCH_PEER_DIR") or CACHE / "peer")
BIN = PEER_DIR / "node_modules" / ".bin" / PACKAGE


class PeerUnavailable(Exception):
    """Why the peer cannot run here, in words for the report."""


@dataclass
class PeerResult:
    version: str
    rtt: Stats
    errors: int
    calls: int


def ensure_installed() -> Path:
    """The peer's executable, installed with npm on first use."""
    if BIN.exists():
        return BIN
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        raise PeerUnavailable("node and npm are needed to run chrome-devtools-mcp; neither is on PATH")
    PEER_DIR.mkdir(parents=True, exist_ok=True)
    if not (PEER_DIR / "package.json").exists():
        (PEER_DIR / "package.json").write_text('{"private": true}\n')
    # puppeteer must never fetch a browser: we hand it Debian's Chromium.
    env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}
    proc = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", PACKAGE],
        cwd=PEER_DIR, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0 or not BIN.exists():
        raise PeerUnavailable(f"`npm install {PACKAGE}` failed: {proc.stderr.strip()[-500:]}")
    return BIN


def installed_version() -> str:
    pkg = PEER_DIR / "node_modules" / PACKAGE / "package.json"
    try:
        return str(json.loads(pkg.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "?"


def server_params(chromium: str) -> StdioServerParameters:
    args = [
        str(BIN),
        "--categoryExperimentalWebmcp",
        "--headless",
        "--isolated",  # a throwaway profile, like our bench's fresh one
        f"--executablePath={chromium}",
        "--chromeArg=--no-sandbox",
        "--chromeArg=--enable-features=WebMCP",
        "--no-usage-statistics",
        "--no-performance-crux",
    ]
    env = {**os.environ, "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS": "1", "PUPPETEER_SKIP_DOWNLOAD": "1"}
    return StdioServerParameters(command=shutil.which("node") or "node", args=args, env=env)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _page_id(listing: str, url: str) -> int:
    """The id of `url` in list_pages' text (`2: tools (http://...) [selected]`)."""
    for line in listing.splitlines():
        m = re.match(r"\s*(\d+):.*" + re.escape(url), line)
        if m:
            return int(m.group(1))
    raise PeerUnavailable(f"the peer did not list the page {url}: {listing[:300]!r}")


def _sum_of(result: types.CallToolResult) -> object:
    """`add`'s sum from the peer's answer ({"status": "Completed", "output": {...}})."""
    try:
        data = json.loads(_text(result))
        return data["output"]["sum"]
    except (ValueError, KeyError, TypeError):
        return None


class PeerSession:
    """chrome-devtools-mcp running, with the page open: `call(i)` runs add(i, 1) once."""

    def __init__(self, page_url: str) -> None:
        self.page_url = page_url
        self.version = installed_version()
        self._stack = contextlib.AsyncExitStack()
        self._client: Client | None = None
        self._page_id = 0

    async def __aenter__(self) -> PeerSession:
        ensure_installed()
        self.version = installed_version()
        params = server_params(find_chromium())
        # Its start-up banner goes to stderr: keep it off our table. (Opening /dev/null never blocks.)
        quiet = self._stack.enter_context(open(os.devnull, "w"))  # noqa: ASYNC230
        try:
            self._client = c = await self._stack.enter_async_context(Client(
                stdio_client(params, errlog=quiet), mode="legacy", read_timeout_seconds=60,
                client_info=types.Implementation(name="bench", version="1"),
            ))
            names = {t.name for t in (await c.list_tools()).tools}
            if "execute_webmcp_tool" not in names:
                raise PeerUnavailable(f"{PACKAGE} offers no execute_webmcp_tool: {sorted(names)}")
            opened = await c.call_tool("new_page", {"url": self.page_url})
            if opened.is_error:
                raise PeerUnavailable(f"new_page failed: {_text(opened)[:300]}")
            self._page_id = _page_id(_text(opened), self.page_url)
            await self._wait_for_add()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _wait_for_add(self) -> None:
        # Native registerTool lands asynchronously, and the peer sends no change notification.
        assert self._client
        for _ in range(200):
            listing = await self._client.call_tool("list_webmcp_tools", {"pageId": self._page_id})
            if 'name="add"' in _text(listing):
                return
            await anyio.sleep(0.1)
        raise PeerUnavailable("the page's `add` tool never showed up in list_webmcp_tools")

    async def ping(self, i: int) -> bool:
        """An MCP ping: the floor of its stdio server, for comparison with our entry's."""
        assert self._client
        with warnings.catch_warnings():  # ping is legacy-only in the SDK; this session is legacy
            warnings.simplefilter("ignore")
            await self._client.send_ping()
        return True

    async def call(self, i: int) -> bool:
        """add(i, 1) once; True when the answer is right."""
        assert self._client
        r = await self._client.call_tool("execute_webmcp_tool", {
            "pageId": self._page_id, "toolName": "add", "input": json.dumps({"a": i, "b": 1}),
        })
        return not r.is_error and _sum_of(r) == i + 1


async def measure_peer(page_url: str, calls: int = 300, warmup: int = 50) -> PeerResult:
    async with PeerSession(page_url) as peer:
        for i in range(warmup):
            await peer.call(i)
        secs: list[float] = []
        errors = 0
        for i in range(calls):
            t = time.perf_counter()
            ok = await peer.call(i)
            secs.append(time.perf_counter() - t)
            errors += not ok
    return PeerResult(peer.version, Stats.of_seconds(secs), errors, calls)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=50)
    args = ap.parse_args()

    async def run() -> PeerResult:
        with serve_site() as url:
            return await measure_peer(url + "bench.html", args.calls, args.warmup)

    try:
        res = anyio.run(run)
    except PeerUnavailable as e:
        print(f"chrome-devtools-mcp could not run: {e}", file=sys.stderr)
        return 1
    print(table(
        f"chrome-devtools-mcp {res.version}: execute_webmcp_tool add(a,b), ms",
        ["", "n", "median", "p90", "p99", "max"],
        [stats_row("round trip", res.rtt)],
    ))
    print(f"errors: {res.errors} of {res.calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
