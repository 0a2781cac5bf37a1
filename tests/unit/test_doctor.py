"""doctor: a healthy install passes, and each link broken on purpose is found, with a fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.test_install_helpers import fake_exe, install, make_ctx, make_env
from webmcp_sidecar import EXTENSION_ID, GECKO_ID, HOST_NAME
from webmcp_sidecar.setup.doctor import doctor as dr
from webmcp_sidecar.setup.install.osenv import OsEnv
from webmcp_sidecar.setup.install.winregistry import MemoryRegistry
from webmcp_sidecar.wire.codec import dumps, encode_frame
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

CHROME = ".config/google-chrome"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBMCP_SIDECAR_SOCKET_DIR", str(tmp_path / "sock"))
    monkeypatch.setenv("WEBMCP_SIDECAR_LOG_DIR", str(tmp_path / "logs"))


def healthy(tmp_path: Path, os_name: str = "linux",
            reg: MemoryRegistry | None = None) -> OsEnv:
    env = make_env(tmp_path, os_name)  # type: ignore[arg-type]
    if os_name == "win32":
        (env.home / "AppData/Local/Google/Chrome/User Data").mkdir(parents=True)
    else:
        (env.home / CHROME).mkdir(parents=True)
    (env.home / ".cursor").mkdir()
    plan, failures, _ = install(env, reg)
    assert failures == [] and plan.problems == []
    return env


def run(env: OsEnv, reg: MemoryRegistry | None = None, **opts: object) -> dict[str, dr.Check]:
    report = dr.run_doctor(make_ctx(env, reg), dr.DoctorOptions(**opts))  # type: ignore[arg-type]
    checks = {c.id: c for c in report.checks}
    assert report.ok == all(c.status != "fail" for c in checks.values())
    return checks


def failed(checks: dict[str, dr.Check]) -> dict[str, dr.Check]:
    return {k: c for k, c in checks.items() if c.status == "fail"}


def manifest_file(env: OsEnv) -> Path:
    return env.home / CHROME / "NativeMessagingHosts" / f"{HOST_NAME}.json"


def test_healthy_install_passes(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    checks = run(env)
    assert failed(checks) == {}
    for cid in ("manifest", "json", "origins", "path", "starts"):
        assert checks[f"browser:chrome:{cid}"].status == "ok", cid
    assert "answered a ping" in checks["browser:chrome:starts"].detail
    assert checks["client:cursor"].status == "ok"
    assert checks["logs"].status == "ok"
    assert checks["host"].status == "warn"  # no browser running here


def test_missing_manifest(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    manifest_file(env).unlink()
    c = failed(run(env))["browser:chrome:manifest"]
    assert "Specified native messaging host not found." in c.detail
    assert c.fix == "webmcp-sidecar install --browser chrome"


@pytest.mark.parametrize(("content", "words"), [
    (b"{not json", "not valid JSON"),
    (b"\xef\xbb\xbf{}", "byte-order mark"),
    (json.dumps({"name": "other.host", "type": "stdio", "path": "/x",
                 "allowed_origins": []}).encode(), "not 'io.webmcp.sidecar'"),
])
def test_bad_manifest_content(tmp_path: Path, content: bytes, words: str) -> None:
    env = healthy(tmp_path)
    manifest_file(env).write_bytes(content)
    assert words in failed(run(env))["browser:chrome:json"].detail


def _edit_manifest(env: OsEnv, **changes: object) -> None:
    m = json.loads(manifest_file(env).read_text())
    m.update(changes)
    manifest_file(env).write_text(json.dumps(m))


def test_wrong_extension_id(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    _edit_manifest(env, allowed_origins=["chrome-extension://" + "z" * 32 + "/"])
    c = failed(run(env))["browser:chrome:origins"]
    assert EXTENSION_ID in c.detail and "is forbidden" in c.detail
    # An id asked for on the command line is checked too.
    env2 = healthy(tmp_path / "2")
    c = failed(run(env2, extension_ids=["q" * 32]))["browser:chrome:origins"]
    assert c.fix.endswith("--extension-id " + "q" * 32)


def test_relative_or_missing_or_not_executable_path(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    _edit_manifest(env, path="webmcp-sidecar")
    assert "not absolute" in failed(run(env))["browser:chrome:path"].detail
    _edit_manifest(env, path=str(tmp_path / "nope"))
    assert "does not exist" in failed(run(env))["browser:chrome:path"].detail
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)
    _edit_manifest(env, path=str(plain))
    c = failed(run(env))["browser:chrome:path"]
    assert "not executable" in c.detail and c.fix.startswith("chmod +x")


def test_launcher_naming_a_removed_python(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    launcher = env.data_dir / "bin/webmcp-sidecar-host"
    launcher.write_text(launcher.read_text().replace(sys.executable, "/gone/venv/bin/python"))
    c = failed(run(env))["browser:chrome:path"]
    assert "/gone/venv/bin/python, which no longer exists" in c.detail


@pytest.mark.parametrize(("body", "words"), [
    ("echo broken >&2; exit 3", "exited with status 3 without answering"),
    ("cat >/dev/null; exit 0", "without answering"),
])
def test_host_that_does_not_answer(tmp_path: Path, body: str, words: str) -> None:
    env = healthy(tmp_path)
    _edit_manifest(env, path=str(fake_exe(tmp_path / "bad-host", body)))
    c = failed(run(env, timeout=3))["browser:chrome:starts"]
    assert words in c.detail and "Native host has exited." in c.detail
    if "broken" in body:
        assert "Last error line: broken" in c.detail


def firefox(tmp_path: Path) -> tuple[OsEnv, Path]:
    env = make_env(tmp_path)
    (env.home / ".mozilla/firefox").mkdir(parents=True)
    plan, failures, _ = install(env, no_clients=True)
    assert failures == [] and plan.problems == []
    return env, env.home / ".mozilla/native-messaging-hosts" / f"{HOST_NAME}.json"


def test_firefox_install_passes_and_its_host_starts_as_firefox_starts_it(tmp_path: Path) -> None:
    env, manifest = firefox(tmp_path)
    checks = run(env)
    assert failed(checks) == {}
    for cid in ("manifest", "json", "origins", "path", "starts"):
        assert checks[f"browser:firefox:{cid}"].status == "ok", cid
    assert GECKO_ID in checks["browser:firefox:origins"].detail
    # The real launcher, given `<manifest path> <add-on id>`, served a ping (the CLI used to
    # refuse those arguments with status 2).
    assert "answered a ping" in checks["browser:firefox:starts"].detail
    # What Firefox passes, exactly.
    seen = tmp_path / "argv"
    m = json.loads(manifest.read_text())
    m["path"] = str(fake_exe(tmp_path / "spy", f'printf "%s\\n" "$@" > {seen}; exit 3'))
    manifest.write_text(json.dumps(m))
    assert "browser:firefox:starts" in failed(run(env, timeout=3))
    assert seen.read_text().splitlines() == [str(manifest), GECKO_ID]


def test_firefox_manifest_problems(tmp_path: Path) -> None:
    env, manifest = firefox(tmp_path)
    m = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**m, "allowed_extensions": ["other@example.org"]}))
    c = failed(run(env, launch=False))["browser:firefox:origins"]
    assert GECKO_ID in c.detail and "is forbidden" in c.detail
    chrome_form = {k: v for k, v in m.items() if k != "allowed_extensions"}
    manifest.write_text(json.dumps({**chrome_form, "allowed_origins": ["chrome-extension://x/"]}))
    c = failed(run(env, launch=False))["browser:firefox:json"]
    assert "no allowed_extensions list" in c.detail
    c = failed(run(env, browsers=["firefox"], user_data_dir=tmp_path / "p"))["browsers"]
    assert "not from a profile" in c.detail


def test_launch_can_be_skipped(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    assert run(env, launch=False)["browser:chrome:starts"].status == "skip"


def test_windows_registry_links(tmp_path: Path) -> None:
    reg = MemoryRegistry()
    env = healthy(tmp_path, "win32", reg)
    checks = run(env, reg, launch=False)
    assert checks["browser:chrome:registry"].status == "ok"
    assert failed(checks) == {}
    key = rf"Software\Google\Chrome\NativeMessagingHosts\{HOST_NAME}"
    manifest = Path(reg.get("HKCU", key) or "")
    manifest.unlink()
    assert "is missing" in failed(run(env, reg, launch=False))["browser:chrome:manifest"].detail
    reg.delete("HKCU", key)
    c = failed(run(env, reg, launch=False))["browser:chrome:manifest"]
    assert f"HKCU\\{key} is missing" in c.detail


def test_other_browser_not_set_up_is_only_a_warning(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    (env.home / ".config/chromium").mkdir()
    checks = run(env, launch=False)
    assert checks["browser:chromium:manifest"].status == "warn"
    assert checks["browser:chromium:manifest"].fix == "webmcp-sidecar install --browser chromium"
    # ...but a failure when asked about that browser.
    assert "browser:chromium:manifest" in failed(run(env, browsers=["chromium"]))


def test_no_browser_at_all(tmp_path: Path) -> None:
    c = failed(run(make_env(tmp_path)))["browsers"]
    assert "no supported browser (Chromium family or Firefox)" in c.detail


def test_client_links(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    cursor = env.home / ".cursor/mcp.json"
    data = json.loads(cursor.read_text())
    data["mcpServers"]["webmcp-sidecar"]["command"] = str(tmp_path / "missing")
    cursor.write_text(json.dumps(data))
    assert "does not exist" in failed(run(env, launch=False))["client:cursor"].detail
    cursor.write_text("{broken")
    c = failed(run(env, launch=False))["client:cursor"]
    assert "not valid JSON" in c.detail and c.fix.endswith("--clients cursor")
    cursor.write_text('{"mcpServers": {}}')
    assert run(env, launch=False)["client:cursor"].status == "warn"


def test_unwritable_log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("WEBMCP_SIDECAR_LOG_DIR", str(blocker / "logs"))
    c = dr.check_log_dir()
    assert c.status == "fail" and "is a file where a folder is needed" in c.detail


def test_keyring_check_reports_a_backend() -> None:
    c = dr.check_keyring()
    assert c.status in ("ok", "warn") and c.detail


def _start_host(tmp_path: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "webmcp_sidecar", f"chrome-extension://{EXTENSION_ID}/"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ))
    assert proc.stdin
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "9.9.9", "browser": "Chr"}
    proc.stdin.write(encode_frame(dumps(hello)))
    proc.stdin.flush()
    deadline = time.monotonic() + 20
    while not list((tmp_path / "sock").glob("host-*")):
        assert time.monotonic() < deadline, "the host never opened its socket"
        time.sleep(0.05)
    time.sleep(0.2)  # let it read the hello
    return proc


def test_host_reachable_with_extension_version(tmp_path: Path) -> None:
    proc = _start_host(tmp_path)
    try:
        [c] = dr.check_hosts()
        assert c.status == "ok" and c.id == f"host:{proc.pid}"
        assert "extension 9.9.9 connected" in c.detail and "(Chr)" in c.detail
        assert f"chrome-extension://{EXTENSION_ID}/" in c.detail
    finally:
        assert proc.stdin
        proc.stdin.close()
        assert proc.wait(10) == 0


def test_stale_socket_is_reported(tmp_path: Path) -> None:
    import socket

    d = tmp_path / "sock"
    d.mkdir(mode=0o700)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "host-999999.sock"))
    s.close()  # bound, never listening: like a host that crashed
    [c] = [c for c in dr.check_hosts() if c.id == "host:999999"]
    assert c.status == "warn" and "stale" in c.detail and c.fix.startswith("remove ")


def test_cli_json_and_exit_status(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    base = {**os.environ, "HOME": str(env.home), "XDG_CONFIG_HOME": str(env.home / ".config"),
            "WEBMCP_SIDECAR_DATA_DIR": str(env.data_dir)}
    ok = subprocess.run([sys.executable, "-m", "webmcp_sidecar", "doctor", "--json",
                         "--no-launch"], capture_output=True, text=True, env=base, timeout=60)
    report = json.loads(ok.stdout)
    assert ok.returncode == 0 and report["ok"] is True
    manifest_file(env).unlink()
    bad = subprocess.run([sys.executable, "-m", "webmcp_sidecar", "doctor"], capture_output=True,
                         text=True, env=base, timeout=60)
    assert bad.returncode == 1
    assert "[FAIL] Google Chrome: manifest" in bad.stdout
    assert "fix: webmcp-sidecar install --browser chrome" in bad.stdout


def _verdict(report: dr.DoctorReport, capsys: pytest.CaptureFixture[str]) -> str:
    from webmcp_sidecar.setup.install.commands import print_report

    capsys.readouterr()
    print_report(report)
    return capsys.readouterr().out.rsplit("\n\n", 1)[-1]


def _connected_before(tmp_path: Path) -> None:
    """The host log of a host the extension once said hello to (as app.py writes it)."""
    (tmp_path / "logs").mkdir(exist_ok=True)
    (tmp_path / "logs" / "host.log").write_text(
        "2026-01-01 10:00:00,000 42 webmcp_sidecar.native_host.app INFO extension 0.1.0 "
        "connected (Chromium 140)\n")


def test_default_profile_without_manifest_is_said_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only a custom profile has our manifest, and no host has ever run: nothing fails, but
    the verdict must not say everything works."""
    env = make_env(tmp_path)
    (env.home / CHROME).mkdir(parents=True)
    _, failures, _ = install(env, user_data_dir=tmp_path / "prof")
    assert failures == []
    report = dr.run_doctor(make_ctx(env), dr.DoctorOptions(launch=False))
    assert report.ok
    verdict = _verdict(report, capsys)
    assert "everything needed works" not in verdict
    assert ("Google Chrome's default profile has no host manifest: Google Chrome started the "
            "usual way cannot start the host (fix: webmcp-sidecar install --browser chrome)"
            in verdict), verdict
    assert "no host has ever run" in verdict
    # Once the default profile has it and the extension has connected once, all is said.
    install(env, no_clients=True)
    _connected_before(tmp_path)
    report = dr.run_doctor(make_ctx(env), dr.DoctorOptions(launch=False))
    assert report.missing == [] and "everything needed works." in _verdict(report, capsys)


def test_custom_profile_whose_folder_went_is_stale(tmp_path: Path) -> None:
    env = healthy(tmp_path)
    gone = tmp_path / "gone-profile"
    install(env, user_data_dir=gone)
    checks = run(env, launch=False)
    assert checks["browser:chromium:custom:manifest"].status == "ok"
    import shutil

    shutil.rmtree(gone)
    checks = run(env, launch=False)
    stale = checks[f"browser:stale:{gone}"]
    assert stale.status == "warn" and "folder is gone" in stale.detail, stale
    assert not any(c.status == "ok" and str(gone) in c.detail for c in checks.values())


def test_cline_cli_entry_is_checked_through_its_transport(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    (env.home / ".cline").mkdir()
    _, failures, ctx = install(env, no_browsers=True)
    assert failures == []
    checks = run(env, launch=False)
    c = checks["client:cline-cli"]
    assert c.status == "ok" and ctx.mcp[0] in c.detail, c
