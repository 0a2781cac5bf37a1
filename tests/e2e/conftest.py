"""End-to-end fixtures: Debian's Chromium (headless) with our unpacked extension, a fresh
profile whose NativeMessagingHosts holds our manifest (so Chromium itself starts our host),
local test sites, and MCP sessions against our real `webmcp-sidecar mcp`.

Both WebMCP flavours run: `native` (--enable-features=WebMCP) and `polyfill` (no flag).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.browser import Browser, launch
from tests.support.mcp_session import McpSession
from webmcp_sidecar.demo.run import SITE_DIR, serve_site

SITE = Path(__file__).parent / "site"


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


@pytest.fixture
def sidecar_env(tmp_path: Path, private_home: Path) -> dict[str, str]:
    """Paths private to this test, so parallel or leftover hosts never mix in.

    The socket dir is not among them: hosts and entries derive it from HOME (`private_home`,
    set in this process), as real ones do; MCP entries get only the SDK's default environment.
    """
    env = {
        "HOME": str(private_home),
        "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
        "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data"),
        "WEBMCP_SIDECAR_LOG_LEVEL": "DEBUG",
    }
    return env


@pytest.fixture(params=["native", "polyfill"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def browser(tmp_path: Path, sidecar_env: dict[str, str], mode: str) -> AsyncIterator[Browser]:
    async with launch(tmp_path, sidecar_env, mode) as b:
        yield b


@pytest.fixture
async def mcp(sidecar_env: dict[str, str], browser: Browser) -> AsyncIterator[McpSession]:
    async with McpSession(sidecar_env) as session:
        yield session
