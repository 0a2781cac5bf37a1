"""The servers plugin inside the real host process (started as Chrome starts it), with npm's
`@modelcontextprotocol/server-everything` over stdio: the panel's `tools` starts it, an MCP entry
of the same host is never offered its tools, and the host stops it when the browser goes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.raw_entry import RawEntry
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

EVERYTHING = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "mcp-server-everything"
TOOLS = [{"name": "add", "description": "Add", "inputSchema": {"type": "object"}}]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(not EVERYTHING.exists(), reason="npm dev dependencies not installed")
async def test_the_host_runs_servers_for_the_panel_only_and_stops_them_when_it_exits(sock_env, tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    (config / "servers.json").write_text(
        json.dumps({"mcpServers": {"everything": {"command": str(EVERYTHING), "args": ["stdio"]}}})
    )
    b = FakeBrowser({**sock_env, "WEBMCP_SIDECAR_CONFIG_DIR": str(config)})
    await b.start()
    try:
        b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                "extension_version": "0.1.0", "browser": "Test 1"})
        await b.expect("host_hello")
        b.send({"type": "registry", "sites": {"a.test": TOOLS}})
        b.send({"type": "panel_servers", "id": "1", "op": "tools"})
        answer = await b.expect("agent_servers", timeout=60)
        while answer.get("id") != "1":  # state pushes come first, as the server starts
            answer = await b.expect("agent_servers", timeout=60)
        assert answer["ok"] and "echo" in {t["name"] for t in answer["tools"]["everything"]}
        b.send({"type": "panel_servers", "id": "2", "op": "list"})
        listed = await b.expect("agent_servers")
        while listed.get("id") != "2":
            listed = await b.expect("agent_servers")
        [server] = listed["servers"]
        assert server["state"] == "running"
        status = json.loads(
            (Path(sock_env["WEBMCP_SIDECAR_LOG_DIR"]) / "servers" / "status.json").read_text()
        )
        pid = next(s["pid"] for s in status["servers"] if s["name"] == "everything")
        assert pid and alive(pid)
        # An MCP entry of this host gets the sites' tools, never a server's.
        entry = await RawEntry.connect()
        assert set(entry.welcome["sites"]) == {"a.test"}
        flat = json.dumps(entry.welcome)
        assert "everything" not in flat and "echo" not in flat
        entry.close()
    finally:
        code = await b.close()  # the browser goes: stdin closes, the host exits
    assert code == 0
    assert not alive(pid)
