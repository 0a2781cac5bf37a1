"""servers.json models and file handling, and importing other clients' configs (no keyring:
entries without secrets; tests/unit/test_servers_keyring.py has the secrets)."""

from __future__ import annotations

import json
import stat

import pytest

from webmcp_sidecar.servers import imports, redact
from webmcp_sidecar.servers.config import (
    SecretRef,
    ServerConfigError,
    ServerEntry,
    ServersConfig,
    check_name,
    safe_name,
)


def test_entries_are_stdio_or_remote_and_keep_unknown_keys():
    e = ServerEntry.model_validate({"command": "npx", "args": ["-y", "x"], "type": "stdio"})
    assert e.kind == "stdio" and e.dump() == {"command": "npx", "args": ["-y", "x"], "type": "stdio"}
    assert ServerEntry.model_validate({"url": "https://h/mcp"}).kind == "http"
    assert ServerEntry.model_validate({"url": "http://h/sse", "transport": "sse"}).kind == "sse"
    for bad in (
        {},
        {"command": "x", "url": "https://h"},
        {"url": "file:///etc/passwd"},
        {"command": "x", "timeout": -1},
        {"command": "x", "env": {"K": {"keyring": ""}}},
    ):
        with pytest.raises(ValueError):
            ServerEntry.model_validate(bad)
    ref = ServerEntry.model_validate({"command": "x", "env": {"T": {"keyring": "server:a:env:T"}, "P": "1"}})
    assert ref.env["T"] == SecretRef(keyring="server:a:env:T") and ref.refs() == ["server:a:env:T"]
    e = ServerEntry.model_validate({"command": "x", "disabledTools": ["a"]})
    assert e.disabled_tools == ["a"] and e.dump()["disabledTools"] == ["a"]


def test_names():
    assert check_name("files") == "files" and check_name("my_db-2") == "my_db-2"
    for bad in ("", "a__b", "-x", "a b", "x" * 41, "webmcp-sidecar", "ü"):
        with pytest.raises(ServerConfigError):
            check_name(bad)
    assert (
        safe_name("My Server!") == "My-Server" and safe_name("a__b") == "a_b" and safe_name("!!") == "server"
    )


def test_save_is_private_and_round_trips(tmp_path):
    cfg = ServersConfig(tmp_path / "conf" / "servers.json")
    doc = cfg.load()
    assert doc.servers == {}
    doc.servers["a"] = ServerEntry.model_validate({"command": "x", "args": ["1"], "extra": {"k": 1}})
    cfg.save(doc)
    assert stat.S_IMODE(cfg.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cfg.path.parent.stat().st_mode) == 0o700
    raw = json.loads(cfg.path.read_text())
    assert raw == {"mcpServers": {"a": {"command": "x", "args": ["1"], "extra": {"k": 1}}}}
    assert cfg.get("a").args == ["1"]
    with pytest.raises(ServerConfigError, match="No server named 'b'"):
        cfg.get("b")
    cfg.path.write_text('{"mcpServers": {"a": {}}}')
    with pytest.raises(ServerConfigError, match="not a valid servers file"):
        cfg.load()


CLAUDE_DESKTOP = """{
  // Claude Desktop tolerates comments? We read JSONC anyway.
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "My DB": {"command": "uvx", "args": ["mcp-server-sqlite"], "env": {"DB_PATH": "/x.db", "LOG": "1"}},
    "remote": {"url": "https://example.com/mcp", "type": "http"},
    "webmcp-sidecar": {"command": "/opt/webmcp-sidecar/webmcp-sidecar", "args": ["mcp"]},
    "sidecar-again": {"command": "python", "args": ["-m", "webmcp_sidecar", "mcp"]},
    "broken": {"args": ["nothing to run"]}
  },
  "globalShortcut": "Ctrl+Space"
}"""


