"""For the links' tests (tests/unit/test_entry_link.py, test_link_server.py): the real host with
a scripted browser that has said hello, and the `websockets` client in the worker's place; for the
end-to-end ones (tests/e2e/test_entry_link.py): a page's try at a link."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from tests.support.fake_browser import FakeBrowser
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

ORIGIN = f"chrome-extension://{EXTENSION_ID}"
TOOLS = [{"name": "add", "description": "Add", "inputSchema": {"type": "object"}}]
# A page opens a WebSocket to a URL (page.evaluate(PAGE_WS_PROBE, url)): "opened", or "closed <code>".
PAGE_WS_PROBE = """async (url) => await new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { ws.close(); resolve('opened'); };
  ws.onclose = (ev) => resolve(`closed ${ev.code}`);
})"""


async def start(env: dict[str, str]) -> FakeBrowser:
    """The host, its browser connected (hello answered) with site a.test's tool `add`."""
    b = FakeBrowser(env)
    await b.start()
    b.send({"type": "hello", "protocol": PROTOCOL_VERSION, "extension_version": "0.1.0", "browser": "Test 1"})
    await b.expect("host_hello")
    b.send({"type": "registry", "sites": {"a.test": TOOLS}})
    return b


async def stop(b: FakeBrowser) -> None:
    if b.proc and b.proc.returncode is None:
        b.proc.kill()
        await b.proc.wait()


async def open_link(offer: dict[str, Any], origin: str = ORIGIN) -> ClientConnection:
    """Opens an offered link as the worker does (`ws://127.0.0.1:<port>/link/<token>`)."""
    url = f"ws://127.0.0.1:{offer['port']}/link/{offer['token']}"
    return await connect(url, origin=origin, compression=None)  # type: ignore[arg-type]


async def recv_json(ws: ClientConnection, kind: str) -> dict[str, Any]:
    """The next message of type `kind` on a link (others skipped)."""
    async with asyncio.timeout(10):
        while True:
            msg = json.loads(await ws.recv())
            if msg.get("type") == kind:
                return msg


def result(call_id: str, value: str = '"ok"') -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": True, "value": value, "tab_id": 1}


async def until(predicate: Callable[[], object], timeout: float = 10) -> None:
    """Until `predicate()` is true (polled), at most `timeout` s."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


def cancelled(call_id: str) -> dict[str, Any]:
    """The worker's answer to a call its page stopped on a cancel (page/isolated/calls.js)."""
    error = {"code": "cancelled", "message": "The call was cancelled."}
    return {"type": "result", "id": call_id, "ok": False, "error": error}


async def assert_refused(port: int, token: str, paths: bool = False) -> None:
    """Every connection to a link but the extension's with the offer's token gets 403: a page's
    origin, none, another extension's, a wrong token; with `paths`, no token and another path."""
    base = f"ws://127.0.0.1:{port}"
    refused = {
        "a page's origin": (f"{base}/link/{token}", "http://evil.test"),
        "no origin": (f"{base}/link/{token}", None),
        "another extension": (f"{base}/link/{token}", "chrome-extension://" + "b" * 32),
        "a wrong token": (f"{base}/link/{'x' * len(token)}", ORIGIN),
    }
    if paths:
        refused |= {"no token": (f"{base}/link/", ORIGIN), "another path": (f"{base}/{token}", ORIGIN)}
    for why, (url, origin) in refused.items():
        with pytest.raises(InvalidStatus) as err:
            await connect(url, origin=origin)  # type: ignore[arg-type]
        assert err.value.response.status_code == 403, why
