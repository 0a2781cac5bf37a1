"""Claude Code (`claude`, user scope: ~/.claude.json) and our install / uninstall."""

from __future__ import annotations

from tests.clients.conftest import GONE, SIDECAR, Machine


def _entries(m: Machine) -> dict:
    return m.json(".claude.json").get("mcpServers", {})


def test_added_entry_connects_and_goes_keeping_the_users_servers(machine: Machine) -> None:
    m = machine
    m.run("claude", "mcp", "add", "-s", "user", "github", "-e", "GITHUB_TOKEN=t0k",
          "--", "npx", "-y", "@modelcontextprotocol/server-github")
    github = _entries(m)["github"]
    m.sidecar("install", "--clients", "claude-code")
    listed = m.run("claude", "mcp", "list")
    assert f"webmcp-sidecar: {SIDECAR} mcp - ✔ Connected" in listed, listed
    # The client re-saves the file (a server added its own way), then we uninstall.
    m.run("claude", "mcp", "add", "-s", "user", "later", "--", "/bin/true")
    m.sidecar("uninstall")
    assert "webmcp-sidecar" not in m.run("claude", "mcp", "list")
    assert _entries(m)["github"] == github
    assert "later" in _entries(m)


def test_users_own_entry_keeps_its_args_and_env_and_comes_back_after_a_resave(
        machine: Machine) -> None:
    """Items 1 and 3: a customised entry whose command went stale."""
    m = machine
    m.run("claude", "mcp", "add", "-s", "user", "webmcp-sidecar", "-e", "WEBMCP_X=1",
          "--", GONE, "mcp", "--timeout", "120")
    before = _entries(m)["webmcp-sidecar"]
    out = m.sidecar("install", "--clients", "claude-code")
    assert f"command {GONE} -> {SIDECAR}" in out, out  # says what it changed
    got = m.run("claude", "mcp", "get", "webmcp-sidecar")
    assert f"Command: {SIDECAR}\n" in got and "Args: mcp --timeout 120\n" in got, got
    assert "WEBMCP_X=1" in got and "✔ Connected" in got, got
    assert _entries(m)["webmcp-sidecar"] == {**before, "command": str(SIDECAR)}
    m.run("claude", "mcp", "add", "-s", "user", "later", "--", "/bin/true")  # re-saves the file
    out = m.sidecar("uninstall")
    got = m.run("claude", "mcp", "get", "webmcp-sidecar")
    assert f"Command: {GONE}\n" in got and "Args: mcp --timeout 120\n" in got, got
    assert _entries(m)["webmcp-sidecar"] == before
    assert "later" in _entries(m)


def test_an_entry_install_left_alone_stays_after_uninstall(machine: Machine) -> None:
    """Item 2: the user's working entry: install changes nothing, uninstall removes nothing."""
    m = machine
    m.run("claude", "mcp", "add", "-s", "user", "webmcp-sidecar", "-e", "WEBMCP_X=1",
          "--", str(SIDECAR), "mcp", "--timeout", "120")
    before = m.read(".claude.json")
    out = m.sidecar("install", "--clients", "claude-code")
    assert "Unchanged" in out and m.read(".claude.json") == before, out
    m.run("claude", "mcp", "add", "-s", "user", "later", "--", "/bin/true")
    m.sidecar("uninstall")
    got = m.run("claude", "mcp", "get", "webmcp-sidecar")
    assert f"Command: {SIDECAR}\n" in got and "Args: mcp --timeout 120\n" in got, got
    assert "WEBMCP_X=1" in got
