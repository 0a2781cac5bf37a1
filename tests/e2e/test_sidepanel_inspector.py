"""The Inspector as a person uses it (issue 34): headless Chromium with our extension and the real
host, the demo site in a tab, and npm's `@modelcontextprotocol/server-filesystem` configured with
the CLI as a local MCP server.

In a fresh browser the Inspector lists the configured server at once (without a visit to the
Servers view), not started, with a Start button; started, its tools are there. A multi-line text
result reads as text (its lines kept), JSON in a text and a page's JSON answer are pretty-printed,
the raw call result is one click away; the Log's rows say which server or site each call went to.
Screenshots of the results at 420 px go to /work/helpers/shots/ (else test-artifacts/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Browser, launch
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]  # its own browser

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"
SHOTS = Path("/work/helpers/shots") if Path("/work/helpers").is_dir() else ROOT / "test-artifacts"
SLOW = 30_000  # ms: the host starts, then the server (node takes a moment)

GIT_LOG = (
    "commit 3f2a9c1\nAuthor: Ada Lovelace <ada@example.com>\nDate:   Mon Nov 23 10:04:00 2026\n\n"
    "    Read results as text in the Inspector\n\n"
    "commit 8b71d0e\nAuthor: Charles Babbage <cb@example.com>\nDate:   Sun Nov 22 18:30:00 2026\n\n"
    "    First commit\n"
)
ANSWER = {
    "entities": [
        {"name": "Ada", "entityType": "person", "observations": ['writes "notes"', "likes engines"]},
        {"name": "Engine", "entityType": "machine", "observations": []},
    ]
}

needs_servers = pytest.mark.skipif(
    not (BIN / "mcp-server-filesystem").exists(), reason="npm dev dependencies not installed (npm ci)"
)


@dataclass
class Session:
    browser: Browser
    panel: Page
    files: Path


def add_server(env: dict[str, str], files: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "servers", "add", "files", "--",
         str(BIN / "mcp-server-filesystem"), str(files)],
        env={**os.environ, **env}, capture_output=True, text=True, check=True, timeout=60,
    )


@pytest.fixture
async def s(tmp_path, sidecar_env, demo_url) -> AsyncIterator[Session]:
    files = tmp_path / "files"
    files.mkdir()
    (files / "git-log.txt").write_text(GIT_LOG)
    (files / "answer.json").write_text(json.dumps(ANSWER, separators=(",", ":")))
    env = {**sidecar_env, "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp_path / "config")}
    add_server(env, files)
    async with launch(tmp_path, env, "native") as browser:
        await browser.open(demo_url)
        panel = await browser.ctx.new_page()
        await panel.set_viewport_size({"width": 420, "height": 900})
        await panel.goto(PANEL_URL)
        await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
        yield Session(browser, panel, files)


async def shot(page: Page, name: str, show=None) -> None:
    """The panel as the user sees it (420 px wide), with `show` scrolled into view."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if show is not None:
        await show.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    await page.screenshot(path=str(SHOTS / f"{name}.png"))


async def call(block, path: str) -> None:
    await block.locator(".field input[type=text]").first.fill(path)
    await block.locator("button", has_text="Call").click()
    await expect(block.locator(".inspect-result .pill")).to_have_text("ok", timeout=SLOW)


@needs_servers
async def test_the_inspector_shows_configured_servers_and_results_as_people_read_them(s: Session):
    p = s.panel
    # A fresh browser, straight to the Inspector: the configured server is there, not started.
    await p.click("#tab-inspector")
    files = p.locator("section.server-tools[data-server=files]")
    await expect(files).to_have_attribute("data-running", "false", timeout=SLOW)
    await expect(files.locator(".server-start")).to_contain_text(
        "Not started (starts when used). Start it to see its tools."
    )
    await expect(p.locator(".empty-title", has_text="No tools yet")).to_have_count(0)
    servers = await p.evaluate("globalThis.sidecarPanel.views.servers.servers.map((x) => [x.name, x.state])")
    assert servers == [["files", "stopped"]], "opening the panel started nothing"
    await shot(p, "inspector-server-not-started", files)

    # Start: it runs, and its tools are listed.
    await files.locator(".server-start button", has_text="Start").click()
    await expect(files).to_have_attribute("data-running", "true", timeout=SLOW)
    read = files.locator("details.tool-block[data-tool=read_text_file]")
    await expect(read).to_have_count(1)

    # A multi-line text result: text with its lines, not one line of literal \n.
    await read.locator("summary").first.click()
    await call(read, str((s.files / "git-log.txt").resolve()))
    text = read.locator(".inspect-result pre.result-text")
    assert await text.text_content() == GIT_LOG
    assert await text.evaluate("(el) => el.getBoundingClientRect().height") > 100, "shown on many lines"
    raw = read.locator(".inspect-result details.raw-result")
    assert await raw.evaluate("(el) => el.open") is False
    await shot(p, "inspector-text-result", raw)
    await raw.locator("summary").click()
    raw_json = json.loads(await raw.locator("pre").text_content())
    assert raw_json["content"][0]["text"] == GIT_LOG

    # JSON in a text result: pretty-printed, no \" anywhere.
    await call(read, str((s.files / "answer.json").resolve()))
    pretty = read.locator(".inspect-result pre.result-json")
    assert await pretty.text_content() == json.dumps(ANSWER, indent=2)
    await shot(p, "inspector-json-result", pretty)

    # A page tool's JSON answer too.
    demo = p.locator("section.site details.tool-block[data-tool=listFlights]")
    await demo.locator("summary").first.click()
    await demo.locator("button", has_text="Call").click()
    await expect(demo.locator(".inspect-result .pill")).to_have_text("ok", timeout=SLOW)
    shown = json.loads(await demo.locator(".inspect-result pre.result-json").text_content())
    assert isinstance(shown, dict | list)

    # The Log's rows say where each call went, without opening them.
    await p.click("#tab-log")
    rows = p.locator("details.log-row")
    await expect(rows).to_have_count(3)
    server_rows = rows.filter(has=p.locator("summary .where-name", has_text="files (local MCP server)"))
    await expect(server_rows).to_have_count(2)
    site = await p.evaluate(
        "globalThis.sidecarPanel.views.log.entries.find((e) => e.tool === 'listFlights').site"
    )
    await expect(rows.filter(has=p.locator("summary .where-name", has_text=site))).to_have_count(1)
    await expect(server_rows.first.locator("summary .where")).to_be_visible()
    assert await rows.first.evaluate("(el) => el.open") is False
    await shot(p, "log-rows")

    # The Servers view's "Configured in …" line sits in the view's margins, as its rows do.
    await p.click("#tab-servers")
    foot = p.locator("#view-servers p.pad")
    await expect(foot).to_contain_text("Configured in")
    row = p.locator("article.server[data-server=files]")
    foot_x = await foot.evaluate(
        "(el) => el.getBoundingClientRect().left + parseFloat(getComputedStyle(el).paddingLeft)"
    )
    row_x = await row.evaluate("(el) => el.getBoundingClientRect().left")
    assert foot_x >= row_x, (foot_x, row_x)
    await shot(p, "servers-view", foot)
