"""install / uninstall end to end on a fake machine: merging, backups, idempotence, undo,
malformed and unwritable configs, dry runs, and the CLI."""

from __future__ import annotations

import builtins
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_install_helpers import (
    install,
    make_env,
    snapshot,
    state_of,
    uninstall,
)
from webmcp_sidecar import EXTENSION_ID, HOST_NAME
from webmcp_sidecar.setup.install.manifest import install_into, launcher_spec, manifest, mcp_command
from webmcp_sidecar.setup.install.osenv import OsEnv
from webmcp_sidecar.setup.install.winregistry import MemoryRegistry
from webmcp_sidecar.setup.textedit import jsonc

CLAUDE_CODE = """{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "x"}
    }
  },
  "projects": {}
}
"""
VSCODE = """// VS Code MCP servers
{
\t"servers": {
\t\t// the filesystem one
\t\t"fs": {"type": "stdio", "command": "npx", "args": ["fs"]},
\t},
\t"inputs": []
}
"""
ZED = """// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16,
  "buffer_font_size": 15,
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark"
  }
}
"""
CODEX = """# codex
model = "o3"

[mcp_servers.fs]
command = "npx"
args = ["fs"]
"""


def populate(env: OsEnv) -> None:
    """A Linux home with Chrome, Brave and several clients, some with their own servers."""
    h = env.home
    (h / ".config/google-chrome/Default").mkdir(parents=True)
    (h / ".config/BraveSoftware/Brave-Browser").mkdir(parents=True)
    (h / ".claude").mkdir()
    (h / ".claude.json").write_text(CLAUDE_CODE)
    (h / ".config/Code/User").mkdir(parents=True)
    (h / ".config/Code/User/mcp.json").write_text(VSCODE)
    (h / ".config/zed").mkdir(parents=True)
    (h / ".config/zed/settings.json").write_text(ZED)
    (h / ".codex").mkdir()
    (h / ".codex/config.toml").write_text(CODEX)
    (h / ".cursor").mkdir()  # installed, no config file yet


