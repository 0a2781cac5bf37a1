"""Local MCP servers in the side panel end to end (issue 12): headless Chromium with our extension
and the real host (started by the browser), two servers nobody here wrote added with the CLI —
npm `@modelcontextprotocol/server-everything` over stdio and `@modelcontextprotocol/server-
filesystem` on a temp dir — and the local OpenAI-wire test model scripted to call them.

The agent calls `everything__echo` (result shown in its card, untrusted for the model), a long
operation whose progress shows on its card, and reads a file through the filesystem server; the
Inspector lists the tools with their `mcp: <server>` badge and calls one by hand; the operation
log has every call with its caller; the Servers view shows their state and switches a tool off;
an MCP client of `webmcp-sidecar mcp` never sees any of these tools.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Browser, launch
from tests.support.fake_llm import Calls, FakeLLM, Text
from tests.support.mcp_session import McpSession
from webmcp_sidecar import EXTENSION_ID

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.fresh_browser]

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
PANEL_URL = f"chrome-extension://{EXTENSION_ID}/sidepanel/index.html"
ARTIFACTS = ROOT / "test-artifacts"
SLOW = 30_000  # ms: the host starts, then the servers (npx-free, but node takes a moment)

needs_servers = pytest.mark.skipif(
    not (BIN / "mcp-server-everything").exists() or not (BIN / "mcp-server-filesystem").exists(),
    reason="npm dev dependencies not installed (npm ci)",
)


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@dataclass
class Session:
    browser: Browser
    panel: Page
    llm: FakeLLM
    env: dict[str, str]
    files: Path


def servers_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "servers", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )


@pytest.fixture
async def s(tmp_path, sidecar_env, llm, demo_url) -> AsyncIterator[Session]:
    files = tmp_path / "files"
    files.mkdir()
    (files / "note.txt").write_text("The meeting moved to 3 pm, room Jade.\n")
    env = {**sidecar_env, "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp_path / "config")}
    servers_cli(env, "add", "everything", "--", str(BIN / "mcp-server-everything"), "stdio")
    servers_cli(env, "add", "files", "--", str(BIN / "mcp-server-filesystem"), str(files))
    async with launch(tmp_path, env, "native") as browser:
        await browser.open(demo_url)
        panel = await browser.ctx.new_page()
        await panel.set_viewport_size({"width": 400, "height": 900})
        await panel.goto(PANEL_URL)
        await expect(panel.locator("#conn")).to_have_attribute("data-state", "connected", timeout=SLOW)
        yield Session(browser, panel, llm, env, files)


async def configure(s: Session) -> None:
    p = s.panel
    await p.click("#tab-settings")
    await p.select_option("#set-provider", "ollama")
    await p.fill("#set-model", "fake-1")
    await p.fill("#set-base-url", s.llm.openai_url)
    await p.check("input[name=mode][value=auto]")
    await p.click("#save-settings")
    await expect(p.locator("#save-msg")).to_have_text("Saved.")
    await p.click("#tab-chat")


async def send(s: Session, text: str) -> None:
    box = s.panel.locator(".composer-input")
    await box.fill(text)
    await box.press("Enter")


def card(s: Session, tool: str):
    return s.panel.locator(f"article.card[data-tool='{tool}']").last


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        await page.emulate_media(color_scheme=scheme)
        await page.screenshot(path=str(ARTIFACTS / f"sidepanel-{name}-{scheme}.png"))
    await page.emulate_media(color_scheme="light")


@needs_servers
async def test_the_agent_and_the_inspector_use_local_servers(s: Session):
    await configure(s)
    p = s.panel
    # 1. The agent calls server-everything's echo: the servers start on this first use.
    s.llm.script(
        Calls([("everything__echo", {"message": "hello from the panel"})], text="Echoing."),
        Text("The server said hello back."),
    )
    await send(s, "echo hello from the panel")
    await expect(p.locator(".msg.assistant .bubble").last).to_have_text(
        "The server said hello back.", timeout=SLOW
    )
    echo = card(s, "everything__echo")
    await expect(echo.locator(".pill")).to_have_text("done")
    await echo.locator("summary", has_text="Result").click()
    await expect(echo.locator("pre.result")).to_contain_text("Echo: hello from the panel")
    offered = {t["function"]["name"] for t in s.llm.requests[0].body["tools"]}
    assert {"everything__echo", "files__read_text_file", "files__write_file"} <= offered
    tool_msg = next(m for m in s.llm.requests[1].body["messages"] if m["role"] == "tool")
    assert re.match(
        r'<untrusted-[0-9a-f]{16} source="tool_result" tool="everything__echo">', tool_msg["content"]
    )

    # 2. A long operation: its progress notifications show on its card while it runs.
    s.llm.script(
        Calls([("everything__trigger-long-running-operation", {"duration": 4, "steps": 4})]),
        Text("Done waiting."),
    )
    await send(s, "run the long operation")
    long_card = card(s, "everything__trigger-long-running-operation")
    await expect(long_card.locator(".progress")).to_contain_text(re.compile(r"[123] of 4"), timeout=SLOW)
    await expect(long_card.locator(".pill")).to_have_text("done", timeout=SLOW)
    # The turn ends with the model's answer to the result: the next script is for the next turn.
    await expect(p.locator(".msg.assistant .bubble").last).to_have_text("Done waiting.", timeout=SLOW)

    # 3. server-filesystem reads a file in its temp dir for the agent.
    note = str((s.files / "note.txt").resolve())
    s.llm.script(Calls([("files__read_text_file", {"path": note})]), Text("It moved to 3 pm."))
    await send(s, "what does my note say?")
    await expect(p.locator(".msg.assistant .bubble").last).to_have_text("It moved to 3 pm.", timeout=SLOW)
    read = card(s, "files__read_text_file")
    await expect(read.locator(".pill")).to_have_text("done")
    assert (
        "room Jade"
        in next(m for m in reversed(s.llm.requests[-1].body["messages"]) if m["role"] == "tool")["content"]
    )
    await shot(p, "servers-chat")

    # 4. The Inspector lists their tools with the badge, and calls one by hand through the host.
    await p.click("#tab-inspector")
    section = p.locator("section.server-tools[data-server=everything]")
    await expect(section).to_be_visible(timeout=SLOW)
    block = section.locator("details.tool-block[data-tool=echo]")
    await expect(block.locator(".badge.src-mcp")).to_have_text("mcp: everything")
    await expect(
        p.locator("section.server-tools[data-server=files] details.tool-block[data-tool=read_text_file]")
    ).to_have_count(1)
    await block.locator("summary").first.click()
    await block.locator(".field input[type=text]").first.fill("by hand")
    await block.locator("button", has_text="Call").click()
    await expect(block.locator(".inspect-result pre.result")).to_contain_text("Echo: by hand", timeout=SLOW)
    await expect(block.locator(".inspect-result .pill")).to_have_text("ok")

    # 5. The operation log: every server call, with its caller.
    await p.click("#tab-log")
    rows = p.locator("details.log-row")
    await expect(rows).to_have_count(4)
    await expect(rows.filter(has_text="mcp:everything").filter(has_text="Inspector")).to_have_count(1)
    await expect(rows.filter(has_text="mcp:files")).to_have_count(1)
    entries = await p.evaluate(
        "globalThis.sidecarPanel.views.log.entries.map((e) => [e.site, e.tool, e.who.kind, e.state])"
    )
    assert sorted(map(tuple, entries)) == sorted(
        [
            ("mcp:everything", "echo", "agent", "ok"),
            ("mcp:everything", "trigger-long-running-operation", "agent", "ok"),
            ("mcp:files", "read_text_file", "agent", "ok"),
            ("mcp:everything", "echo", "inspector", "ok"),
        ]
    )

    # 6. The Servers view: both running; switching echo off takes it out of the Inspector.
    await p.click("#tab-servers")
    everything = p.locator("article.server[data-server=everything]")
    await expect(everything).to_have_attribute("data-state", "running", timeout=SLOW)
    await expect(p.locator("article.server[data-server=files]")).to_have_attribute("data-state", "running")
    await expect(everything.locator(".server-state")).to_contain_text("tools")
    await shot(p, "servers")
    await everything.locator("li[data-tool=echo] input[type=checkbox]").uncheck()
    await expect(everything.locator("li[data-tool=echo] .badge")).to_have_text("off", timeout=SLOW)
    config = json.loads((Path(s.env["WEBMCP_SIDECAR_CONFIG_DIR"]) / "servers.json").read_text())
    assert config["mcpServers"]["everything"]["disabledTools"] == ["echo"]
    await p.click("#tab-inspector")
    await expect(
        p.locator("section.server-tools[data-server=everything] details.tool-block[data-tool=echo]")
    ).to_have_count(0)
    await expect(
        p.locator("section.server-tools[data-server=everything] details.tool-block[data-tool=get-sum]")
    ).to_have_count(1)


@needs_servers
async def test_mcp_clients_never_get_the_servers_tools(s: Session):
    """The host runs the servers (the panel listed their tools), yet `webmcp-sidecar mcp` offers
    none of them: MCP clients can connect to those servers themselves (no loops)."""
    p = s.panel
    await p.click("#tab-servers")
    await expect(p.locator("article.server[data-server=everything]")).to_have_attribute(
        "data-state", "running", timeout=SLOW
    )
    await expect(p.locator("article.server[data-server=everything] li[data-tool=echo]")).to_have_count(1)
    async with McpSession(s.env) as mcp:
        names = await mcp.wait_tools(
            lambda n: any(x.startswith("localhost") or x.startswith("127") for x in n)
        )
        assert not [
            n for n in names if n.startswith(("everything", "files")) or "echo" in n or "read_text_file" in n
        ]
        assert "browser_navigate" in names  # what an MCP client does get
