"""The PyInstaller bundle: it builds, its host answers native messaging and serves the socket,
its MCP entry answers an MCP client, and `install` from it points the manifest at itself.

Not a unit test: the `bundle` fixture (tests/conftest.py, shared with the bundle e2e test)
builds with installers/build.sh, which installs PyInstaller (the `package` extra) when the venv
lacks it. Slow (the build takes ~40 s on a 2-core machine, much less when build/pyinstaller is
warm) but part of the normal run, CI included. WEBMCP_SIDECAR_BUNDLE=<path of the executable>
reuses a bundle built earlier instead of building.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from webmcp_sidecar import EXTENSION_ID, HOST_NAME
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import FrameDecoder, dumps, encode_frame
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "WEBMCP_SIDECAR_SOCKET_DIR": str(tmp_path / "sock"),
            "WEBMCP_SIDECAR_LOG_DIR": str(tmp_path / "logs"),
            "WEBMCP_SIDECAR_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def host(bundle: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([str(bundle), f"chrome-extension://{EXTENSION_ID}/"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _send(proc: subprocess.Popen[bytes], msg: dict[str, object]) -> None:
    assert proc.stdin
    proc.stdin.write(encode_frame(dumps(msg)))
    proc.stdin.flush()


def _recv(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    assert proc.stdout
    dec = FrameDecoder(max_frame=1 << 20)
    while True:
        data = proc.stdout.read1(1 << 16)
        assert data, "the host closed stdout"
        frames = list(dec.feed(data))
        if frames:
            return json.loads(frames[0])


def _wait_for_socket(sock_dir: Path) -> None:
    deadline = time.monotonic() + 30
    while not list(sock_dir.glob("host-*")):
        assert time.monotonic() < deadline, "the bundle's host never opened its socket"
        time.sleep(0.05)


async def _welcome() -> dict[str, object]:
    [ep] = localsock.list_endpoints()
    reader, writer = await localsock.connect(ep)
    hello = {"type": "entry_hello", "protocol": PROTOCOL_VERSION,
             "client": "test", "pid": os.getpid(), "token": ep.token}
    writer.write(localsock.frame(dumps(hello)))
    payload = await asyncio.wait_for(localsock.read_frame(reader), 10)
    writer.close()
    assert payload is not None
    return json.loads(payload)


def test_bundle_host_hello_to_welcome(host: subprocess.Popen[bytes], env: dict[str, str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _send(host, {"type": "ping", "id": "1"})
    assert _recv(host) == {"type": "pong", "id": "1"}
    _send(host, {"type": "hello", "protocol": PROTOCOL_VERSION,
                 "extension_version": "1.2.3", "browser": "Chromium"})
    monkeypatch.setenv("WEBMCP_SIDECAR_SOCKET_DIR", env["WEBMCP_SIDECAR_SOCKET_DIR"])
    _wait_for_socket(Path(env["WEBMCP_SIDECAR_SOCKET_DIR"]))
    welcome = asyncio.run(_welcome())
    assert welcome["type"] == "welcome" and welcome["pid"] == host.pid
    assert welcome["extension_connected"] is True and welcome["extension_version"] == "1.2.3"
    assert welcome["extension_origin"] == f"chrome-extension://{EXTENSION_ID}/"
    assert host.stdin
    host.stdin.close()  # the browser closed the port
    assert host.wait(10) == 0
    assert not list(Path(env["WEBMCP_SIDECAR_SOCKET_DIR"]).glob("host-*"))


def test_bundle_mcp_entry_answers(bundle: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen([str(bundle), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdin and proc.stdout
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "bundle-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
        proc.stdin.flush()
        answers = {}
        while len(answers) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()[-3000:]
            msg = json.loads(line)
            if "id" in msg:
                answers[msg["id"]] = msg
        assert "result" in answers[1], answers[1]
        assert answers[2]["result"]["tools"], answers[2]
    finally:
        proc.stdin.close()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_bundle_install_and_doctor(bundle: Path, env: dict[str, str], tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    out = subprocess.run([str(bundle), "install", "--browser", "chromium", "--user-data-dir",
                          str(profile)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "(the packaged bundle)" in out.stdout
    m = json.loads((profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").read_text())
    assert m["path"] == str(bundle.resolve())
    assert "/extension" in out.stdout  # the bundle carries the extension to load
    doc = subprocess.run([str(bundle), "doctor", "--user-data-dir", str(profile), "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    report = json.loads(doc.stdout)
    starts = next(c for c in report["checks"] if c["id"].endswith(":starts"))
    assert starts["status"] == "ok", starts
    assert doc.returncode == 0, doc.stdout
