"""`webmcp-sidecar servers ...` through the real CLI, in a private config and log dir (no secrets
here: tests/unit/test_servers_keyring.py has them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "servers" / "fixtures" / "faulty_server.py"


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp_path / "cfg"),
        "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
        "HOME": str(tmp_path),
    }


def cli(env, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webmcp_sidecar", "servers", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def config(env) -> dict:
    return json.loads((Path(env["WEBMCP_SIDECAR_CONFIG_DIR"]) / "servers.json").read_text())


def test_add_list_test_disable_remove(env, tmp_path):
    marks = tmp_path / "m"
    marks.mkdir()
    r = cli(
        env,
        "add",
        "faulty",
        "--env",
        "A=1",
        "--timeout",
        "30",
        "--",
        sys.executable,
        str(FAULTY),
        str(marks),
        "--garbage",
    )
    assert r.returncode == 0, r.stderr
    assert config(env)["mcpServers"]["faulty"] == {
        "command": sys.executable,
        "args": [str(FAULTY), str(marks), "--garbage"],
        "env": {"A": "1"},
        "timeout": 30.0,
    }
    r = cli(env, "add", "remote", "--url", "http://127.0.0.1:9/mcp", "--header", "X-A=b", "--sse")
    assert r.returncode == 0 and config(env)["mcpServers"]["remote"]["transport"] == "sse"
    assert cli(env, "add", "faulty", "--", "x").returncode == 2  # exists
    assert "either a command" in cli(env, "add", "x").stderr
    assert "cannot be a server name" in cli(env, "add", "a__b", "--", "x").stderr
    r = cli(env, "test", "faulty")
    assert r.returncode == 0 and "faulty works: 4 tools." in r.stdout and "  ping: Answers pong." in r.stdout
    r = cli(env, "test", "remote")
    assert r.returncode == 1 and "could not start" in r.stderr
    r = cli(env, "disable", "faulty", "--tool", "crash")
    assert r.returncode == 0 and config(env)["mcpServers"]["faulty"]["disabledTools"] == ["crash"]
    assert "works: 3 tools" in cli(env, "test", "faulty").stdout
    rows = {row["name"]: row for row in json.loads(cli(env, "list", "--json").stdout)}
    assert rows["faulty"]["state"] == "stopped" and rows["faulty"]["disabledTools"] == ["crash"]
    assert rows["remote"]["state"] == "failed" and "cannot connect" in rows["remote"]["last_error"]
    assert cli(env, "disable", "faulty").returncode == 0
    assert "faulty  stdio  disabled" in cli(env, "list").stdout
    assert "switched off" in cli(env, "test", "faulty").stderr
    assert (
        cli(env, "enable", "faulty").returncode == 0 and "disabled" not in config(env)["mcpServers"]["faulty"]
    )
    assert cli(env, "remove", "remote").returncode == 0 and "remote" not in config(env)["mcpServers"]
    assert "No server named 'remote'" in cli(env, "remove", "remote").stderr
    log = (tmp_path / "log" / "servers" / "faulty.log").read_text()
    assert "ignored what the server sent" in log and "running (4 tools)" in log


def test_import_from_claude_desktop_never_takes_our_own_entry(env, tmp_path):
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "webmcp-sidecar": {"command": "webmcp-sidecar", "args": ["mcp"]},
                }
            }
        )
    )
    r = cli(env, "import", "--from", "claude-desktop", "--file", str(desktop))
    assert r.returncode == 0, r.stderr
    assert "Imported from" in r.stdout and "Skipped webmcp-sidecar: WebMCP Sidecar itself" in r.stderr
    assert list(config(env)["mcpServers"]) == ["time"]
    r = cli(env, "import", "--from", "claude-desktop", "--file", str(desktop))
    assert "Skipped time: a server of that name exists" in r.stderr and "Nothing imported" in r.stdout
    # Its usual place, under this HOME (Linux: ~/.config/Claude/).
    usual = tmp_path / ".config" / "Claude" / "claude_desktop_config.json"
    usual.parent.mkdir(parents=True)
    usual.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    env2 = {k: v for k, v in env.items() if k != "XDG_CONFIG_HOME"}
    assert cli(env2, "import", "--from", "claude-desktop").returncode == 0
    assert set(config(env)["mcpServers"]) == {"time", "other"}
