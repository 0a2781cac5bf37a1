"""Real third-party MCP servers through ServerManager: server-everything over stdio and over
Streamable HTTP, server-filesystem on a temp dir, PyPI's mcp-server-time; several at once."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time

import pytest

from tests.servers.conftest import EVERYTHING, FILESYSTEM, TIME, alive
from webmcp_sidecar.servers.manager import ServerManager

pytestmark = pytest.mark.anyio


def text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def test_everything_over_stdio_tools_call_progress_and_stop(write_config, tmp_path):
    cfg = write_config({"every": {"command": str(EVERYTHING), "args": ["stdio"]}})
    m = ServerManager(cfg, tmp_path / "log")
    changes: list[str] = []
    m.on_change = changes.append
    assert m.status()[0].state == "stopped"  # nothing starts before first use
    tools = await m.tools()
    names = {t.name for t in tools["every"]}
    assert {"echo", "get-sum", "trigger-long-running-operation"} <= names
    st = m.status()[0]
    assert st.state == "running" and st.kind == "stdio" and st.tools == len(names) and alive(st.pid)
    assert "every" in changes
    r = await m.call("every", "get-sum", {"a": 2, "b": 3})
    assert not r.is_error and "5" in text(r)
    seen: list[tuple[float, float | None, str | None]] = []
    r = await m.call("every", "trigger-long-running-operation", {"duration": 0.3, "steps": 3},
                     on_progress=lambda p, total, msg: seen.append((p, total, msg)))
    assert "completed" in text(r)
    assert [s[0] for s in seen] == [1, 2, 3] and seen[-1][1] == 3
    r = await m.call("every", "no-such-tool", {})
    assert r.is_error
    pid = st.pid
    await m.aclose()
    assert m.status()[0].state == "stopped" and not alive(pid)
    log = (tmp_path / "log" / "every.log").read_text()
    assert "running (" in log and "stopped" in log


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def everything_http():
    port = _free_port()
    proc = subprocess.Popen([str(EVERYTHING), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("server-everything's HTTP mode did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(10)


async def test_everything_over_streamable_http(write_config, tmp_path):
    with everything_http() as url:
        cfg = write_config({"web": {"url": url, "headers": {"X-Test": "1"}}})
        m = ServerManager(cfg, tmp_path / "log")
        try:
            tools = await m.tools("web")
            assert "echo" in {t.name for t in tools["web"]}
            st = m.status()[0]
            assert st.kind == "http" and st.state == "running" and st.pid is None
            r = await m.call("web", "echo", {"message": "over http"})
            assert text(r) == "Echo: over http"
        finally:
            await m.aclose()
        assert m.status()[0].state == "stopped"


async def test_filesystem_on_a_temp_dir(write_config, tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    (root / "note.txt").write_text("hello from a file")
    cfg = write_config({"fs": {"command": str(FILESYSTEM), "args": [str(root)]}})
    m = ServerManager(cfg, tmp_path / "log")
    try:
        names = {t.name for t in (await m.tools("fs"))["fs"]}
        assert {"read_text_file", "write_file", "list_directory"} <= names
        r = await m.call("fs", "read_text_file", {"path": str(root / "note.txt")})
        assert "hello from a file" in text(r)
        r = await m.call("fs", "write_file", {"path": str(root / "new.txt"), "content": "made"})
        assert not r.is_error and (root / "new.txt").read_text() == "made"
        r = await m.call("fs", "read_text_file", {"path": "/etc/hostname"})
        assert r.is_error  # outside the allowed dir: the server's own refusal, as a result
    finally:
        await m.aclose()


async def test_time_server_from_pypi(write_config, tmp_path):
    cfg = write_config({"time": {"command": str(TIME), "disabledTools": ["convert_time"]}})
    m = ServerManager(cfg, tmp_path / "log")
    try:
        tools = await m.tools()
        assert [t.name for t in tools["time"]] == ["get_current_time"]  # the other is switched off
        r = await m.call("time", "get_current_time", {"timezone": "Asia/Shanghai"})
        assert '"timezone": "Asia/Shanghai"' in text(r)
        with pytest.raises(Exception, match="switched off"):
            await m.call("time", "convert_time", {})
    finally:
        await m.aclose()


async def test_five_servers_at_once(write_config, tmp_path, marks):
    from tests.servers.conftest import faulty

    root = tmp_path / "files"
    root.mkdir()
    cfg = write_config({
        "every": {"command": str(EVERYTHING), "args": ["stdio"]},
        "fs": {"command": str(FILESYSTEM), "args": [str(root)]},
        "time": {"command": str(TIME)},
        "faulty": faulty(marks),
        "every2": {"command": str(EVERYTHING), "args": ["stdio"]},
        "off": {"command": str(TIME), "disabled": True},
    })
    m = ServerManager(cfg, tmp_path / "log")
    try:
        tools = await m.tools()
        assert set(tools) == {"every", "fs", "time", "faulty", "every2"}
        pids = {s.name: s.pid for s in m.status() if s.state == "running"}
        assert len(set(pids.values())) == 5
        import anyio

        results: dict[str, str] = {}

        async def one(server: str, tool: str, args: dict) -> None:
            results[server] = text(await m.call(server, tool, args))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "every", "echo", {"message": "a"})
            tg.start_soon(one, "every2", "echo", {"message": "b"})
            tg.start_soon(one, "faulty", "ping", {})
            tg.start_soon(one, "time", "get_current_time", {"timezone": "UTC"})
            tg.start_soon(one, "fs", "list_allowed_directories", {})
        assert results["every"] == "Echo: a" and results["every2"] == "Echo: b"
        assert results["faulty"] == "pong" and "UTC" in results["time"] and str(root) in results["fs"]
        assert next(s for s in m.status() if s.name == "off").state == "stopped"
    finally:
        await m.aclose()
    assert not any(alive(p) for p in pids.values())
