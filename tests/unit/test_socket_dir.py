"""Where hosts and entries meet: derived from nothing an MCP client strips, and never a dir another
user planted or could open."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.mcp_session import McpSession, text
from webmcp_sidecar import logs, paths
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

OTHER_UID = 4242


def account_home() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_dir


# --- where --------------------------------------------------------------------------------------


def test_the_dir_ignores_what_mcp_clients_strip(private_home: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    trimmed = paths.socket_dir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(private_home / "xdg"))
    monkeypatch.setenv("TMPDIR", str(private_home / "tmp"))
    assert paths.socket_dir() == trimmed == private_home / ".local/state/webmcp-sidecar/run"


def test_without_home_the_account_home_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOME")
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    monkeypatch.setattr(paths, "RUN_USER", Path("/nonexistent"))
    assert paths.socket_dir() == Path(account_home()) / ".local/state/webmcp-sidecar/run"


@pytest.fixture
def runtime(tmp_path: Path, private_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for /run/user/<uid> (0700, ours), with HOME the account's home."""
    monkeypatch.setattr(paths, "RUN_USER", tmp_path / "run-user")
    d = tmp_path / "run-user" / str(os.getuid())
    d.mkdir(parents=True)
    d.chmod(0o700)
    monkeypatch.setenv("HOME", account_home())
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/somewhere/else")
    return d


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/run/user is Linux's")
def test_the_uid_runtime_dir_when_it_is_private(runtime: Path) -> None:
    assert paths.socket_dir() == runtime / "webmcp-sidecar"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/run/user is Linux's")
def test_an_unsafe_runtime_dir_or_another_home_falls_back_to_the_home(
    runtime: Path, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_dir = Path(account_home()) / ".local/state/webmcp-sidecar/run"
    runtime.chmod(0o755)
    assert paths.socket_dir() == home_dir
    runtime.chmod(0o700)
    real = runtime.with_name("real")
    runtime.rename(real)
    runtime.symlink_to(real)
    assert paths.socket_dir() == home_dir
    runtime.unlink()
    real.rename(runtime)
    monkeypatch.setenv("HOME", str(private_home))  # a process with a HOME of its own
    assert paths.socket_dir() == private_home / ".local/state/webmcp-sidecar/run"


def test_macos_uses_the_os_per_user_temp_dir(tmp_path: Path, private_home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "T"
    temp.mkdir(mode=0o700)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(paths, "_darwin_user_temp_dir", lambda: temp)
    monkeypatch.setenv("TMPDIR", "/elsewhere")
    assert paths.socket_dir() == private_home / "Library/Caches/webmcp-sidecar/run"
    monkeypatch.setenv("HOME", account_home())
    assert paths.socket_dir() == temp / "webmcp-sidecar"


def test_the_macos_lookup_never_fails_elsewhere() -> None:
    found = paths._darwin_user_temp_dir()
    assert found is None or isinstance(found, Path)


# --- refused dirs -------------------------------------------------------------------------------


def make_symlink(d: Path) -> None:
    target = d.parent / "elsewhere"
    target.mkdir(mode=0o700)
    d.symlink_to(target)


def make_open(d: Path) -> None:
    d.mkdir(mode=0o700)
    d.chmod(0o755)


def make_foreign(d: Path) -> None:
    d.mkdir(mode=0o700)
    os.chown(d, OTHER_UID, OTHER_UID)


PLANTED: dict[str, tuple[Callable[[Path], None], str]] = {
    "symlink": (make_symlink, "symbolic link"),
    "mode 0755": (make_open, "other users can open it (permissions 755)"),
    "another uid": (make_foreign, f"belongs to another user (uid {OTHER_UID})"),
}


@pytest.fixture(params=list(PLANTED))
def planted(request: pytest.FixtureRequest, sock_env: dict[str, str]) -> str:
    """The socket dir, made unsafe before any host runs; returns what the refusal says."""
    make, why = PLANTED[request.param]
    if request.param == "another uid" and os.geteuid() != 0:
        pytest.skip("needs root to chown; test_check_refuses_another_uid covers the check")
    d = paths.socket_dir()
    d.parent.mkdir(parents=True)
    make(d)
    return why


def test_check_refuses_another_uid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "d"
    d.mkdir(mode=0o700)
    paths.check_private_dir(d)
    monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
    with pytest.raises(paths.PrivateDirError, match="belongs to another user"):
        paths.check_private_dir(d)


async def test_the_host_refuses_a_planted_dir_and_keeps_serving_the_browser(
    planted: str, sock_env: dict[str, str], tmp_path: Path
) -> None:
    b = FakeBrowser(sock_env)
    await b.start()
    try:
        b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                "extension_version": "0.1.0", "browser": "Test"})
        b.send({"type": "ping", "id": "1"})
        assert (await b.expect("pong"))["id"] == "1"  # the native side lives on
        log = tmp_path / "log" / "host.log"
        async with asyncio.timeout(10):
            while planted not in (log.read_text() if log.exists() else ""):
                await asyncio.sleep(0.05)
        assert "MCP clients cannot reach this browser" in log.read_text()
        target = paths.socket_dir().resolve()  # where a symlink points
        assert not (target.is_dir() and list(target.glob("host-*")))
        assert localsock.list_endpoints() == []
        assert localsock.scan()[1] is not None and planted in localsock.scan()[1]
    finally:
        assert await b.close() == 0


async def test_the_entry_refuses_it_too_and_says_why(planted: str, sock_env: dict[str, str]) -> None:
    d = paths.socket_dir()
    # A host of another user could be listening there: the entry must not even look.
    if d.is_dir() and os.access(d, os.W_OK):
        (d.resolve() / "host-1.sock").touch()
    async with McpSession(sock_env) as mcp:
        listing = text(await mcp.call("list_site_tools"))
        assert planted in listing and "No browser is connected" in listing
        assert "list_site_tools" in await mcp.names()  # and it keeps answering
    entry_log = Path(os.environ["HOME"]) / ".local/state/webmcp-sidecar/log/mcp.log"
    assert planted in entry_log.read_text()


def test_doctor_says_why_no_host_can_be_reached(planted: str) -> None:
    from webmcp_sidecar.setup.doctor.doctor import check_hosts

    (check,) = [c for c in check_hosts(timeout=1) if c.id == "host"]
    assert check.status == "fail" and planted in check.detail


# --- the host's peer ----------------------------------------------------------------------------


async def test_the_entry_sends_nothing_to_a_host_of_another_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got: list[bytes] = []
    done = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await reader.read())
        writer.close()
        done.set()

    path = tmp_path / "host-1.sock"
    server = await asyncio.start_unix_server(handler, path=str(path))
    try:
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)  # the listener is "another"
        with pytest.raises(PermissionError, match="runs as another user"):
            await localsock.connect(localsock.Endpoint(path))
        async with asyncio.timeout(10):
            await done.wait()
        assert got == [b""]
    finally:
        server.close()


# --- logs ---------------------------------------------------------------------------------------


def test_logs_are_private_even_where_an_older_version_left_them_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tmp_path / "log"
    d.mkdir(mode=0o755)
    d.chmod(0o755)
    (d / "mcp.log").write_text("old\n")
    (d / "mcp.log").chmod(0o644)
    monkeypatch.setenv("WEBMCP_SIDECAR_LOG_DIR", str(d))
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.setup("mcp").info("hello")
        logs.setup("fresh").info("hello")
        for h in root.handlers:
            h.close()
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    for name in ("mcp.log", "fresh.log"):
        assert stat.S_IMODE((d / name).stat().st_mode) == 0o600
    assert "hello" in (d / "mcp.log").read_text()
