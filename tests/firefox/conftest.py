"""Firefox fixtures: one Firefox ESR per test module (headless, fresh HOME and profile, our
extension as a temporary add-on, the host manifest written by the real installer; see
tests/support/firefox.py), the e2e test sites, and an MCP session per test against our real
`webmcp-sidecar mcp`, started with the SDK's default environment."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.firefox import FirefoxBrowser, launch_firefox
from tests.support.mcp_session import McpSession
from webmcp_sidecar.demo.run import serve_site

SITE = Path(__file__).parents[1] / "e2e" / "site"


@pytest.fixture(scope="session")
def site_url() -> Iterator[str]:
    with serve_site(SITE) as url:
        yield url


@pytest.fixture(scope="module")
async def firefox(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FirefoxBrowser]:
    async with launch_firefox(tmp_path_factory.mktemp("firefox")) as b:
        yield b


@pytest.fixture
async def browser(firefox: FirefoxBrowser, monkeypatch: pytest.MonkeyPatch
                  ) -> AsyncIterator[FirefoxBrowser]:
    """The module's Firefox, reset; this process's HOME is its (MCP entries find the host so)."""
    monkeypatch.setenv("HOME", firefox.env["HOME"])
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    await firefox.reset()
    yield firefox


@pytest.fixture
async def mcp(browser: FirefoxBrowser) -> AsyncIterator[McpSession]:
    async with McpSession(browser.env) as session:
        # Nothing of an earlier test's pages left in the registry.
        await session.wait_tools(lambda n: not any("__" in x for x in n))
        yield session
