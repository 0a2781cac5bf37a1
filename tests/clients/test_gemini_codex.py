"""Gemini CLI (~/.gemini/settings.json) and Codex CLI (~/.codex/config.toml) and our install /
uninstall. Each client writes its file first and re-saves it between install and uninstall (a
second server added its own way)."""

from __future__ import annotations

import json
import tomllib

from tests.clients.conftest import GONE, SIDECAR, Machine


def _gemini(m: Machine) -> dict:
    return m.json(".gemini/settings.json").get("mcpServers", {})


def _codex(m: Machine) -> dict:
    return tomllib.loads(m.read(".codex/config.toml")).get("mcp_servers", {})


def _codex_get(m: Machine, name: str) -> dict:
    return json.loads(m.run("codex", "mcp", "get", name, "--json", stdout=True))


def test_gemini_entry_install_left_alone_stays_after_uninstall(machine: Machine) -> None:
    """Item 2: the user's entry (env, trust, timeout) already runs our program."""
    m = machine
    m.run("gemini", "mcp", "add", "-s", "user", "-e", "WEBMCP_X=1", "--timeout", "120000",
          "--trust", "webmcp-sidecar", str(SIDECAR), "mcp")
    before = m.read(".gemini/settings.json")
    out = m.sidecar("install", "--clients", "gemini")
    assert "Unchanged" in out and m.read(".gemini/settings.json") == before, out
    m.run("gemini", "mcp", "add", "-s", "user", "later", "/bin/true")  # re-saves the file
    out = m.sidecar("uninstall")
    assert "left as it is" in out, out
    listed = m.run("gemini", "mcp", "list")
    assert f"webmcp-sidecar: {SIDECAR} mcp (stdio) - Connected" in listed, listed
    assert _gemini(m)["webmcp-sidecar"] == json.loads(before)["mcpServers"]["webmcp-sidecar"]


def test_gemini_stale_entry_repointed_then_put_back(machine: Machine) -> None:
    m = machine
    m.run("gemini", "mcp", "add", "-s", "user", "-e", "WEBMCP_X=1", "--timeout", "120000",
          "webmcp-sidecar", GONE, "--", "mcp", "--timeout", "120")
    before = _gemini(m)["webmcp-sidecar"]
    out = m.sidecar("install", "--clients", "gemini")
    assert f"command {GONE} -> {SIDECAR}" in out, out
    listed = m.run("gemini", "mcp", "list")
    assert f"webmcp-sidecar: {SIDECAR} mcp --timeout 120 (stdio) - Connected" in listed, listed
    m.run("gemini", "mcp", "add", "-s", "user", "later", "/bin/true")
    m.sidecar("uninstall")
    assert _gemini(m)["webmcp-sidecar"] == before
    assert f"webmcp-sidecar: {GONE} mcp --timeout 120" in m.run("gemini", "mcp", "list")


def test_gemini_added_entry_goes_after_a_resave(machine: Machine) -> None:
    m = machine
    m.run("gemini", "mcp", "add", "-s", "user", "mine", "/bin/true")
    m.sidecar("install", "--clients", "gemini")
    assert f"webmcp-sidecar: {SIDECAR} mcp (stdio) - Connected" in m.run("gemini", "mcp", "list")
    m.run("gemini", "mcp", "add", "-s", "user", "later", "/bin/true")
    m.sidecar("uninstall")
    assert set(_gemini(m)) == {"mine", "later"}


def test_codex_stale_entry_keeps_args_and_env_and_comes_back(machine: Machine) -> None:
    """Items 1 and 3 in TOML: the user's entry as `codex mcp add` wrote it."""
    m = machine
    m.run("codex", "mcp", "add", "webmcp-sidecar", "--env", "WEBMCP_X=1", "--", GONE, "mcp",
          "--timeout", "120")
    before = _codex(m)["webmcp-sidecar"]
    out = m.sidecar("install", "--clients", "codex")
    assert f"command {GONE} -> {SIDECAR}" in out, out
    got = _codex_get(m, "webmcp-sidecar")
    transport = got["transport"]
    assert transport["command"] == str(SIDECAR), got
    assert transport["args"] == ["mcp", "--timeout", "120"] and transport["env"] == {
        "WEBMCP_X": "1"}, got
    m.run("codex", "mcp", "add", "later", "--", "/bin/true")  # codex re-writes the file
    m.sidecar("uninstall")
    got = _codex_get(m, "webmcp-sidecar")["transport"]
    assert got["command"] == GONE and got["args"] == ["mcp", "--timeout", "120"], got
    assert _codex(m)["webmcp-sidecar"] == before
    assert "later" in _codex(m)


def test_codex_added_entry_goes_after_a_resave(machine: Machine) -> None:
    m = machine
    m.run("codex", "mcp", "add", "mine", "--", "/bin/true")
    m.sidecar("install", "--clients", "codex")
    listed = m.run("codex", "mcp", "list")
    assert "webmcp-sidecar" in listed and str(SIDECAR) in listed, listed
    m.run("codex", "mcp", "add", "later", "--", "/bin/true")
    m.sidecar("uninstall")
    assert set(_codex(m)) == {"mine", "later"}
    assert "webmcp-sidecar" not in m.run("codex", "mcp", "list")
