"""wire/adrift.py: what a call a link's drop left out is answered."""

import asyncio
from typing import Any

import pytest

from webmcp_sidecar.wire import adrift
from webmcp_sidecar.wire.adrift import Adrift, dropped_result

pytestmark = pytest.mark.anyio

MESSAGE = "the link dropped"


def ok(call_id: str) -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": True, "value": '"x"'}


def failed(call_id: str, code: str) -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": False, "error": {"code": code, "message": "m"}}


async def test_an_answer_that_comes_is_the_calls_and_the_pages_cancelled_is_the_drops(monkeypatch):
    monkeypatch.setattr(adrift, "DROP_GRACE", 0.05)
    lost: list[tuple[str, dict[str, Any]]] = []
    a = Adrift(MESSAGE, lambda call_id, res: lost.append((call_id, res)))
    untouched = ok("c1.9")
    assert a.landed("c1.9", untouched) is untouched  # nothing adrift: as it is
    for call_id in ("c1.1", "c1.2", "c1.3", "c1.4", "c1.5"):
        a.add(call_id)
    a.add("c1.1")  # twice is once
    assert len(a) == 5 and "c1.1" in a
    assert a.landed("c1.1", ok("c1.1")) == ok("c1.1")
    assert a.landed("c1.2", failed("c1.2", "page_error")) == failed("c1.2", "page_error")
    assert a.landed("c1.3", failed("c1.3", "cancelled")) == dropped_result("c1.3", MESSAGE)
    a.discard("c1.4")  # its waiter gave up: nothing more for it
    await asyncio.sleep(0.2)
    assert lost == [("c1.5", dropped_result("c1.5", MESSAGE))]  # nothing came: the drop's error
    assert dropped_result("c1.5", MESSAGE)["error"] == {"code": "internal", "message": MESSAGE}
    assert len(a) == 0
    assert a.landed("c1.5", failed("c1.5", "cancelled"))["error"]["code"] == "cancelled"  # too late: as it is


async def test_clear_answers_nothing(monkeypatch):
    monkeypatch.setattr(adrift, "DROP_GRACE", 0.05)
    lost: list[str] = []
    a = Adrift(MESSAGE, lambda call_id, res: lost.append(call_id))
    a.add("c1.1")
    a.clear()
    await asyncio.sleep(0.15)
    assert lost == [] and len(a) == 0