def test_import_from_a_claude_desktop_file(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(CLAUDE_DESKTOP)
    scan = imports.scan("claude-desktop", path)
    found = {f.name: f for f in scan.found}
    assert set(found) == {"filesystem", "My-DB", "remote"}
    assert found["My-DB"].note == "renamed from 'My DB'"
    assert found["My-DB"].entry.env == {"DB_PATH": "/x.db", "LOG": "1"}
    assert not redact.split_values({"DB_PATH": "/x.db", "LOG": "1"}).secrets
    assert found["remote"].entry.kind == "http"
    assert found["filesystem"].entry.args[-1] == "/tmp"
    skipped = " | ".join(scan.skipped)
    assert "webmcp-sidecar: WebMCP Sidecar itself" in skipped
    assert "sidecar-again: WebMCP Sidecar itself" in skipped and "broken:" in skipped


def test_import_shapes_of_other_clients(tmp_path):
    zed = tmp_path / "zed.json"
    zed.write_text(
        json.dumps(
            {
                "context_servers": {
                    "git": {
                        "source": "custom",
                        "command": {"path": "mcp-git", "args": ["--repo", "."], "env": {}},
                    }
                }
            }
        )
    )
    assert imports.scan("zed", zed).found[0].entry.command == "mcp-git"
    ws = tmp_path / "windsurf.json"
    ws.write_text(json.dumps({"mcpServers": {"r": {"serverUrl": "https://h/sse", "type": "sse"}}}))
    assert imports.scan("windsurf", ws).found[0].entry.kind == "sse"
    codex = tmp_path / "config.toml"
    codex.write_text('[mcp_servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\n')
    assert imports.scan("codex", codex).found[0].entry.args == ["mcp-server-time"]
    vs = tmp_path / "mcp.json"
    vs.write_text(
        json.dumps(
            {
                "servers": {
                    "gh": {
                        "type": "http",
                        "url": "https://h/mcp",
                        "headers": {"Authorization": "${input:tok}"},
                    }
                }
            }
        )
    )
    gh = imports.scan("vscode", vs).found[0]
    assert gh.entry.headers == {"Authorization": "${input:tok}"}
    assert not redact.split_values({"Authorization": "${input:tok}"}).secrets  # a placeholder
    with pytest.raises(imports.ImportError_, match="is not at"):
        imports.scan("cursor", tmp_path / "none.json")
    with pytest.raises(imports.ImportError_, match="unknown MCP client"):
        imports.scan("notepad", vs)


def test_secret_looking_values_are_set_apart():
    assert redact.looks_secret("GITHUB_TOKEN", "ghp_x") and redact.looks_secret("Authorization", "Bearer x")
    assert not redact.looks_secret("API_KEY", "${env:KEY}") and not redact.looks_secret("PATH", "/bin")


def test_secrets_under_plain_names_are_found_by_their_shape():
    """Issue 26 item 8: userinfo, secret query values, token shapes, values of secret flags."""
    env = redact.split_values(
        {
            "DATABASE_URL": "postgresql://me:hunter2@db.local:5432/app",
            "SENTRY_DSN": "https://0f1e2d3c4b5a@o1.ingest.sentry.io/42",
            "HOOK": "https://hooks.example/in?sig=abc&v=1",
            "OPENAI": "sk-proj-abcdefghijklmnop",
            "RANDOM": "a8F3kL9qP2mZ7xR4tV6wY1bN5cD0eG",
            "LOG": "debug",
            "FOLDER": "/home/me/projects/some-long-folder-name-2024-01",
            "ID": "550e8400-e29b-41d4-a716-446655440000",
            "LATER": "${input:db}",
        }
    )
    assert env.secrets == {
        "DATABASE_URL": (
            "postgresql://me:hunter2@db.local:5432/app",
            "postgresql://me:***@db.local:5432/app",
        ),
        "SENTRY_DSN": ("https://0f1e2d3c4b5a@o1.ingest.sentry.io/42", "https://***@o1.ingest.sentry.io/42"),
        "HOOK": ("https://hooks.example/in?sig=abc&v=1", "https://hooks.example/in?sig=***&v=1"),
        "OPENAI": ("sk-proj-abcdefghijklmnop", "***"),
        "RANDOM": ("a8F3kL9qP2mZ7xR4tV6wY1bN5cD0eG", "***"),
    }
    assert env.clear == [
        "LOG=debug",
        "FOLDER=/home/me/projects/some-long-folder-name-2024-01",
        "ID=550e8400-e29b-41d4-a716-446655440000",
        "LATER=${input:db}",
    ]
    args = redact.split_args(
        [
            "-y", "@modelcontextprotocol/server-postgres", "postgresql://me:pw@localhost/db",
            "--bot-token", "xoxb-1-2-3", "--api-key=k3y", "--password", "pw", "--token-file", "/run/t",
            "--port", "8080", "mcp-server-time==2026.1.1", "ghp_abcdefghij0123456789", "--auth", "$TOKEN",
        ]
    )  # fmt: skip
    assert {i: shown for i, (_, shown) in args.secrets.items()} == {
        "2": "postgresql://me:***@localhost/db", "4": "***", "5": "--api-key=***", "7": "***", "13": "***",
    }  # fmt: skip
    assert args.clear == [
        "-y", "@modelcontextprotocol/server-postgres", "--bot-token", "--password", "--token-file", "/run/t",
        "--port", "8080", "mcp-server-time==2026.1.1", "--auth", "$TOKEN",
    ]  # fmt: skip
    assert redact.mask_url("https://mcp.example.com/sse?api_key=abc&region=eu") == (
        "https://mcp.example.com/sse?api_key=***&region=eu"
    )
    assert redact.mask_url("https://mcp.example.com/mcp?region=eu") is None


def test_list_and_logs_mask_secrets_written_in_clear():
    """A servers.json edited by hand may hold a secret in clear: `target()` (list, the logs)
    still shows it masked; references show their `shown`."""
    e = ServerEntry.model_validate(
        {"command": "npx", "args": ["-y", "pkg", "postgresql://u:pw@h/db", "--token", "abc",
                                    {"keyring": "server:s:arg:5", "shown": "--api-key=***"}]}
    )  # fmt: skip
    assert e.target() == "npx -y pkg postgresql://u:***@h/db --token *** --api-key=***"
    remote = ServerEntry.model_validate({"url": "https://h/mcp?api_key=abc&region=eu"})
    assert remote.target() == "https://h/mcp?api_key=***&region=eu"