def test_install_merges_everything_and_uninstall_restores_every_byte(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    before = snapshot(env.home)
    plan, failures, _ctx = install(env)
    assert failures == [] and plan.problems == []
    h = env.home
    # Browsers: a manifest for each detected one.
    for d in (".config/google-chrome", ".config/BraveSoftware/Brave-Browser"):
        m = json.loads((h / d / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())
        assert m["path"] == str(env.data_dir / "bin/webmcp-sidecar-host")
    # Clients: ours added, theirs kept, comments kept.
    cc = json.loads((h / ".claude.json").read_text())
    assert set(cc["mcpServers"]) == {"github", "webmcp-sidecar"}
    assert cc["numStartups"] == 12
    vs = (h / ".config/Code/User/mcp.json").read_text()
    assert "// the filesystem one" in vs and "// VS Code MCP servers" in vs
    assert jsonc.loads(vs)["servers"]["webmcp-sidecar"]["type"] == "stdio"
    zed = (h / ".config/zed/settings.json").read_text()
    assert zed.startswith(ZED.rsplit("}", 2)[0]) and "context_servers" in zed
    assert (h / ".codex/config.toml").read_text().startswith(CODEX)
    assert json.loads((h / ".cursor/mcp.json").read_text())["mcpServers"]["webmcp-sidecar"]
    # Backups of the files that existed, byte for byte.
    backups = {p.name: p.read_bytes() for p in (env.data_dir / "backups").rglob("*")
               if p.is_file()}
    assert backups["claude-code-.claude.json"] == CLAUDE_CODE.encode()
    assert backups["codex-config.toml"] == CODEX.encode()
    assert "cursor-mcp.json" not in backups  # it did not exist

    after_install = snapshot(env.home)
    again, failures, _ = install(env)
    assert again.steps == [] and failures == []
    assert snapshot(env.home) == after_install  # byte-for-byte idempotent
    assert len([p for p in (env.data_dir / "backups").rglob("*") if p.is_file()]) == len(backups)

    # Backups hold other servers' secrets (GITHUB_TOKEN above): this user's only.
    assert stat.S_IMODE((env.data_dir / "backups").stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in (env.data_dir / "backups").rglob("*")
            if p.is_file()} == {0o600}
    assert stat.S_IMODE((env.data_dir / "install-state.json").stat().st_mode) == 0o600

    plan, failures, _ = uninstall(env)
    assert failures == [] and plan.problems == []
    assert snapshot(env.home) == before
    assert not (env.data_dir / "install-state.json").exists()
    assert not (env.data_dir / "bin").exists()
    assert not (env.data_dir / "backups").exists()  # install's backups went with it
    assert plan.notes == []


def test_uninstall_after_user_edits_keeps_their_changes(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    install(env)
    cc = env.home / ".claude.json"
    cc.write_text(cc.read_text().replace('"numStartups": 12', '"numStartups": 13'))
    vs = env.home / ".config/Code/User/mcp.json"
    vs.write_text(vs.read_text().replace('"inputs": []', '"inputs": [1]'))
    install_backups = [p for p in (env.data_dir / "backups").rglob("*") if p.is_file()]
    plan, _, _ = uninstall(env)
    assert cc.read_text() == CLAUDE_CODE.replace('"numStartups": 12', '"numStartups": 13')
    assert vs.read_text() == VSCODE.replace('"inputs": []', '"inputs": [1]')
    # Install's copies are gone; of each edited file one backup is kept, and the output says where.
    assert not any(p.exists() for p in install_backups)
    kept = sorted(p for p in (env.data_dir / "backups").rglob("*") if p.is_file())
    notes = " ".join(st.note for st in plan.steps)
    assert len(kept) == 2 and all(f"kept a backup of the file as it was before this change: {p}"
                                  in notes for p in kept)
    assert "webmcp-sidecar" in json.loads(kept[0].read_text())["mcpServers"]  # as before our edit


def test_uninstall_says_where_backups_it_did_not_make_remain(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    old = env.data_dir / "backups" / "20250101-000000" / "claude-code-.claude.json"
    old.parent.mkdir(parents=True)
    old.write_text(CLAUDE_CODE)  # an older version's, with no record
    install(env)
    plan, failures, _ = uninstall(env)
    assert failures == [] and old.exists()
    assert plan.notes == [f"1 backup(s) of MCP client configs remain in {env.data_dir / 'backups'} "
                          "(from an earlier install, or of clients not uninstalled now); they may "
                          "hold other servers' secrets: delete them once you no longer need them."]


def test_temp_files_and_backups_are_created_private_exclusive_and_never_through_links(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file install creates has its final mode from its first moment (no chmod after the
    data is in), and is opened O_EXCL|O_NOFOLLOW: a planted link or file is never written."""
    env = make_env(tmp_path)
    populate(env)
    created: list[tuple[str, int, int]] = []
    real_os_open = os.open

    def spy(path, flags, mode=0o777, *a, **kw):  # type: ignore[no-untyped-def]
        fd = real_os_open(path, flags, mode, *a, **kw)
        if flags & os.O_CREAT:
            created.append((str(path), flags, stat.S_IMODE(os.fstat(fd).st_mode)))
        return fd

    monkeypatch.setattr(os, "open", spy)
    old_umask = os.umask(0)  # a umask takes nothing away here: the mode asked for is the mode
    try:
        _, failures, _ = install(env)
    finally:
        os.umask(old_umask)
    assert failures == []
    for config, final in [(env.home / ".claude.json", 0o644),  # theirs: keeps its bits
                          (env.home / ".cursor/mcp.json", 0o600)]:  # new: ours only
        (first,) = [m for p, _, m in created if p.startswith(f"{config.parent}/.{config.name}.")]
        assert first == final == stat.S_IMODE(config.stat().st_mode)
    backups = {p: m for p, _, m in created if "/backups/" in p}
    assert backups and set(backups.values()) == {0o600}
    need = os.O_EXCL | os.O_NOFOLLOW | os.O_CREAT
    assert all(f & need == need for _, f, _ in created)


def test_reinstall_after_user_edit_still_uninstalls_cleanly(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    install(env)
    cc = env.home / ".claude.json"
    cc.write_text(cc.read_text().replace('"numStartups": 12', '"numStartups": 14'))
    install(env, clients=["claude-code"])  # nothing to change: no write, no backup
    ctx_cmd = "/new/place/webmcp-sidecar"
    from tests.unit import test_install_helpers as helpers
    from webmcp_sidecar.setup.install.engine import InstallOptions, apply
    from webmcp_sidecar.setup.install.plan_install import plan_install

    ctx = helpers.make_ctx(env)
    ctx.mcp = (ctx_cmd, ["mcp"])
    apply(ctx, plan_install(ctx, InstallOptions(clients=["claude-code"])))
    assert json.loads(cc.read_text())["mcpServers"]["webmcp-sidecar"]["command"] == ctx_cmd
    uninstall(env)
    assert json.loads(cc.read_text()) == {**json.loads(CLAUDE_CODE), "numStartups": 14}


def test_user_env_in_our_entry_is_kept(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".claude").mkdir()
    (env.home / ".claude.json").write_text(json.dumps({"mcpServers": {"webmcp-sidecar": {
        "type": "stdio", "command": "/old/bin/webmcp-sidecar", "args": ["mcp"],
        "env": {"A": "1"}}}}))
    install(env, clients=["claude-code"], browsers=["chrome"])
    entry = json.loads((env.home / ".claude.json").read_text())["mcpServers"]["webmcp-sidecar"]
    assert entry["env"] == {"A": "1"} and entry["command"] != "/old/bin/webmcp-sidecar"


def test_malformed_config_is_left_alone_with_a_clear_message(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    bad = env.home / ".cursor/mcp.json"
    bad.write_text('{\n  "mcpServers": {\n    "x": {"command": "a",}\n  \n')
    bad_toml = env.home / ".codex/config.toml"
    bad_toml.write_text("model = \n")
    before_bad = bad.read_bytes(), bad_toml.read_bytes()
    plan, failures, _ = install(env)
    assert failures == []
    assert (bad.read_bytes(), bad_toml.read_bytes()) == before_bad
    [cursor_problem] = [p for p in plan.problems if p.startswith("Cursor:")]
    assert str(bad) in cursor_problem and "not valid JSON" in cursor_problem
    assert "left untouched" in cursor_problem and '"webmcp-sidecar"' in cursor_problem
    assert "line 5" in cursor_problem
    [codex_problem] = [p for p in plan.problems if p.startswith("Codex CLI:")]
    assert "not valid TOML" in codex_problem and "[mcp_servers.webmcp-sidecar]" in codex_problem
    # The others were still done.
    assert "webmcp-sidecar" in (env.home / ".claude.json").read_text()
    assert not list((env.data_dir / "backups").rglob("cursor-*"))


def test_a_file_where_a_folder_should_be_is_reported(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".config/google-chrome").mkdir(parents=True)
    (env.home / ".config/google-chrome/NativeMessagingHosts").write_text("oops")
    (env.home / ".gemini").write_text("")  # a file, not the app's dir
    _plan, failures, _ = install(env)
    chrome, gemini = failures
    assert "NativeMessagingHosts is a file where a folder is needed" in chrome
    assert "Fix: move" in chrome
    assert f"{env.home / '.gemini'} is a file where a folder is needed" in gemini


def deny_writes_under(monkeypatch: pytest.MonkeyPatch, top: Path) -> None:
    """Opening files under `top` fails as a read-only folder would (tests run as root, where
    chmod does not stop writes)."""
    real_open, real_os_open = builtins.open, os.open

    def guarded(file, *a, **kw):  # type: ignore[no-untyped-def]
        if isinstance(file, str | Path) and str(file).startswith(str(top)):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *a, **kw)

    def guarded_os(file, *a, **kw):  # type: ignore[no-untyped-def]
        if str(file).startswith(str(top)):
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *a, **kw)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(os, "open", guarded_os)


def test_read_only_target_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root, where chmod does not stop writes: simulate the denial instead.
    env = make_env(tmp_path)
    (env.home / ".config/chromium").mkdir(parents=True)
    target = env.home / ".config/chromium/NativeMessagingHosts"
    deny_writes_under(monkeypatch, target)
    _, failures, _ = install(env, no_clients=True)
    [failure] = failures
    assert failure.startswith(f"permission denied writing {target}/{HOST_NAME}.json")
    assert "Fix: make" in failure
    # Nothing half-written is left behind.
    assert list(target.iterdir()) == []
    monkeypatch.undo()
    _plan, failures, _ = install(env, no_clients=True)
    assert failures == []


def test_dry_run_touches_nothing_and_lists_everything(tmp_path: Path) -> None:
    env = make_env(tmp_path, "win32")
    h = env.home
    (h / "AppData/Local/Google/Chrome/User Data").mkdir(parents=True)
    (h / "AppData/Roaming/Claude").mkdir(parents=True)
    (h / ".claude.json").write_text(CLAUDE_CODE)
    from tests.unit.test_install_helpers import make_ctx
    from webmcp_sidecar.setup.install.engine import InstallOptions
    from webmcp_sidecar.setup.install.plan_install import plan_install

    reg = MemoryRegistry()
    ctx = make_ctx(env, reg)
    before = snapshot(tmp_path)
    plan = plan_install(ctx, InstallOptions())
    assert snapshot(tmp_path) == before and reg.log == []
    targets = [s.target for s in plan.steps]
    assert str(env.data_dir / "bin/webmcp-sidecar-host.bat") in targets
    assert str(env.data_dir / f"NativeMessagingHosts/Google-Chrome/{HOST_NAME}.json") in targets
    assert rf"HKCU\Software\Google\Chrome\NativeMessagingHosts\{HOST_NAME}" in targets
    assert str(h / "AppData/Roaming/Claude/claude_desktop_config.json") in targets
    assert str(h / ".claude.json") in targets


def test_uninstall_without_a_record_removes_only_ours(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    install(env)
    (env.data_dir / "install-state.json").unlink()  # lost
    cursor = env.home / ".cursor/mcp.json"
    data = json.loads(cursor.read_text())
    data["mcpServers"]["other"] = {"command": "x"}
    cursor.write_text(json.dumps(data))
    _plan, failures, _ = uninstall(env)
    assert failures == []
    assert json.loads(cursor.read_text()) == {"mcpServers": {"other": {"command": "x"}}}
    assert not (env.home / ".config/google-chrome/NativeMessagingHosts"
                / f"{HOST_NAME}.json").exists()
    assert json.loads((env.home / ".claude.json").read_text()) == json.loads(CLAUDE_CODE)


def test_client_selection(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    populate(env)
    before = snapshot(env.home)
    plan, _, _ = install(env, no_clients=True)
    assert plan.written_clients == []
    assert snapshot(env.home, skip=(env.home / ".config/google-chrome",
                                    env.home / ".config/BraveSoftware")) == {
        k: v for k, v in before.items() if "google-chrome" not in k and "Brave" not in k}
    plan, _, _ = install(env, clients=["cursor", "gemini"])
    assert [c.key for c in plan.written_clients] == ["cursor", "gemini"]
    assert (env.home / ".gemini/settings.json").is_file()  # asked for, so created
    plan, _, _ = install(env, clients=["nope"])
    assert "unknown MCP client 'nope'" in plan.problems[0]


def test_extension_ids_are_added_and_remembered(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".config/chromium").mkdir(parents=True)
    install(env, extension_ids=["a" * 32], no_clients=True)
    path = env.home / ".config/chromium/NativeMessagingHosts" / f"{HOST_NAME}.json"
    origins = json.loads(path.read_text())["allowed_origins"]
    assert origins == [f"chrome-extension://{EXTENSION_ID}/", f"chrome-extension://{'a' * 32}/"]
    install(env, no_clients=True)
    assert json.loads(path.read_text())["allowed_origins"] == origins
    assert state_of(env).extension_ids == ["a" * 32]


def test_no_browser_found_says_what_to_do(tmp_path: Path) -> None:
    plan, _, _ = install(make_env(tmp_path), no_clients=True)
    assert "No supported browser (Chromium family or Firefox) found" in plan.problems[0]
    assert "--browser" in plan.problems[0] and "--user-data-dir" in plan.problems[0]
    plan, _, _ = install(make_env(tmp_path), browsers=["netscape"])
    assert "unknown browser 'netscape'" in plan.problems[0]


def test_symlinked_config_is_written_through(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    dotfiles = tmp_path / "dotfiles/claude.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(CLAUDE_CODE)
    (env.home / ".claude").mkdir()
    (env.home / ".claude.json").symlink_to(dotfiles)
    install(env, clients=["claude-code"], browsers=["chrome"])
    assert (env.home / ".claude.json").is_symlink()
    assert "webmcp-sidecar" in dotfiles.read_text()
    uninstall(env)
    assert dotfiles.read_text() == CLAUDE_CODE and (env.home / ".claude.json").is_symlink()


def test_flatpak_browser_gets_a_wrapper(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".var/app/org.chromium.Chromium/config/chromium").mkdir(parents=True)
    plan, failures, _ = install(env, no_clients=True)
    assert failures == []
    wrapper = env.home / ".var/app/org.chromium.Chromium/data/webmcp-sidecar/webmcp-sidecar-host"
    assert os.access(wrapper, os.X_OK)
    assert f'flatpak-spawn --host "{env.data_dir}/bin/webmcp-sidecar-host"' in wrapper.read_text()
    assert any("flatpak override --user --talk-name=org.freedesktop.Flatpak" in n
               for n in plan.notes)


# --- the launcher and the MCP command -----------------------------------------------------


def test_launcher_names_the_venv_python_unresolved(tmp_path: Path) -> None:
    path, data = launcher_spec(tmp_path, "linux")
    text = data.decode()
    assert f'exec "{Path(sys.executable).absolute()}" -m webmcp_sidecar "$@"' in text
    path.write_bytes(data)
    path.chmod(0o755)
    # It runs with none of the shell's environment, as a browser started from the desktop.
    out = subprocess.run([str(path), "--help"], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60)
    assert out.returncode == 0 and "install" in out.stdout


def test_windows_launcher_passes_parent_window_on(tmp_path: Path) -> None:
    path, data = launcher_spec(tmp_path, "win32", Path("C:/Python311/python.exe"))
    assert path.name == "webmcp-sidecar-host.bat"
    assert data.endswith(b'"C:/Python311/python.exe" -m webmcp_sidecar %*\r\n')
    assert not data.startswith(b"\xef\xbb\xbf")


def test_mcp_command_is_absolute() -> None:
    command, args = mcp_command()
    assert Path(command).is_absolute() and Path(command).exists()
    assert args[-1] == "mcp"


def test_install_into_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBMCP_SIDECAR_DATA_DIR", str(tmp_path / "data"))
    path = install_into(tmp_path / "p/NativeMessagingHosts", ["b" * 32])
    m = json.loads(path.read_bytes())
    assert m == manifest(Path(m["path"]), ["b" * 32])
    assert Path(m["path"]).is_file()


# --- the CLI ------------------------------------------------------------------------------


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data"),
           "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "logs"),
           "WEBMCP_SIDECAR_SOCKET_DIR": str(tmp_path / "sock")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    return subprocess.run([sys.executable, "-m", "webmcp_sidecar", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_cli_custom_profile_as_the_tests_use_it(tmp_path: Path) -> None:
    (tmp_path / "home/.cursor").mkdir(parents=True)
    profile = tmp_path / "profile"
    out = _cli(tmp_path, "install", "--browser", "chromium", "--user-data-dir", str(profile))
    assert out.returncode == 0, out.stderr
    path = profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert f"Wrote {path}" in out.stdout
    assert "Load unpacked" in out.stdout
    assert not (tmp_path / "home/.cursor/mcp.json").exists()  # a custom profile: no clients
    again = _cli(tmp_path, "install", "--browser", "chromium", "--user-data-dir", str(profile))
    assert f"Unchanged {path}" in again.stdout


def test_cli_install_dry_run_uninstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config/chromium").mkdir(parents=True)
    (home / ".gemini").mkdir()
    dry = _cli(tmp_path, "install", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Would write" in dry.stdout and ".gemini/settings.json" in dry.stdout
    assert not (tmp_path / "data").exists() and not (home / ".gemini/settings.json").exists()
    done = _cli(tmp_path, "install")
    assert done.returncode == 0, done.stderr
    assert "Gemini CLI: start a new gemini session" in done.stdout
    assert (home / ".gemini/settings.json").is_file()
    gone = _cli(tmp_path, "uninstall")
    assert gone.returncode == 0, gone.stderr
    assert "Removed" in gone.stdout
    assert not (home / ".gemini/settings.json").exists()
    assert list((home / ".config/chromium").iterdir()) == []


def test_cli_malformed_config_exit_status(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config/chromium").mkdir(parents=True)
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text("{oops")
    out = _cli(tmp_path, "install")
    assert out.returncode == 1
    assert "not valid JSON" in out.stderr and "left untouched" in out.stderr
    assert (home / ".gemini/settings.json").read_text() == "{oops"


def test_system_install_without_rights_says_sudo(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_env(tmp_path)
    deny_writes_under(monkeypatch, env.root / "etc")
    _, failures, _ = install(env, browsers=["chrome"], system=True, no_clients=True)
    [failure] = failures
    assert "sudo webmcp-sidecar install --system" in failure


def test_launcher_that_lost_its_exec_bit_is_rewritten(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".config/chromium").mkdir(parents=True)
    install(env, no_clients=True)
    launcher = env.data_dir / "bin/webmcp-sidecar-host"
    launcher.chmod(0o644)
    plan, failures, _ = install(env, no_clients=True)
    assert [s.target for s in plan.steps] == [str(launcher)] and failures == []
    assert os.access(launcher, os.X_OK)
