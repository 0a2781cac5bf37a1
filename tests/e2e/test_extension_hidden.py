"""A web page cannot detect the extension or read its fixed id through its web-accessible
resource (docs/PROTOCOL.md, "The frame lane"): `page/bridge/lane.html` is web accessible
with `use_dynamic_url`, so it loads only under the browser session's random id, never under
`chrome-extension://<our fixed id>/`, while the lane that needs it still comes up."""

from __future__ import annotations

import pytest

from tests.e2e.test_frame_lane import with_lane
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# How a page probes for an extension: fetch a resource it knows the path of.
PROBE = "(url) => fetch(url).then((r) => r.text(), (e) => `failed: ${e}`)"


@pytest.fixture
def mode() -> str:
    return "native"


async def test_a_page_cannot_load_the_bridge_by_the_fixed_id(browser, mcp, site_url):
    page, _, _ = await with_lane(browser, mcp, site_url)  # the lane still comes up
    url = f"chrome-extension://{EXTENSION_ID}/page/bridge/lane.html"
    got = await page.evaluate(PROBE, url)
    assert got.startswith("failed"), got[:200]
