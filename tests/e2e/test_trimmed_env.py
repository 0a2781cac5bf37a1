"""An MCP client starts `webmcp-sidecar mcp` with the SDK's trimmed environment (HOME, PATH, ...:
no XDG_RUNTIME_DIR, no TMPDIR), while the browser starts the host with its full one. Both must
still meet on the same socket."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import launch
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar.paths import socket_dir

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]


async def test_an_entry_with_the_sdk_default_env_finds_the_browser_host(
    tmp_path: Path, private_home: Path, sidecar_env: dict[str, str], site_url: str
) -> None:
    # Short paths: Chromium puts its own singleton socket in TMPDIR.
    runtime, temp = private_home / "xdg-runtime", private_home / "t"
    for d in (runtime, temp):
        d.mkdir(mode=0o700)
    # What a desktop session gives the browser (and so its host), but an MCP SDK strips.
    host_env = {**sidecar_env, "XDG_RUNTIME_DIR": str(runtime), "TMPDIR": str(temp)}
    async with launch(tmp_path, host_env, "native") as browser:
        await browser.open(site_url + "tools.html")
        mcp = McpSession(sidecar_env)
        assert mcp.params.env is None  # the SDK's default: only HOME, LOGNAME, PATH, SHELL, ...
        async with mcp:
            slug = site_url.split("/")[2].replace(".", "_").replace(":", "_")
            await mcp.wait_tools(lambda n: f"{slug}__add" in n, timeout=30)
            r = await mcp.call(f"{slug}__add", {"a": 2, "b": 40})
            assert not r.is_error and r.structured_content == {"sum": 42, "label": "A"}, text(r)
        assert list(socket_dir().glob("host-*.sock"))
        assert not list(runtime.rglob("host-*"))  # the host ignored XDG_RUNTIME_DIR
