"""A user's own `webmcp-sidecar` entry through install and uninstall (fast, on a fake machine;
tests/clients/ does the same with the real client programs)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.test_install_helpers import fake_exe, install, make_ctx, make_env, state_of, uninstall
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install.engine import InstallOptions, apply
from webmcp_sidecar.setup.install.osenv import OsEnv
from webmcp_sidecar.setup.install.plan_install import plan_install

GONE = "/gone/venv/bin/webmcp-sidecar"


def _claude(env: OsEnv, servers: dict) -> Path:
    (env.home / ".claude").mkdir(exist_ok=True)
    path = env.home / ".claude.json"
    path.write_text(json.dumps({"numStartups": 1, "mcpServers": servers}, indent=2) + "\n")
    return path


def _servers(path: Path) -> dict:
    return json.loads(path.read_text())["mcpServers"]


def test_changed_entry_comes_back_exactly_after_the_client_reformats_the_file(
        tmp_path: Path) -> None:
    env = make_env(tmp_path)
    mine = {"type": "stdio", "command": GONE, "args": ["mcp", "--timeout", "120"],
            "env": {"TOKEN": "t"}, "custom": [1, {"a": None}]}
    path = _claude(env, {"webmcp-sidecar": mine, "other": {"command": "x"}})
    plan, failures, ctx = install(env, clients=["claude-code"], no_browsers=True)
    assert failures == [] and plan.problems == []
    assert _servers(path)["webmcp-sidecar"] == {**mine, "command": ctx.mcp[0]}
    assert [s.what for s in plan.steps] == [
        f"Claude Code: mcpServers.webmcp-sidecar: command {GONE} -> {ctx.mcp[0]} (its arguments, "
        "env and other settings kept)"]
    [rec] = state_of(env).clients
    assert rec.entry == "changed"
    data = json.loads(path.read_text())
    data["numStartups"] = 2
    path.write_text(json.dumps(data, indent=4))  # the client re-saves it its own way
    _, failures, _ = uninstall(env)
    assert failures == []
    assert _servers(path) == {"webmcp-sidecar": mine, "other": {"command": "x"}}
    assert json.loads(path.read_text())["numStartups"] == 2


def test_changed_entry_edited_since_is_left(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    path = _claude(env, {"webmcp-sidecar": {"command": GONE, "args": ["mcp"]}})
    install(env, clients=["claude-code"], no_browsers=True)
    data = json.loads(path.read_text())
    data["mcpServers"]["webmcp-sidecar"]["args"] = ["mcp", "--timeout", "5"]
    path.write_text(json.dumps(data))
    plan, _, _ = uninstall(env)
    assert _servers(path)["webmcp-sidecar"]["args"] == ["mcp", "--timeout", "5"]
    assert any("changed since install: left as it is" in w for _, _, w in plan.unchanged)


def test_changed_entry_whose_backup_went_is_left_not_deleted(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    path = _claude(env, {"webmcp-sidecar": {"command": GONE, "args": ["mcp"]}})
    install(env, clients=["claude-code"], no_browsers=True)
    Path(state_of(env).clients[0].baseline or "").unlink()
    path.write_text(path.read_text() + "\n")  # not byte-identical: no whole-file restore
    plan, _, ctx = uninstall(env)
    assert _servers(path)["webmcp-sidecar"]["command"] == ctx.mcp[0]
    assert any("backup holding your entry as it was is gone" in w for _, _, w in plan.unchanged)


def test_an_entry_under_our_name_that_runs_something_else_is_not_touched(
        tmp_path: Path) -> None:
    env = make_env(tmp_path)
    theirs = {"command": "npx", "args": ["-y", "some-other-server"]}
    path = _claude(env, {"webmcp-sidecar": theirs})
    before = path.read_text()
    plan, _, _ = install(env, clients=["claude-code"], no_browsers=True)
    assert path.read_text() == before
    assert any("left as it is" in p and "some-other-server" in p for p in plan.problems)
    uninstall(env)
    assert path.read_text() == before


def test_kept_entry_survives_uninstall_with_a_state_file(tmp_path: Path) -> None:
    """What install found working is the user's: with a state file, uninstall does not look
    for entries by name."""
    env = make_env(tmp_path)
    (env.home / ".config/google-chrome").mkdir(parents=True)
    _, _, ctx = install(env, no_clients=True)  # a state file, no clients in it
    mine = {"command": ctx.mcp[0], "args": ["mcp"], "env": {"A": "1"}, "trust": True}
    path = _claude(env, {"webmcp-sidecar": mine})
    uninstall(env)  # never installed into Claude Code: not removed
    assert _servers(path) == {"webmcp-sidecar": mine}
    install(env)
    assert [r.entry for r in state_of(env).clients] == ["kept"]
    uninstall(env)
    assert _servers(path) == {"webmcp-sidecar": mine}


def test_our_entry_follows_a_moved_install_but_not_a_users_repointing(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    path = _claude(env, {})
    _, _, ctx = install(env, clients=["claude-code"], no_browsers=True)
    moved = fake_exe(tmp_path / "elsewhere" / "webmcp-sidecar")
    # The program now runs from elsewhere (the old one still exists): our entry follows.
    ctx2 = make_ctx(env)
    ctx2.mcp = (str(moved), ["mcp"])
    plan = plan_install(ctx2, InstallOptions(clients=["claude-code"], no_browsers=True))
    assert apply(ctx2, plan) == []
    assert _servers(path)["webmcp-sidecar"]["command"] == str(moved)
    # The user points it back at the first one themselves: a later install leaves that.
    data = json.loads(path.read_text())
    data["mcpServers"]["webmcp-sidecar"]["command"] = ctx.mcp[0]
    path.write_text(json.dumps(data))
    plan = plan_install(ctx2, InstallOptions(
        clients=["claude-code"], no_browsers=True))
    assert plan.steps == [] and any(f"runs {ctx.mcp[0]}, not this install's" in n
                                    for n in plan.notes), plan.notes
    uninstall(env)  # install added it: it goes, whatever it runs now
    assert _servers(path) == {}


def test_repoint_keeps_the_users_arguments_across_launcher_forms() -> None:
    py = {"command": "/gone/python", "args": ["-m", "webmcp_sidecar", "mcp", "--timeout", "9"],
          "env": {"A": "1"}}
    assert cl.repoint(py, "/new/webmcp-sidecar", ["mcp"]) == {
        "command": "/new/webmcp-sidecar", "args": ["mcp", "--timeout", "9"]}
    script = {"command": GONE, "args": ["mcp", "--timeout", "9"]}
    assert cl.repoint(script, "/new/python", ["-m", "webmcp_sidecar", "mcp"]) == {
        "command": "/new/python", "args": ["-m", "webmcp_sidecar", "mcp", "--timeout", "9"]}
    nested = {"transport": {"type": "stdio", "command": GONE, "args": ["mcp"]}, "disabled": True}
    assert cl.repoint(nested, "/new/webmcp-sidecar", ["mcp"]) == {
        "transport": {"type": "stdio", "command": "/new/webmcp-sidecar", "args": ["mcp"]}}
    assert cl.looks_ours({"command": "uvx", "args": ["webmcp-sidecar", "mcp"]})
    assert cl.looks_ours(nested) and not cl.looks_ours({"command": "npx", "args": ["x"]})


def test_clients_only_install_writes_no_browser_file(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".config/google-chrome").mkdir(parents=True)
    path = _claude(env, {})
    plan, failures, _ = install(env, no_browsers=True)
    assert failures == [] and plan.browsers == []
    assert {s.target for s in plan.steps} == {str(path)}
    assert not (env.data_dir / "bin").exists()
    plan, failures, _ = uninstall(env)
    assert failures == [] and _servers(path) == {} and not env.data_dir.exists()


def test_an_older_versions_record_of_an_overwritten_entry_still_brings_it_back(
        tmp_path: Path) -> None:
    """Older versions reset a user's entry to ours and recorded it as theirs (no `entry`, no
    `written_run`): uninstall finds the user's entry in install's first backup."""
    env = make_env(tmp_path)
    mine = {"command": GONE, "args": ["mcp", "--timeout", "120"], "env": {"A": "1"}}
    path = _claude(env, {"webmcp-sidecar": mine})
    _, _, ctx = install(env, clients=["claude-code"], no_browsers=True)
    state_file = env.data_dir / "install-state.json"
    old = json.loads(state_file.read_text())
    for rec in old["clients"]:
        del rec["entry"], rec["written_run"]
    state_file.write_text(json.dumps(old))
    data = json.loads(path.read_text())
    data["mcpServers"]["webmcp-sidecar"] = {"command": ctx.mcp[0], "args": ["mcp"]}  # as reset
    path.write_text(json.dumps(data, indent=4))
    uninstall(env)
    assert _servers(path) == {"webmcp-sidecar": mine}
