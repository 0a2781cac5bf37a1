"""The host process with a scripted browser on its stdio and bare socket clients."""

import asyncio
import json
import os
import stat

import pytest

from tests.support.fake_browser import FakeBrowser
from tests.support.raw_entry import RawEntry, open_link
from webmcp_sidecar import EXTENSION_ID, GECKO_ID, paths
from webmcp_sidecar.native_host.app import Host
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.texts import NO_EXTENSION
from webmcp_sidecar.tools import uploads
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire.codec import MAX_TO_BROWSER, dumps, header
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

pytestmark = pytest.mark.anyio

TOOLS = [{"name": "add", "description": "Add", "inputSchema": {"type": "object"}}]


@pytest.fixture
async def browser(sock_env):
    b = FakeBrowser(sock_env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Test 1"})
    assert (await b.expect("host_hello"))["protocol"] == PROTOCOL_VERSION  # the host's side of the handshake
    b.send({"type": "registry", "sites": {"a.test": TOOLS}})
    yield b
    if b.proc and b.proc.returncode is None:
        b.proc.kill()
        await b.proc.wait()


async def test_entry_gets_welcome_with_registry_and_updates(browser):
    e = await RawEntry.connect()
    assert e.welcome["type"] == "welcome" and e.welcome["extension_connected"]
    assert e.welcome["sites"]["a.test"][0]["name"] == "add"
    browser.send({"type": "site_tools", "site": "b.test", "tools": TOOLS})
    msg = await e.recv("site_tools")
    assert msg["site"] == "b.test"
    e.close()


async def test_socket_and_logs_are_private(browser, tmp_path):
    await RawEntry.connect()
    (ep,) = localsock.list_endpoints()
    assert ep.path.parent == paths.socket_dir()
    assert stat.S_IMODE(ep.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(ep.path.parent.stat().st_mode) == 0o700
    log_dir = tmp_path / "log"
    assert stat.S_IMODE(log_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((log_dir / "host.log").stat().st_mode) == 0o600


async def raw_link() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the host that has not said hello."""
    _, reader, writer = await open_link()
    return reader, writer


async def test_nothing_counts_before_the_hello(browser):
    first = await RawEntry.connect()  # c1: the next connection is c2
    reader, writer = await raw_link()
    # One write: the host closes on the first frame, and a later write of ours could then meet
    # the closed socket (EPIPE) before we read the refusal.
    writer.write(b"".join(localsock.frame(dumps(msg)) for msg in (
        {"type": "call", "id": "c2.1", "site": "a.test", "tool": "add", "args": {}},
        {"type": "browser_call", "id": "c2.2", "session": "panel", "tool": "click", "tab_id": 1},
        {"type": "entry_hello", "protocol": PROTOCOL_VERSION, "client": "late", "pid": 1},
    )))
    assert await localsock.read_frame(reader) is None  # refused: closed, no welcome
    writer.close()
    # The refused frames never reached the browser: the next call it sees is the real entry's.
    first.send({"type": "call", "id": first.welcome["conn"] + ".1", "site": "a.test",
                "tool": "add", "args": {}})
    assert (await browser.expect("call"))["id"] == first.welcome["conn"] + ".1"


async def test_browser_calls_run_in_the_connections_own_session(browser):
    e = await RawEntry.connect()
    conn = e.welcome["conn"]
    e.send({"type": "browser_call", "id": conn + ".1", "session": "panel", "tool": "click",
            "args": {"ref": "e1"}, "tab_id": 7})
    r = await e.recv("result")
    assert r["id"] == conn + ".1" and r["error"]["code"] == "bad_request"
    assert "panel" in r["error"]["message"]
    e.send({"type": "browser_call", "id": conn + ".2", "session": "c999", "tool": "click",
            "args": {"ref": "e1"}, "tab_id": 7})
    call = await browser.expect("browser_call")  # the panel one never came
    assert call["id"] == conn + ".2" and call["session"] == conn and "tab_id" not in call
    assert call["args"] == {"ref": "e1"}


async def test_the_host_checks_uploads_itself_whatever_entry_sends_them(browser, private_home):
    allowed = private_home / "Uploads"
    allowed.mkdir()
    (allowed / "cv.pdf").write_bytes(b"%PDF-1.4")
    outside = private_home / "notes.txt"
    outside.write_text("not for pages")
    uploads.allow(str(allowed))
    e = await RawEntry.connect()  # a bare client: no MCP server checked anything before this
    conn = e.welcome["conn"]
    for n, given in ((1, [str(outside)]), (2, "/etc/passwd"), (3, [str(allowed / ".." / "notes.txt")])):
        e.send({"type": "browser_call", "id": f"{conn}.{n}", "session": conn, "tool": "upload_file",
                "args": {"ref": "e1", "paths": given}})
        r = await e.recv("result")
        assert r["id"] == f"{conn}.{n}" and not r["ok"] and r["error"]["code"] == "invalid_args"
        assert r["error"]["message"].startswith("Not run.")
    assert "not in a folder the user allowed" in r["error"]["message"]
    e.send({"type": "browser_call", "id": f"{conn}.4", "session": conn, "tool": "upload_file",
            "args": {"ref": "e1", "paths": [str(allowed / "cv.pdf")]}})
    call = await browser.expect("browser_call")  # the refused ones never came
    assert call["id"] == f"{conn}.4"
    assert call["args"] == {"ref": "e1", "paths": [str((allowed / "cv.pdf").resolve())]}


async def test_malformed_frames_are_dropped_and_the_host_lives_on(browser, tmp_path):
    e = await RawEntry.connect()
    browser.send_raw(b"\xff\xfe not utf8")
    browser.send_raw(b"{not json")
    browser.send_raw(b"[1,2,3]")
    browser.send({"type": "no_such_message"})
    browser.send({"type": "site_tools", "site": "x", "tools": [{"name": "bad name!"}]})
    browser.send({"type": "site_tools", "site": "ok.test", "tools": TOOLS})
    msg = await e.recv("site_tools")
    assert msg["site"] == "ok.test"  # the bad ones never reached the entry
    wanted = ("not valid UTF-8", "not valid JSON", "not an object", "no_such_message")
    log_file = tmp_path / "log" / "host.log"
    for _ in range(200):  # the log is written by another process: poll it briefly
        if all(w in log_file.read_text() for w in wanted):
            break
        await asyncio.sleep(0.05)
    text = log_file.read_text()
    assert all(w in text for w in wanted), text
    assert "bad name!" not in json.dumps(msg)


async def test_oversized_frame_from_browser_is_skipped(browser):
    e = await RawEntry.connect()
    n = 64 * 1024 * 1024 + 1
    browser.send_bytes(header("native").pack(n))
    browser.send_bytes(b" " * n)
    browser.send({"type": "site_tools", "site": "after.test", "tools": TOOLS})
    msg = await e.recv("site_tools", timeout=30)
    assert msg["site"] == "after.test"


async def test_calls_route_to_their_entry_and_bytes_pass_through(browser):
    e1, e2 = await RawEntry.connect(), await RawEntry.connect()
    for e in (e1, e2):
        e.send(
            {
                "type": "call",
                "id": e.welcome["conn"] + ".1",
                "site": "a.test",
                "tool": "add",
                "args": {"who": e.welcome["conn"]},
            }
        )
    calls = [await browser.expect("call"), await browser.expect("call")]
    for c in calls:
        browser.send(
            {"type": "result", "id": c["id"], "ok": True, "value": json.dumps(c["args"]["who"])}
        )
    for e in (e1, e2):
        r = await e.recv("result")
        assert r["id"].startswith(e.welcome["conn"] + ".")
        assert json.loads(r["value"]) == e.welcome["conn"]


async def test_foreign_call_ids_are_refused(browser):
    e = await RawEntry.connect()
    e.send({"type": "call", "id": "c999.1", "site": "a.test", "tool": "add", "args": {}})
    e.send({"type": "ping", "id": "p"})
    await e.recv("pong")
    assert browser.inbox.empty()


async def test_large_call_is_split_into_frames_under_1_mib(browser):
    e = await RawEntry.connect()
    big = "数据🙂" * 400_000  # ~4.4 MB of UTF-8
    e.send(
        {
            "type": "call",
            "id": e.welcome["conn"] + ".1",
            "site": "a.test",
            "tool": "add",
            "args": {"blob": big},
        }
    )
    call = await browser.expect("call")
    assert call["args"]["blob"] == big
    assert max(browser.frame_sizes) <= MAX_TO_BROWSER - 4
    assert len(browser.frame_sizes) >= 4


async def test_entry_leaving_mid_call_cancels_it_in_the_browser(browser):
    e = await RawEntry.connect()
    call_id = e.welcome["conn"] + ".7"
    e.send({"type": "call", "id": call_id, "site": "a.test", "tool": "add", "args": {}})
    await browser.expect("call")
    e.close()
    cancel = await browser.expect("cancel")
    assert cancel["id"] == call_id


async def test_calls_before_the_extension_says_hello_get_a_clear_error(sock_env):
    b = FakeBrowser(sock_env)
    await b.start()
    e = await RawEntry.connect()
    e.send({"type": "call", "id": e.welcome["conn"] + ".1", "site": "a", "tool": "t"})
    r = await e.recv("result")
    assert r["error"]["code"] == "no_extension" and "browser" in r["error"]["message"]
    assert r["error"]["message"] == NO_EXTENSION  # what the panel's agent says too (test_agent)
    assert await b.close() == 0


async def test_eof_on_stdin_exits_cleanly_and_removes_the_socket(browser):
    await RawEntry.connect()
    assert localsock.list_endpoints()
    assert await browser.close() == 0
    assert localsock.list_endpoints() == []


async def test_ping_answered_with_pong(browser):
    browser.send({"type": "ping", "id": "42"})
    assert (await browser.expect("pong"))["id"] == "42"


def test_peer_of_another_user_is_refused(monkeypatch):
    import socket as s

    a, b = s.socketpair(s.AF_UNIX)
    try:
        assert localsock.same_user(a)  # same process, same uid
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
        assert not localsock.same_user(a)
    finally:
        a.close()
        b.close()


# --- the extension's origin when Firefox started the host (native_host/launch.py) ---------------

MOZ = "moz-extension://1dc79572-a92b-44ee-8188-f1ea72c6bad4"


async def test_a_host_firefox_started_learns_its_origin_from_the_hello(sock_env, tmp_path):
    """Firefox starts the host as `<manifest path> <add-on id>`, with no origin: the hello's
    (`moz-extension://<uuid>/`, per profile) is what the entries' links then admit
    (test_link_server.py), and entries that came before it hear it in a `status`."""
    b = FakeBrowser(sock_env, [str(tmp_path / "io.webmcp.sidecar.json"), GECKO_ID])
    await b.start()
    try:
        e = await RawEntry.connect()
        assert e.welcome["extension_origin"] == ""
        b.send({"type": "hello", "protocol": PROTOCOL_VERSION,
                "extension_version": "0.1.0", "browser": "Firefox 153.0",
                "origin": MOZ + "/"})
        await b.expect("host_hello")
        assert (await e.recv("status"))["extension_origin"] == MOZ + "/"
        later = await RawEntry.connect()
        assert later.welcome["extension_origin"] == MOZ + "/"
        e.close()
        later.close()
    finally:
        if b.proc and b.proc.returncode is None:
            b.proc.kill()
            await b.proc.wait()


@pytest.mark.parametrize("origin", [f"chrome-extension://{EXTENSION_ID}/", ""])
def test_only_a_host_firefox_started_takes_the_hellos_origin(origin):
    """Chrome's argument is the origin, whatever a hello says; a host started by hand learns
    none; and a hello's origin that is not exactly a Firefox extension's is not taken."""
    host = Host(origin, FrameWriter(lambda _: None))
    host.on_browser_frame(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "9",
                                      "origin": MOZ + "/"}).encode())
    assert host.origin == origin
    firefox = Host("", FrameWriter(lambda _: None), origin_from_hello=True)
    firefox.on_browser_frame(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION,
                                         "extension_version": "9",
                                         "origin": "*"}).encode())
    assert firefox.origin == ""
