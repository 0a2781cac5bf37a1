"""End-to-end fixtures: Debian's Chromium (headless) with our unpacked extension, a fresh
profile whose NativeMessagingHosts holds our manifest (so Chromium itself starts our host),
local test sites, and MCP sessions against our real `webmcp-sidecar mcp`.

Both WebMCP flavours run where the flavour matters: `native` (--enable-features=WebMCP) and
`polyfill` (no flag); a module whose behaviour does not depend on it sets `mode` to one.

A test module shares one browser per mode (launched on first use): each test gets it reset to
one blank tab with no skill and nothing in the registry, and its own MCP entry and session. A
test that kills the host, drops links, restarts the browser, needs another environment or
leaves other state behind is marked `fresh_browser` and gets a browser (and HOME, log and data
dirs) of its own.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.browser import Browser, SharedBrowsers, launch
from tests.support.mcp_session import McpSession
from webmcp_sidecar.demo.run import SITE_DIR, serve_site

SITE = Path(__file__).parent / "site"


def fresh(request: pytest.FixtureRequest) -> bool:
    return request.node.get_closest_marker("fresh_browser") is not None


@pytest.fixture(scope="session")
def site_url() -> Iterator[str]:
    with serve_site(SITE) as url:
        yield url


@pytest.fixture(scope="session")
def other_site_url() -> Iterator[str]:
    """The same pages on another port: another site (host:port) and another origin."""
    with serve_site(SITE) as url:
        yield url


@pytest.fixture(scope="session")
def demo_url() -> Iterator[str]:
    with serve_site(SITE_DIR) as url:
        yield url


def _env(home: Path, base: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "WEBMCP_SIDECAR_LOG_DIR": str(base / "log"),
        "WEBMCP_SIDECAR_DATA_DIR": str(base / "data"),
        "WEBMCP_SIDECAR_LOG_LEVEL": "DEBUG",
    }


class ModuleEnvs:
    """The shared browsers' environments, one per mode (two hosts under one HOME would both
    answer every entry): a HOME (short: a Unix socket's path must fit in ~104 bytes) and log
    and data dirs, for the whole module."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.envs: dict[str, dict[str, str]] = {}

    def get(self, mode: str) -> dict[str, str]:
        if mode not in self.envs:
            home = Path(tempfile.mkdtemp(prefix="wms-"))
            self.envs[mode] = _env(home, self.base / mode)
        return self.envs[mode]

    def close(self) -> None:
        for env in self.envs.values():
            shutil.rmtree(env["HOME"], ignore_errors=True)


@pytest.fixture(scope="module")
def module_envs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleEnvs]:
    envs = ModuleEnvs(tmp_path_factory.mktemp("shared"))
    try:
        yield envs
    finally:
        envs.close()


def _shared_env(request: pytest.FixtureRequest) -> dict[str, str]:
    mode = request.getfixturevalue("mode") if "mode" in request.fixturenames else "-"
    envs: ModuleEnvs = request.getfixturevalue("module_envs")
    return envs.get(mode)


@pytest.fixture
def private_home(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's HOME, set in this process (MCP entries find the hosts through it): the
    module's for its mode on the shared browsers, a new one for a `fresh_browser` test."""
    made = None
    if fresh(request):
        home = made = Path(tempfile.mkdtemp(prefix="wms-"))
    else:
        home = Path(_shared_env(request)["HOME"])
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    try:
        yield home
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


@pytest.fixture
def sidecar_env(request: pytest.FixtureRequest, tmp_path: Path, private_home: Path) -> dict[str, str]:
    """What this test's browser (so its host) got, beyond this process's environment.

    The socket dir is not among them: hosts and entries derive it from HOME (`private_home`,
    set in this process), as real ones do; MCP entries get only the SDK's default environment.
    """
    if fresh(request):
        return _env(private_home, tmp_path)
    return dict(_shared_env(request))


@pytest.fixture(params=["native", "polyfill"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
async def shared_browsers(tmp_path_factory: pytest.TempPathFactory,
                          module_envs: ModuleEnvs) -> AsyncIterator[SharedBrowsers]:
    pool = SharedBrowsers(tmp_path_factory.mktemp("browsers"), module_envs.get)
    try:
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
async def browser(request: pytest.FixtureRequest, tmp_path: Path, sidecar_env: dict[str, str],
                  mode: str, shared_browsers: SharedBrowsers) -> AsyncIterator[Browser]:
    if fresh(request):
        async with launch(tmp_path, sidecar_env, mode) as b:
            yield b
        return
    yield await shared_browsers.get(mode)


@pytest.fixture
async def mcp(sidecar_env: dict[str, str], browser: Browser) -> AsyncIterator[McpSession]:
    async with McpSession(sidecar_env) as session:
        yield session
