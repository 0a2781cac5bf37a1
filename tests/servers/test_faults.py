"""Servers that misbehave (our fixture server, built on the SDK's MCPServer): a crash mid-call,
no answer (timeout, cancel), garbage on stdout, a missing command, tools/list_changed, idling out,
and the owning process SIGKILLed with servers running (none may survive it)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import anyio
import pytest

from tests.servers.conftest import EVERYTHING, FAULTY, ROOT, alive, faulty
from webmcp_sidecar.servers.manager import ServerError, ServerManager

pytestmark = pytest.mark.anyio


async def wait_for(cond, timeout: float = 20.0) -> None:
    with anyio.fail_after(timeout):
        while not cond():
            await anyio.sleep(0.05)


async def test_a_crash_mid_call_is_a_plain_error_then_the_server_comes_back(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks)}), tmp_path / "log")
    try:
        await m.tools("f")
        first = m.status()[0].pid
        with pytest.raises(ServerError, match=r"stopped during the call.*crashing on purpose"):
            await m.call("f", "crash", {})
        await wait_for(lambda: m.status()[0].state in ("crashed", "starting", "running"))
        # Restarted by itself after the backoff; a call meanwhile waits for it.
        r = await m.call("f", "ping", {})
        assert r.content[0].text == "pong"
        st = m.status()[0]
        assert st.state == "running" and st.pid != first and not alive(first)
        assert "crashing on purpose" in (st.last_error or "")
        assert "crashed (" in (tmp_path / "log" / "f.log").read_text()
    finally:
        await m.aclose()


async def test_no_answer_times_out_and_the_server_hears_the_cancel(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks)}), tmp_path / "log")
    try:
        with pytest.raises(ServerError, match=r"did not answer hang within 1 s; the call was cancelled"):
            await m.call("f", "hang", {}, timeout_s=1)
        await wait_for(lambda: (marks / "cancelled").exists())
        assert (await m.call("f", "ping", {})).content[0].text == "pong"  # still serving
    finally:
        await m.aclose()


async def test_cancelling_the_caller_reaches_the_server(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks)}), tmp_path / "log")
    try:
        await m.tools("f")
        async with anyio.create_task_group() as tg:
            tg.start_soon(m.call, "f", "hang", {})
            await wait_for(lambda: (marks / "hang-started").exists())
            tg.cancel_scope.cancel()  # what the panel's Stop does to the agent's task
        await wait_for(lambda: (marks / "cancelled").exists())
        assert m.status()[0].state == "running"
    finally:
        await m.aclose()


async def test_garbage_on_stdout_is_logged_and_ignored(write_config, tmp_path, marks):
    m = ServerManager(write_config({"g": faulty(marks, "--garbage")}), tmp_path / "log")
    try:
        assert (await m.call("g", "ping", {})).content[0].text == "pong"
        assert m.status()[0].state == "running"
        assert "ignored what the server sent" in (tmp_path / "log" / "g.log").read_text()
    finally:
        await m.aclose()


async def test_a_missing_command_fails_plainly(write_config, tmp_path):
    cfg = write_config({"gone": {"command": "no-such-program-4711"},
                        "gone2": {"command": "/nonexistent/dir/prog"}})
    m = ServerManager(cfg, tmp_path / "log")
    try:
        assert await m.tools() == {}
        with pytest.raises(ServerError, match="'no-such-program-4711' was not found on the PATH"):
            await m.call("gone", "x", {})
        st = {s.name: s for s in m.status()}
        assert st["gone"].state == "failed" and "not found" in (st["gone"].last_error or "")
        assert st["gone2"].state == "failed" and "does not exist" in (st["gone2"].last_error or "")
    finally:
        await m.aclose()


async def test_list_changed_refreshes_the_tools(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks)}), tmp_path / "log")
    changed: list[str] = []
    m.on_change = changed.append
    try:
        assert "extra" not in {t.name for t in (await m.tools("f"))["f"]}
        changed.clear()
        await m.call("f", "grow", {})
        await wait_for(lambda: "f" in changed)
        assert "extra" in {t.name for t in (await m.tools("f"))["f"]}
        assert (await m.call("f", "extra", {})).content[0].text == "extra!"
    finally:
        await m.aclose()


def daemon_pids(marks) -> list[int]:
    """The daemons the fixture servers started (one per start), first first."""
    path = marks / "daemon.pids"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def end_daemons(marks) -> None:
    """Tidy up after a failed run: no daemon may outlive the test."""
    for pid in daemon_pids(marks):
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


async def test_a_daemon_the_server_started_ends_when_the_server_is_stopped(write_config, tmp_path, marks):
    """Issue 26 item 10: a child in a session of its own (setsid) leaves the server's process
    group; stopping the server must end it too (even though it ignores SIGTERM)."""
    m = ServerManager(write_config({"f": faulty(marks, "--daemonize")}), tmp_path / "log")
    try:
        await m.call("f", "ping", {})
        await wait_for(lambda: daemon_pids(marks))
        daemon = daemon_pids(marks)[0]
        assert alive(daemon) and os.getsid(daemon) != os.getsid(m.status()[0].pid)
        await m.aclose()
        await wait_for(lambda: not alive(daemon))
    finally:
        await m.aclose()
        end_daemons(marks)


async def test_a_daemon_ends_when_its_server_exits_by_itself(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks, "--daemonize")}), tmp_path / "log")
    try:
        await m.call("f", "ping", {})
        await wait_for(lambda: daemon_pids(marks))
        daemon = daemon_pids(marks)[0]
        with pytest.raises(ServerError, match="stopped during the call"):
            await m.call("f", "crash", {})
        await wait_for(lambda: not alive(daemon))
    finally:
        await m.aclose()
        end_daemons(marks)


async def test_an_idle_server_stops(write_config, tmp_path, marks):
    m = ServerManager(write_config({"f": faulty(marks)}), tmp_path / "log", idle_s=0.5)
    try:
        await m.call("f", "ping", {})
        pid = m.status()[0].pid
        await wait_for(lambda: m.status()[0].state == "stopped")
        assert not alive(pid)
        assert (await m.call("f", "ping", {})).content[0].text == "pong"  # starts again on use
    finally:
        await m.aclose()


async def test_idle_timeout_per_server_stops_one_and_keeps_the_other(write_config, tmp_path, marks):
    quick = faulty(marks) | {"idleTimeout": 1.0}
    kept = faulty(marks) | {"idleTimeout": 0}  # never stopped for idling
    m = ServerManager(write_config({"quick": quick, "kept": kept}), tmp_path / "log", idle_s=0.5)
    try:
        await m.call("kept", "ping", {})
        await m.call("quick", "ping", {})
        by = {s.name: s for s in m.status()}  # quick has 1 s from here
        await wait_for(lambda: {s.name: s.state for s in m.status()}["quick"] == "stopped")
        assert not alive(by["quick"].pid)
        await asyncio.sleep(1.0)  # well past the manager's own idle_s
        now = {s.name: s for s in m.status()}
        assert now["kept"].state == "running" and alive(by["kept"].pid)
    finally:
        await m.aclose()


OWNER = textwrap.dedent("""
    import asyncio, json, sys
    from pathlib import Path
    from webmcp_sidecar.servers.manager import ServerManager

    async def main():
        m = ServerManager(Path(sys.argv[1]), Path(sys.argv[2]))
        await m.tools()
        print(json.dumps([s.pid for s in m.status()]), flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
""")


def group_members(groups: set[int]) -> list[list[str]]:
    """Live (not zombie) processes in these process groups, from the process table."""
    table = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    rows = [line.split() for line in table.splitlines()]
    return [r for r in rows if int(r[1]) in groups and not r[2].startswith("Z")]


def test_no_server_survives_a_sigkilled_owner(write_config, tmp_path, marks):
    cfg = write_config({
        "every": {"command": str(EVERYTHING), "args": ["stdio"]},
        "stubborn": faulty(marks, "--stubborn"),  # would outlive its stdin and SIGTERM
        # A server that leaves a child of its own behind in its process group:
        "shell": {"command": "sh", "args": ["-c", f"sleep 600 & exec {sys.executable} {FAULTY} {marks}"]},
        # And one that starts a daemon, outside its group (issue 26 item 10):
        "daemon": faulty(marks, "--daemonize"),
    })
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(cfg), str(tmp_path / "log")],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        pids = json.loads(owner.stdout.readline())
        assert len(pids) == 4 and all(alive(p) for p in pids)
        deadline = time.monotonic() + 15
        while not daemon_pids(marks) and time.monotonic() < deadline:
            time.sleep(0.05)
        daemon = daemon_pids(marks)[0]
        assert alive(daemon)
        groups = {os.getpgid(p) for p in pids}
        owner.send_signal(signal.SIGKILL)
        owner.wait(10)
        deadline = time.monotonic() + 15
        while group_members(groups) and time.monotonic() < deadline:
            time.sleep(0.1)
        # Nothing left in their process groups (the guards, the servers, what they started).
        assert group_members(groups) == []
        assert not any(alive(p) for p in pids)
        while alive(daemon) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(daemon)
    finally:
        if owner.poll() is None:
            owner.kill()
        end_daemons(marks)
