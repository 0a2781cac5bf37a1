"""The smoke test of the spine against the PyInstaller bundle: Chromium starts the bundled
host (the manifest `install` writes from the bundle points at the bundle's executable), and the
MCP client runs the bundle's `mcp` entry."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.browser import launch
from tests.support.mcp_session import McpSession, text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]


async def test_bundle_serves_page_tools_to_mcp(bundle: Path, tmp_path, sidecar_env, site_url):
    async with launch(tmp_path, sidecar_env, "native", command=[str(bundle)]) as browser:
        manifest = json.loads(
            (browser.profile / "NativeMessagingHosts" / "io.webmcp.sidecar.json").read_text()
        )
        assert os.path.realpath(manifest["path"]) == os.path.realpath(bundle)
        page = await browser.open(site_url + "tools.html")
        site = site_url.split("/")[2].replace(".", "_").replace(":", "_")
        async with McpSession(sidecar_env, command=[str(bundle)]) as mcp:
            await mcp.wait_tools(lambda n: f"{site}__add" in n)
            r = await mcp.call(f"{site}__add", {"a": 40, "b": 2})
            assert r.structured_content == {"sum": 42, "label": "A"}
            assert await page.text_content("#out") == "40+2=42"
            r = await mcp.call(f"{site}__thrower")
            assert r.is_error and "card declined" in text(r)
