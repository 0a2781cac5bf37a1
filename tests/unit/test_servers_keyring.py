"""Server secrets in a real Secret Service (tests/support/keyring_env.py): `--secret-env` and
`--secret-header` go to the keyring, servers.json holds only a reference, the server gets the
value, and the value is in no file we write and no output; import moves secret-looking env too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.keyring_env import secret_service

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
SECRET = "srv-secret-8c1f0a97d2"
HEADER_SECRET = "Bearer hdr-secret-51e7"
IMPORTED = "ghp_imported_secret_3a9d"

GET_ENV = """
import asyncio, sys
from webmcp_sidecar.servers.manager import ServerManager
async def main():
    m = ServerManager()
    r = await m.call("every", "get-env", {})
    await m.aclose()
    text = r.content[0].text
    print("has-secret" if sys.argv[1] in text else "no-secret")
asyncio.run(main())
"""


@pytest.fixture(scope="module")
def keyring_env(tmp_path_factory):
    with secret_service(tmp_path_factory.mktemp("keyring")) as env:
        yield env


def run(env, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT
    )


def test_secrets_live_in_the_keyring_only(keyring_env, tmp_path):
    env = {
        **os.environ,
        **keyring_env,
        "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp_path / "cfg"),
        "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
    }
    outputs = []
    r = run(
        env,
        "-m",
        "webmcp_sidecar",
        "servers",
        "add",
        "every",
        "--secret-env",
        "API_TOKEN",
        "--",
        str(EVERYTHING),
        "stdio",
        stdin=SECRET + "\n",
    )
    outputs.append(r.stdout + r.stderr)
    assert r.returncode == 0, r.stderr
    raw = json.loads((tmp_path / "cfg" / "servers.json").read_text())
    assert raw["mcpServers"]["every"]["env"] == {"API_TOKEN": {"keyring": "server:every:env:API_TOKEN"}}
    looked = subprocess.run(
        ["secret-tool", "lookup", "service", "webmcp-sidecar", "username", "server:every:env:API_TOKEN"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert looked.stdout.strip() == SECRET
    # The server gets it (server-everything's get-env shows its environment).
    r = run(env, "-c", GET_ENV, SECRET)
    outputs.append(r.stdout + r.stderr)
    assert r.stdout.strip() == "has-secret", r.stderr[-2000:]
    r = run(
        env,
        "-m",
        "webmcp_sidecar",
        "servers",
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--secret-header",
        "Authorization",
        stdin=HEADER_SECRET + "\n",
    )
    outputs.append(r.stdout + r.stderr)
    assert r.returncode == 0
    r = run(env, "-m", "webmcp_sidecar", "servers", "test", "web")
    outputs.append(r.stdout + r.stderr)
    assert r.returncode == 1
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(
        json.dumps({"mcpServers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": IMPORTED}}}})
    )
    r = run(
        env, "-m", "webmcp_sidecar", "servers", "import", "--from", "claude-desktop", "--file", str(desktop)
    )
    outputs.append(r.stdout + r.stderr)
    assert "(1 secret to the keyring)" in r.stdout
    r = run(env, "-m", "webmcp_sidecar", "servers", "list", "--json")
    outputs.append(r.stdout + r.stderr)
    for secret in (SECRET, HEADER_SECRET, IMPORTED):
        assert not any(secret in o for o in outputs)
        for p in tmp_path.rglob("*"):
            if p.is_file() and p != desktop:
                assert secret not in p.read_text(errors="ignore"), p
    # Removing a server forgets its secrets.
    assert run(env, "-m", "webmcp_sidecar", "servers", "remove", "every").returncode == 0
    looked = subprocess.run(
        ["secret-tool", "lookup", "service", "webmcp-sidecar", "username", "server:every:env:API_TOKEN"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert looked.stdout.strip() == ""


def test_a_missing_secret_is_said_plainly(keyring_env, tmp_path):
    env = {
        **os.environ,
        **keyring_env,
        "WEBMCP_SIDECAR_CONFIG_DIR": str(tmp_path / "cfg"),
        "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log"),
    }
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "servers.json").write_text(
        json.dumps(
            {"mcpServers": {"s": {"command": str(EVERYTHING), "env": {"K": {"keyring": "server:s:env:K"}}}}}
        )
    )
    r = run(env, "-m", "webmcp_sidecar", "servers", "test", "s")
    assert r.returncode == 1 and "not in the OS keyring any more" in r.stderr and "--secret-env K" in r.stderr
