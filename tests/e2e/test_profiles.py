"""Several browsers (profiles) at once: one MCP client sees the tools of all of them."""

from __future__ import annotations

import pytest

from tests.support.browser import launch
from tests.support.mcp_session import McpSession, text

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]


def slug(url: str) -> str:
    return url.split("/")[2].replace(".", "_").replace(":", "_")


async def test_two_profiles_one_mcp_client(tmp_path, sidecar_env, site_url, other_site_url):
    async with (
        launch(tmp_path / "one", sidecar_env, "native") as first,
        launch(tmp_path / "two", sidecar_env, "polyfill") as second,
    ):
        await first.open(site_url + "tools.html?label=first")
        await second.open(other_site_url + "tools.html?label=second")
        a, b = slug(site_url), slug(other_site_url)
        async with McpSession(sidecar_env) as mcp:
            await mcp.wait_tools(lambda n: f"{a}__whoami" in n and f"{b}__whoami" in n)
            assert text(await mcp.call(f"{a}__whoami")) == "first"
            assert text(await mcp.call(f"{b}__whoami")) == "second"
            await second.ctx.close()  # one browser goes; the other's tools stay
            names = await mcp.wait_tools(lambda n: f"{b}__whoami" not in n)
            assert f"{a}__whoami" in names
