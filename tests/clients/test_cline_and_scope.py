"""The Cline CLI's own settings file, clients-only and browsers-only installs (and uninstalls),
and the folders install creates going again."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clients.conftest import GONE, SIDECAR, Machine

CLINE_SETTINGS = ".cline/data/settings/cline_mcp_settings.json"
MANIFEST = ".config/chromium/NativeMessagingHosts/io.webmcp.sidecar.json"
LAUNCHER = ".local/share/webmcp-sidecar/bin/webmcp-sidecar-host"


def _cline_servers(m: Machine) -> dict[str, dict]:
    """name -> transport, as the Cline CLI's own code resolves them."""
    out = m.run("node", str(Path(__file__).with_name("cline_servers.mjs")), stdout=True)
    return {s["name"]: s["transport"] for s in json.loads(out)}


def _cline(m: Machine, *args: str) -> None:
    m.run("cline", "mcp", "add", "--yes", *args)


def test_cline_cli_is_detected_and_its_file_written(machine: Machine) -> None:
    m = machine
    _cline(m, "mine", "--", "/bin/true")
    out = m.sidecar("install", "--no-browsers")  # detected: no --clients
    assert f"Wrote {m.home / CLINE_SETTINGS}" in out, out
    servers = _cline_servers(m)
    assert servers["webmcp-sidecar"] == {"type": "stdio", "command": str(SIDECAR),
                                         "args": ["mcp"]}
    _cline(m, "later", "--", "/bin/true")  # cline re-writes its file
    m.sidecar("uninstall")
    assert set(m.json(CLINE_SETTINGS)["mcpServers"]) == {"mine", "later"}


def test_cline_cli_users_entry_repointed_then_put_back(machine: Machine) -> None:
    m = machine
    _cline(m, "webmcp-sidecar", "--", GONE, "mcp", "--timeout", "120")
    before = m.json(CLINE_SETTINGS)["mcpServers"]["webmcp-sidecar"]
    out = m.sidecar("install", "--no-browsers")
    assert f"command {GONE} -> {SIDECAR}" in out, out
    assert _cline_servers(m)["webmcp-sidecar"] == {
        "type": "stdio", "command": str(SIDECAR), "args": ["mcp", "--timeout", "120"]}
    _cline(m, "later", "--", "/bin/true")
    m.sidecar("uninstall")
    assert m.json(CLINE_SETTINGS)["mcpServers"]["webmcp-sidecar"] == before


def test_clients_only_then_browsers_only_both_ways(machine: Machine) -> None:
    """Item 5; item 4: what install created goes, folders too, once empty."""
    m = machine
    m.run("claude", "mcp", "add", "-s", "user", "mine", "--", "/bin/true")
    claude_before = m.json(".claude.json")["mcpServers"]
    out = m.sidecar("install", "--no-browsers", "--clients", "claude-code")
    assert not (m.home / MANIFEST).exists() and not (m.home / LAUNCHER).exists(), out
    assert "✔ Connected" in m.run("claude", "mcp", "get", "webmcp-sidecar")
    m.sidecar("install", "--no-clients")  # now the browsers
    assert (m.home / MANIFEST).is_file() and (m.home / LAUNCHER).is_file()
    m.sidecar("uninstall", "--no-browsers")  # the clients go, the browsers stay
    assert m.json(".claude.json")["mcpServers"] == claude_before
    assert (m.home / MANIFEST).is_file() and (m.home / LAUNCHER).is_file()
    m.sidecar("uninstall", "--no-clients")
    assert not (m.home / MANIFEST).exists()
    for gone in (".local/share/webmcp-sidecar", ".local/share", ".config/chromium"):
        assert not (m.home / gone).exists(), gone
    assert "nothing to do" in m.sidecar("install", "--no-browsers", "--no-clients", ok=False)


def test_uninstall_takes_away_the_folders_install_created(machine: Machine) -> None:
    """Item 4: a plain install, the client's health check, a plain uninstall."""
    m = machine
    m.run("claude", "mcp", "add", "-s", "user", "mine", "--", "/bin/true")
    m.sidecar("install")
    assert (m.home / LAUNCHER).is_file() and (m.home / MANIFEST).is_file()
    assert "webmcp-sidecar" in m.run("claude", "mcp", "list")
    m.sidecar("uninstall")
    for gone in (".local/share/webmcp-sidecar", ".local/share", ".config/chromium"):
        assert not (m.home / gone).exists(), gone
    assert set(m.json(".claude.json")["mcpServers"]) == {"mine"}
