"""Fixtures shared by unit and end-to-end tests."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The PyInstaller bundle's executable, built once per test run: pytest-xdist's workers
    (scripts/test.sh) take turns on a lock and the first one's build serves the others."""
    given = os.environ.get("WEBMCP_SIDECAR_BUNDLE")
    if given:
        return Path(given)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", f"solo-{os.getpid()}")
    record = ROOT / "build" / "bundle-built-by"
    record.parent.mkdir(exist_ok=True)
    with open(ROOT / "build" / "bundle.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if record.is_file():
            built_for, exe_path = record.read_text().split("\n", 1)
            if built_for == run and Path(exe_path).is_file():
                return Path(exe_path)
        out = subprocess.run([str(ROOT / "installers/build.sh")], capture_output=True, text=True,
                             timeout=900)
        assert out.returncode == 0, out.stderr[-4000:]
        exe = Path(out.stdout.strip().splitlines()[-1])
        assert exe.is_file() and os.access(exe, os.X_OK)
        record.write_text(f"{run}\n{exe}")
        return exe


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    # Session-wide, so module-scoped async fixtures (the e2e tests' shared browsers) may use it.
    return "asyncio"


# Markers by cost, from where a test lives (so quick.sh can leave out the costly ones):
# e2e launches Chromium, servers runs real MCP servers, bundle builds PyInstaller, proc starts a
# host, an entry or another of our processes; clients runs the real MCP client programs; firefox
# launches Firefox ESR.
_BY_DIR = {"e2e": ("e2e", "proc"), "servers": ("servers", "proc"), "bundle": ("bundle", "proc"),
           "clients": ("clients", "proc"), "firefox": ("firefox", "proc")}
# Unit modules that start our processes (host, entry, CLI) or other programs.
PROC_UNIT_MODULES = frozenset({
    "test_agent", "test_annotations", "test_browser_tools", "test_chat_sites",
    "test_cold_imports", "test_doctor", "test_entry", "test_entry_hostile", "test_entry_link",
    "test_gen_messages",
    "test_host", "test_host_hostile", "test_install_flow", "test_keys",
    "test_mcp_fastlane", "test_output_schema", "test_protocol_version", "test_public_suffix",
    "test_schema_safety", "test_schema_safety_paths", "test_servers_cli", "test_servers_keyring",
    "test_servers_link_host", "test_skills_cli", "test_socket_dir",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.path.relative_to(ROOT / "tests").parts
        for name in _BY_DIR.get(parts[0], ()):
            item.add_marker(name)
        if parts[0] == "unit" and item.path.stem in PROC_UNIT_MODULES:
            item.add_marker("proc")
        if item.path.stem == "test_bundle_e2e":
            item.add_marker("bundle")


@pytest.fixture(autouse=True)
def _no_process_in_quick_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keeps PROC_UNIT_MODULES true: in a quick run (scripts/quick.sh) a test that starts a
    process fails and says where it belongs."""
    if not os.environ.get("WEBMCP_SIDECAR_QUICK") or request.node.get_closest_marker("proc"):
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(
            f"{request.node.nodeid} starts a process: add its module to PROC_UNIT_MODULES in "
            "tests/conftest.py (scripts/quick.sh runs only tests that start none)")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.fixture
def private_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh HOME for this test, set in this process.

    MCP entries start with the SDK's default environment (HOME, PATH, ...), so HOME is what an
    entry and the hosts this test starts share: both derive the socket dir from it. It is short
    (not under tmp_path) because a Unix socket's whole path must fit in ~104 bytes.
    """
    home = Path(tempfile.mkdtemp(prefix="wms-"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("WEBMCP_SIDECAR_SOCKET_DIR", raising=False)
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def sock_env(tmp_path: Path, private_home: Path,
             monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What the hosts this test starts get: its own HOME (hence socket dir) and log dir."""
    e = {"HOME": str(private_home), "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "log")}
    for k, v in e.items():
        monkeypatch.setenv(k, v)
    return e


# --- where the run's time went, per xdist worker (printed after --durations) ------------------
# With `--dist loadfile` a test module runs whole on one worker, so a long module scheduled last
# leaves the other worker idle: these lines show each worker's busy time, when it finished and
# its last modules, so such a tail is visible in every full run.
_timeline: dict[str, list[tuple[float, float, str]]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    node = getattr(report, "node", None)  # set on the controller for a worker's report
    if node is None:
        return
    worker = node.workerinput["workerid"]
    _timeline.setdefault(worker, []).append((report.start, report.stop, report.nodeid.split("::")[0]))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _timeline:
        return
    t0 = min(start for rows in _timeline.values() for start, _, _ in rows)
    terminalreporter.section("time per worker")
    for worker, rows in sorted(_timeline.items()):
        busy = sum(stop - start for start, stop, _ in rows)
        end = max(stop for _, stop, _ in rows) - t0
        last: list[str] = []
        for _, _, path in sorted(rows):
            if path in last:
                last.remove(path)
            last.append(path)
        terminalreporter.write_line(
            f"{worker}: busy {busy:.0f} s, done at {end:.0f} s; last modules: {', '.join(last[-3:])}")
