"""The content scripts (extension/page/main, isolated) in real Chromium 156, in both WebMCP modes.

A recording service worker stands in for the real one (see harness.py), so these tests check
exactly what the content scripts put on the `webmcp-page` port and how they answer calls.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import MARKS, Ext, browser, driver, wait_for

pytestmark = MARKS

Mode = tuple[Any, Ext, bool]  # (context, recorder, native)


@pytest.fixture(scope="module")
def pw() -> Iterator[Any]:
    with driver() as p:
        yield p


@pytest.fixture(scope="module")
def poly(pw: Any) -> Iterator[Mode]:
    with browser(pw, False) as (ctx, ext):
        yield ctx, ext, False


@pytest.fixture(scope="module")
def nat(pw: Any) -> Iterator[Mode]:
    with browser(pw, True) as (ctx, ext):
        yield ctx, ext, True


@pytest.fixture(params=["polyfill", "native"])
def any_mode(request: pytest.FixtureRequest) -> Mode:
    return request.getfixturevalue("nat" if request.param == "native" else "poly")


_n = 0


def _open(ctx: Any, url: str) -> Any:
    page = ctx.new_page()
    page.goto(url)
    return page


def unique(name: str) -> str:
    global _n
    _n += 1
    return f"{name}-{_n}-{time.monotonic_ns()}"


def tools_frame(ext: Ext, tag: str, name: str = "add") -> dict[str, Any]:
    return ext.wait_tool(tag, name)


def tools_messages(ext: Ext, tag: str) -> list[dict[str, Any]]:
    return [e for e in ext.log() if e["ev"] == "msg" and e["m"]["type"] == "tools" and tag in e["url"]]


# ---- the polyfill's own API ------------------------------------------------------------------

POLYFILL_API = r"""
async () => {
  const mc = document.modelContext, out = {};
  const names = async () => (await mc.getTools()).map((t) => t.name);
  const tool = async (n) => (await mc.getTools()).find((t) => t.name === n);
  const settle = (p) => p.then((v) => 'ok:' + v, (e) => e.name + ': ' + e.message);
  out.ctor = mc.constructor.name;
  out.isEventTarget = mc instanceof EventTarget;
  out.registerToolLength = mc.registerTool.length;
  let changes = 0, handler = 0;
  mc.addEventListener('toolchange', () => changes++);
  mc.ontoolchange = () => handler++;
  const p = mc.registerTool({ name: 'a', description: 'A', inputSchema: { type: 'object' },
                              execute: (i) => i.x * 2 });
  out.returnsPromise = p instanceof Promise;
  out.resolvedWith = String(await p);
  await new Promise((r) => setTimeout(r, 0));
  // Each registration settles in the task of its own toolchange.
  await Promise.all([mc.registerTool({ name: 'c1', description: 'c', execute() {} }),
                     mc.registerTool({ name: 'c2', description: 'c', execute() {} })]);
  out.changes = changes;
  out.handler = handler;
  out.duplicate = await settle(mc.registerTool({ name: 'a', description: 'x', execute() {} }));
  out.invalid = await settle(mc.registerTool({ name: 'bad name', description: 'x', execute() {} }));
  out.tooLong = await settle(mc.registerTool({ name: 'n'.repeat(129), description: 'x', execute() {} }));
  out.longest = await settle(mc.registerTool({ name: 'n'.repeat(128), description: 'x', execute() {} }));
  let sync = false, q;
  try { q = mc.registerTool({ name: 'nodesc', execute() {} }); } catch { sync = true; }
  out.noDescription = [sync, await settle(q)];
  out.noExecute = await settle(mc.registerTool({ name: 'noexec', description: 'x' }));
  const pre = new AbortController(); pre.abort();
  out.preAborted = await settle(mc.registerTool({ name: 'pre', description: 'x', execute() {} },
                                                { signal: pre.signal }));
  const ac = new AbortController();
  await mc.registerTool({ name: 'tmp', description: 'x', execute() {} }, { signal: ac.signal });
  out.beforeAbort = (await names()).includes('tmp');
  ac.abort();
  out.afterAbort = (await names()).includes('tmp');
  out.reRegister = await settle(mc.registerTool({ name: 'tmp', description: 'y', execute() {} }));
  out.names = await names();
  const a = (await mc.getTools()).find((t) => t.name === 'a');
  out.shape = { keys: Object.keys(a).sort(), origin: a.origin === location.origin,
                window: a.window === window, title: a.title, schema: a.inputSchema };
  out.exec = await mc.executeTool(a, { x: 2 });
  out.execByName = await settle(mc.executeTool('a', { x: 5 }));
  out.badInput = await settle(mc.executeTool(a, 'x'));
  await mc.registerTool({ name: 's', description: 'x', execute: () => 'plain' });
  await mc.registerTool({ name: 'e', description: 'x', execute: () => '' });
  await mc.registerTool({ name: 'u', description: 'x', execute: () => undefined });
  out.strings = [await mc.executeTool(await tool('s'), {}), await mc.executeTool(await tool('e'), {}),
                 await mc.executeTool(await tool('u'), {})];
  await mc.registerTool({ name: 'boom', description: 'x', execute: () => { throw new Error('kaput'); } });
  out.thrown = await settle(mc.executeTool(await tool('boom'), {}));
  const events = [];
  mc.addEventListener('toolactivated', (e) => events.push('activated:' + e.toolName));
  mc.addEventListener('toolcancel', (e) => events.push('cancel:' + e.toolName));
  let clientSignal, interaction;
  await mc.registerTool({ name: 'wait', description: 'x', execute: async (i, client) => {
    clientSignal = client.signal;
    interaction = typeof client.requestUserInteraction;
    return new Promise(() => {});
  } });
  const stop = new AbortController();
  const run = settle(mc.executeTool(await tool('wait'), {}, { signal: stop.signal }));
  await new Promise((r) => setTimeout(r, 20));
  const cancelled = new Promise((r) => mc.addEventListener('toolcancel', r, { once: true }));
  stop.abort();
  out.aborted = await run;
  await cancelled; // the tool's own signal aborts after the call rejects, as in Chromium
  out.clientSignalAborted = clientSignal.aborted;
  out.interaction = interaction;
  out.events = events;
  return out;
}
"""


def test_polyfill_api(poly: Mode, origins: tuple[str, str]) -> None:
    ctx, _ext, _ = poly
    page = _open(ctx, f"{origins[0]}/empty.html?{unique('api')}")
    out = page.evaluate(POLYFILL_API)
    page.close()
    assert out["ctor"] == "ModelContext" and out["isEventTarget"]
    assert out["registerToolLength"] == 1
    assert out["returnsPromise"] and out["resolvedWith"] == "undefined"
    assert out["changes"] == 3  # one per registration, as Chromium fires them
    assert out["handler"] == 3
    assert out["duplicate"] == "InvalidStateError: Duplicate tool name"
    assert out["invalid"] == "InvalidStateError: Invalid tool name"
    assert out["tooLong"] == "InvalidStateError: Invalid tool name"
    assert out["longest"] == "ok:undefined"
    # Chromium 156 rejects (it does not throw synchronously) on a missing member.
    assert out["noDescription"][0] is False
    assert out["noDescription"][1].startswith("TypeError:") and "'description'" in out["noDescription"][1]
    assert out["noExecute"].startswith("TypeError:") and "'execute'" in out["noExecute"]
    assert out["preAborted"].startswith("AbortError")
    assert out["beforeAbort"] is True and out["afterAbort"] is False
    assert out["reRegister"] == "ok:undefined"
    assert "pre" not in out["names"] and "nodesc" not in out["names"]
    assert out["shape"] == {
        "keys": ["description", "inputSchema", "name", "origin", "title", "window"],
        "origin": True,
        "window": True,
        "title": "",
        "schema": {"type": "object"},
    }
    assert out["exec"] == "4"
    assert out["execByName"].startswith("TypeError")  # a name is not a RegisteredTool
    assert out["badInput"].startswith("TypeError")
    assert out["strings"] == ["plain", "Operation succeeded", "undefined"]
    assert out["thrown"].startswith("UnknownError: Tool was executed but the invocation failed")
    assert out["aborted"].startswith("AbortError")
    assert out["clientSignalAborted"] is True
    assert out["interaction"] == "undefined"  # the options are {signal}, as in Chromium
    assert out["events"] == ["activated:wait", "cancel:wait"]


# ---- what reaches the service worker, and calls ----------------------------------------------


def test_tool_list_and_results(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, native = any_mode
    tag = unique("tools")
    page = _open(ctx, f"{origins[0]}/tools.html?{tag}")
    frame = ext.wait_frames(tag, lambda f: len(f[0]["tools"]) >= 14)[0]
    assert frame["native"] is native
    assert frame["msgUrl"] == page.url
    add = next(t for t in frame["tools"] if t["name"] == "add")
    assert add["description"] == "tool add"
    assert add["title"] == "Add"
    assert add["source"] == ("native" if native else "polyfill")
    assert add["inputSchema"]["required"] == ["a", "b"]
    assert add["annotations"]["readOnlyHint"] is True

    pid = frame["pid"]

    def ok(name: str, args: dict[str, Any] | None = None) -> str:
        r = ext.call(pid, name, args)
        assert r["ok"] is True, r
        return r["value"]

    assert json.loads(ok("add", {"a": 1, "b": 2})) == {"sum": 3}
    assert json.loads(ok("echo", {"x": [1, "é"]})) == {"x": [1, "é"]}
    assert ok("str") == "hi"
    assert ok("undef") == "undefined"
    # Tools registered on document.modelContext get {signal} only, as in Chromium 156.
    assert ext.call(pid, "interact")["error"]["code"] == "page_error"
    assert json.loads(ok("date")) == {"d": "1970-01-01T00:00:00.000Z", "n": None}
    if native:
        # Chromium fails a result JSON.stringify rejects (a cycle, a BigInt); the wrapper leaves
        # the page's promise alone, so the call fails too.
        for name in ("cycle", "mapset"):
            r = ext.call(pid, name)
            assert r["error"]["code"] == "page_error"
            assert r["error"]["message"].startswith("Tool was executed but the invocation failed")
    else:
        assert json.loads(ok("cycle")) == {"a": 1, "self": "[Circular]"}
        assert json.loads(ok("mapset")) == {
            "m": {"k": 1},
            "s": [1, 2],
            "big": "10",
            "e": {"name": "RangeError", "message": "bad range"},
        }
    dom = json.loads(ok("dom"))
    if native:
        assert dom == {"el": {}, "body": {}}  # Chromium's own serialization
    else:
        assert dom == {"el": "<button#b1.primary.big>", "body": "<body>"}

    for name, message in [
        ("thrower", "boom: the widget is missing"),
        ("rejecter", "async boom"),
        ("throw_string", "plain string thrown"),
    ]:
        r = ext.call(pid, name)
        # Native: Chromium rejects with an UnknownError; the MAIN-world wrapper reported the
        # real message to the relay on the way.
        assert r == {
            "type": "result",
            "id": r["id"],
            "ok": False,
            "error": {"code": "page_error", "message": message},
        }
    page.close()


def test_call_paths(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _native = any_mode
    tag = unique("calls")
    page = _open(ctx, f"{origins[0]}/tools.html?{tag}")
    pid = tools_frame(ext, tag, "slow")["pid"]

    r = ext.call(pid, "nope")
    assert r["error"] == {"code": "not_found", "message": 'This page has no tool named "nope" now.'}

    r = ext.call(pid, "slow", {"ms": 800}, timeout_ms=300, call_id="to1")
    assert r["error"] == {"code": "timeout", "message": "The page did not answer within 0.3 s."}
    wait_for(lambda: "cancel:slow" in page.evaluate("events"), what="toolcancel after timeout")
    assert "signal-aborted" in page.evaluate("events")

    # Cancel: the page's signal aborts and the call is answered once, as cancelled.
    ext.post(
        pid,
        {
            "type": "call",
            "id": "c1",
            "tool": "slow",
            "args": {"ms": 600},
            "timeout_ms": 5000,
            "max_bytes": 1000,
        },
    )
    time.sleep(0.1)
    ext.post(pid, {"type": "cancel", "id": "c1"})
    wait_for(lambda: ext.results_for("c1"), what="cancel reply")
    assert ext.results_for("c1")[0]["error"] == {"code": "cancelled", "message": "The call was cancelled."}

    # The same id again, a second cancel, and the late page answers: still one reply each.
    ext.post(pid, {"type": "call", "id": "c1", "tool": "add", "args": {"a": 1, "b": 1}})
    ext.post(pid, {"type": "cancel", "id": "c1"})
    time.sleep(1.0)
    assert len(ext.results_for("c1")) == 1
    assert len(ext.results_for("to1")) == 1

    # Too large: a 1.5 MB string against a 1 MB cap; exact UTF-8 count for multibyte text.
    r = ext.call(pid, "big", {"n": 1536 * 1024}, max_bytes=1024 * 1024)
    assert r["error"] == {"code": "too_large", "message": "The tool's result is 1.5 MB, over the 1 MB limit."}
    r = ext.call(pid, "big", {"n": 100, "ch": "é"}, max_bytes=200)
    assert r["ok"] is True and r["value"] == "é" * 100  # 200 bytes: fits exactly
    r = ext.call(pid, "big", {"n": 101, "ch": "é"}, max_bytes=200)
    assert r["error"]["code"] == "too_large"
    # Longer than a part (RESULT_PART_CHARS, 65,536 units): two pieces first, then the result
    # with the rest; the first cut would fall inside a surrogate pair and moves back by one.
    r = ext.call(pid, "big", {"n": 50_000, "ch": "\U0001f600a"})
    assert (r["ok"], r["parts"], r["partsSeen"]) == (True, 2, 2)
    assert r["value"] == "\U0001f600a" * 50_000

    r = ext.sw.evaluate(
        "([pid]) => self.call(pid, {type:'call', id:'bad-args', tool:'add', args:[1,2]})", [pid]
    )
    assert r["error"]["code"] == "invalid_args"
    page.close()


def test_same_and_cross_origin_iframes(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, native = any_mode
    a, b = origins
    tag = unique("frames")
    page = ctx.new_page()
    page.goto(f"{a}/frames.html?{tag}=1&b={b}")
    # The page's own frames: the frame lane's bridge (an extension frame, gone from the DOM once
    # it has passed its port on) may stay in Playwright's list.
    web = lambda: [f for f in page.frames if not f.url.startswith("chrome-extension://")]  # noqa: E731
    wait_for(lambda: len(web()) == 3 and all(f.url for f in web()), what="frames")
    time.sleep(0.8)  # let every frame report
    if native:
        frames = ext.wait_frames(
            tag, lambda f: {"top_tool", "same_child_tool"} <= {t["name"] for x in f for t in x["tools"]}
        )
        assert len(frames) == 1 and frames[0]["frameId"] == 0  # only the top frame reports
        names = {t["name"] for t in frames[0]["tools"]}
        assert names == {"top_tool", "same_child_tool"}
        r = ext.call(frames[0]["pid"], "same_child_tool")
        assert r["ok"] and r["value"] == "from same child"
    else:
        top = ext.wait_frames(tag, lambda f: any(t["name"] == "top_tool" for x in f for t in x["tools"]))
        child = ext.wait_frames("frame_child.html?same", lambda f: len(f) > 0)
        assert [t["name"] for t in top[0]["tools"]] == ["top_tool"]
        assert [t["name"] for t in child[-1]["tools"]] == ["same_child_tool"]
        assert child[-1]["frameId"] != 0
        r = ext.call(child[-1]["pid"], "same_child_tool")
        assert r["ok"] and r["value"] == "from same child"
    # The cross-origin child never reports.
    assert ext.frames("frame_child.html?cross") == []
    page.close()


# ---- legacy surface --------------------------------------------------------------------------


def test_legacy_surface(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, native = any_mode
    tag = unique("legacy")
    page = _open(ctx, f"{origins[0]}/legacy.html?{tag}")
    want = {"legacy_one", "legacy_two", "legacy_ui", "ctx_a", "ctx_b"}

    def names() -> set[str]:
        return set(ext.tools(tag))

    wait_for(lambda: names() == want, what="legacy tools")
    assert {t["source"] for t in ext.tools(tag).values()} == {"native" if native else "legacy"}
    assert page.evaluate("legacyErrors") == [
        "InvalidStateError: Duplicate tool name",
        "InvalidStateError: Invalid tool name",
    ]
    pid = ext.frames(tag)[0]["pid"]
    r = ext.call(pid, "legacy_one")
    assert json.loads(r["value"]) == {"content": [{"type": "text", "text": "one"}]}
    assert ext.call(pid, "legacy_ui")["value"] == "ok from ui"

    page.evaluate(
        "navigator.modelContext.provideContext("
        "{tools: [{name: 'ctx_c', description: 'c', execute: () => 'c'}]})"
    )
    wait_for(lambda: names() == {"legacy_one", "legacy_two", "legacy_ui", "ctx_c"}, what="provideContext")
    page.evaluate("navigator.modelContext.unregisterTool('legacy_two')")
    wait_for(lambda: names() == {"legacy_one", "legacy_ui", "ctx_c"}, what="unregisterTool")
    # Unregistered names are free again.
    page.evaluate(
        "navigator.modelContext.registerTool({name: 'legacy_two', description: 'again', execute: () => 2})"
    )
    wait_for(lambda: "legacy_two" in names(), what="re-register")
    page.evaluate("navigator.modelContext.clearContext()")
    wait_for(lambda: names() == set(), what="clearContext")
    page.close()


# ---- declarative forms (polyfill; Chromium 156 does them natively) ----------------------------


def test_declarative_forms(poly: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _ = poly
    tag = unique("forms")
    page = _open(ctx, f"{origins[0]}/forms.html?{tag}")
    wait_for(lambda: {"search_flights", "subscribe", "go_away"} <= set(ext.tools(tag)), what="forms")
    tools = ext.tools(tag)
    assert tools["search_flights"]["source"] == "declarative"
    assert tools["search_flights"]["description"] == "Search flights"
    assert tools["search_flights"]["inputSchema"] == {
        "type": "object",
        "properties": {
            "from": {"type": "string", "pattern": "^(?:[A-Z]{3})$", "description": "From city"},
            "to": {"type": "string", "description": "Destination airport code"},
            "pax": {
                "type": "number",
                "minimum": 1,
                "maximum": 9,
                "multipleOf": 1,
                "description": "Passengers",
            },
            "nonstop": {"type": "boolean"},
            "cabin": {
                "type": "string",
                "anyOf": [
                    {"type": "string", "const": "eco", "title": "Economy"},
                    {"type": "string", "const": "biz", "title": "Business"},
                ],
                "enum": ["eco", "biz"],
            },
            "sort": {
                "type": "string",
                "anyOf": [
                    {"type": "string", "const": "price", "title": "Price"},
                    {"type": "string", "const": "time"},
                ],
                "enum": ["price", "time"],
            },
            "notes": {"type": "string"},
            "when": {
                "type": "string",
                "format": "date",
                "description": "Dates MUST be provided in 'YYYY-MM-DD' format.",
            },
        },
        "required": ["from"],
    }
    pid = ext.frames(tag)[0]["pid"]

    # No toolautosubmit: filled, then (as in Chromium) the call waits for the user's submit;
    # nobody submits here, so it times out.
    r = ext.call(
        pid,
        "search_flights",
        {"from": "PEK", "pax": 2, "nonstop": True, "cabin": "biz", "sort": "time", "when": "2026-12-01"},
        timeout_ms=500,
    )
    assert r["error"]["code"] == "timeout", r
    state = page.evaluate("""() => { const f = document.getElementById('f1');
        return [f.from.value, f.pax.value, f.nonstop.checked, f.cabin.value, f.sort.value,
                f.when.value]; }""")
    assert state == ["PEK", "2", True, "biz", "time", "2026-12-01"]
    events = page.evaluate("events")
    for name in ["from", "pax", "nonstop", "cabin", "sort"]:
        assert f"f1:input:{name}" in events and f"f1:change:{name}" in events

    r = ext.call(pid, "search_flights", {"cabin": "first"})
    assert r["error"]["code"] == "page_error" and "first" in r["error"]["message"]
    r = ext.call(pid, "search_flights", {"nope": 1})
    assert r["error"] == {
        "code": "page_error",
        "message": 'Input contains a parameter "nope" but there is no such parameter for the tool',
    }

    # toolautosubmit: requestSubmit(), the submit event is agentInvoked and respondWith answers.
    r = ext.call(pid, "subscribe", {"email": "a@b.c"})
    assert r["ok"] and json.loads(r["value"]) == {"subscribed": "a@b.c"}
    assert "f2:submit:agentInvoked=true" in page.evaluate("events")

    # The list follows the DOM: a new form, a renamed one, a removed one.
    page.evaluate("""() => { const f = document.createElement('form');
        f.setAttribute('toolname', 'late_form'); f.setAttribute('tooldescription', 'added later');
        f.innerHTML = '<input name="x">'; document.body.appendChild(f); }""")
    wait_for(lambda: "late_form" in ext.tools(tag), what="added form")
    page.evaluate("document.querySelector('[toolname=late_form]').innerHTML += '<input name=y required>'")
    wait_for(lambda: ext.tools(tag)["late_form"]["inputSchema"]["required"] == ["y"], what="new control")
    page.evaluate("document.querySelector('[toolname=late_form]').setAttribute('toolname', 'renamed_form')")
    wait_for(lambda: "renamed_form" in ext.tools(tag) and "late_form" not in ext.tools(tag), what="rename")
    page.evaluate("document.querySelector('[toolname=renamed_form]').remove()")
    wait_for(lambda: "renamed_form" not in ext.tools(tag), what="removed form")

    # Autosubmit that navigates: the answer still gets out before the page goes.
    r = ext.call(pid, "go_away", {"q": "hello"})
    assert r["ok"] and r["value"] == "Filled q and submitted the form."
    page.wait_for_url("**/forms_done.html?q=hello")
    page.close()


# ---- change detection, lazy connection, reconnection, bfcache --------------------------------


def test_sends_only_real_changes(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _native = any_mode
    tag = unique("changes")
    page = _open(ctx, f"{origins[0]}/empty.html?{tag}")
    time.sleep(0.5)
    assert not [e for e in ext.log() if e["ev"] == "connect" and tag in e["url"]], (
        "a frame without tools must not open a port"
    )
    page.evaluate("""() => { window.ac = new AbortController();
        document.modelContext.registerTool({name: 'hot', description: 'v1', execute: () => 1},
                                           {signal: ac.signal}); }""")
    wait_for(lambda: "hot" in ext.tools(tag), what="first tool")
    n = len(tools_messages(ext, tag))
    # Hot reload: the same tool unregistered and registered again.
    page.evaluate("""() => { ac.abort(); window.ac = new AbortController();
        return document.modelContext.registerTool({name: 'hot', description: 'v1', execute: () => 2},
                                                  {signal: ac.signal}); }""")
    time.sleep(0.5)
    assert len(tools_messages(ext, tag)) == n
    assert ext.call(ext.frames(tag)[0]["pid"], "hot")["value"] == "2"
    page.evaluate("""() => document.modelContext.registerTool({name: 'hot', description: 'v2',
        execute: () => 3}).catch((e) => window.dupError = e.name)""")
    wait_for(lambda: page.evaluate("window.dupError") == "InvalidStateError", what="duplicate")
    page.evaluate("ac.abort()")
    wait_for(lambda: ext.frames(tag) and ext.frames(tag)[0]["tools"] == [], what="empty list sent")
    page.close()


def test_reconnects_after_port_loss(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _native = any_mode
    tag = unique("reconnect")
    page = _open(ctx, f"{origins[0]}/tools.html?{tag}")
    old = tools_frame(ext, tag)["pid"]
    time.sleep(0.2)
    ext.kick(old)  # what a service-worker restart looks like from the page
    frame = wait_for(lambda: [f for f in ext.frames(tag) if f["pid"] != old], what="new port")[0]
    assert len(frame["tools"]) == 14  # the list is sent again, unchanged as it is
    assert ext.call(frame["pid"], "add", {"a": 2, "b": 2})["value"] == '{"sum":4}'
    page.close()


def test_bfcache_restore(any_mode: Mode, origins: tuple[str, str]) -> None:
    """Chromium closes extension ports of a page entering the bfcache: the list must come back."""
    ctx, ext, _native = any_mode
    tag = unique("bfcache")
    page = _open(ctx, f"{origins[0]}/tools.html?{tag}")
    page.evaluate("addEventListener('pageshow', (e) => { if (e.persisted) events.push('restored'); })")
    first = tools_frame(ext, tag)["pid"]
    page.goto(f"{origins[0]}/empty.html?away-{tag}")
    wait_for(lambda: not [f for f in ext.frames(tag) if f["pid"] == first], what="port closed")
    page.go_back(wait_until="commit")  # a restore fires no load event
    frames = wait_for(lambda: [f for f in ext.frames(tag) if f["pid"] != first], what="port after back")
    assert "restored" in page.evaluate("events"), "expected a back/forward cache restore"
    assert len(frames) == 1 and len(frames[0]["tools"]) == 14
    assert ext.call(frames[0]["pid"], "add", {"a": 1, "b": 1})["value"] == '{"sum":2}'
    connects = [e for e in ext.log() if e["ev"] == "connect" and tag in e["url"]]
    assert len(connects) == 2  # no churn: one port before, one after
    page.close()


# ---- the page is untrusted --------------------------------------------------------------------


def test_forged_page_messages_are_validated(poly: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _ = poly
    tag = unique("forged")
    page = _open(ctx, f"{origins[0]}/empty.html?{tag}")
    page.evaluate(r"""() => {
      const tools = [
        { name: 'ok_tool', description: 'd'.repeat(20000), title: 't'.repeat(1000), source: 'skill',
          inputSchema: { type: 'object' }, annotations: { readOnlyHint: true, x: { nested: 1 }, s: 'str' } },
        { name: 'ok_tool', description: 'duplicate' },
        { name: 'bad name', description: 'x' },
        { name: 'n'.repeat(129), description: 'x' },
        { name: 'huge_schema', description: 'x', inputSchema: { big: 'x'.repeat(70000) } },
        { name: 'array_schema', description: 'x', inputSchema: [1, 2] },
        { name: 42 },
        null,
      ];
      let deep = {};
      for (let i = 0; i < 500; i++) deep = { a: deep };
      tools.push({ name: 'deep_schema', description: 'x', inputSchema: deep });
      for (let i = 0; i < 600; i++) tools.push({ name: 'many_' + i, description: '' });
      const detail = JSON.stringify({ type: 'tools', tools });
      dispatchEvent(new CustomEvent('webmcp-sidecar:page', { detail }));
      dispatchEvent(new CustomEvent('webmcp-sidecar:page', { detail: { not: 'a string' } }));
      dispatchEvent(new CustomEvent('webmcp-sidecar:page', { detail: '{not json' }));
    }""")
    frame = ext.wait_frames(tag, lambda f: len(f[0]["tools"]) > 0)[0]
    tools = frame["tools"]
    assert len(tools) == 256  # the same limit as lib/limits.js MAX_TOOLS_PER_FRAME
    first = tools[0]
    assert first["name"] == "ok_tool" and first["source"] == "polyfill"
    assert len(first["description"]) == 8192 and len(first["title"]) == 256
    assert first["annotations"] == {"readOnlyHint": True, "s": "str"}
    by = {t["name"]: t for t in tools}
    assert "inputSchema" not in by["array_schema"]
    # A schema too big or too deep drops the tool: it would be another tool without it.
    assert not {"bad name", "n" * 129, "huge_schema", "deep_schema"} & set(by)
    assert "many_253" in by and "many_254" not in by  # ok_tool, array_schema, then 254 of these
    # ...and the frame says what it left out, for the Inspector and the host.
    assert frame["dropped"]["count"] == {"name": 4, "big": 1, "deep": 1, "count": 346}
    assert frame["dropped"]["some"][:4] == [
        {"name": "bad name", "why": "name"},
        {"name": "n" * 128, "why": "name"},
        {"name": "huge_schema", "why": "big"},
        {"name": "", "why": "name"},
    ]
    page.close()


def test_deep_schemas_drop_the_tool_in_both_modes(any_mode: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _native = any_mode
    tag = unique("deep")
    page = _open(ctx, f"{origins[0]}/empty.html?{tag}")
    refused = page.evaluate("""async () => {
      const mc = document.modelContext;
      let deep = { type: 'string' };
      for (let i = 0; i < 500; i++) deep = { type: 'object', properties: { a: deep } };
      let refused = null;
      await mc.registerTool({ name: 'deep', description: 'd', inputSchema: deep, execute: () => 1 })
        .catch((e) => { refused = String(e); });
      await mc.registerTool({ name: 'fine', description: 'f', inputSchema: { type: 'object' },
                              execute: () => 'fine' });
      return refused;
    }""")
    frame = tools_frame(ext, tag, "fine")
    assert [t["name"] for t in frame["tools"]] == ["fine"]
    if refused is None:  # Chromium may refuse such a schema itself; when not, we drop it
        assert frame["dropped"] == {"count": {"deep": 1}, "some": [{"name": "deep", "why": "deep"}]}
    assert ext.call(frame["pid"], "fine")["value"] == "fine"
    page.close()


def test_a_prototype_js_page_keeps_its_tools(poly: Mode, origins: tuple[str, str]) -> None:
    """Prototype.js's Array.prototype.toJSON returns a string: the polyfill's own messages,
    schemas, arguments and results must not go through it."""
    ctx, ext, _ = poly
    tag = unique("prototype")
    page = _open(ctx, f"{origins[0]}/empty.html?{tag}")
    seen = page.evaluate("""async () => {
      Array.prototype.toJSON = function () {
        return '[' + this.map((x) => JSON.stringify(x)).join(', ') + ']';
      };
      const push = Array.prototype.push;
      Array.prototype.push = function (...a) { return push.apply(this, a); };
      const mc = document.modelContext;
      await mc.registerTool({ name: 'count', description: 'Counts items',
        inputSchema: { type: 'object', properties: { xs: { type: 'array' } }, required: ['xs'] },
        execute: ({ xs }) => (Array.isArray(xs) ? { n: xs.length, xs } : 'xs is a ' + typeof xs) });
      const [t] = await mc.getTools();
      return t.inputSchema.required;
    }""")
    assert seen == ["xs"]
    frame = tools_frame(ext, tag, "count")
    assert frame["tools"][0]["inputSchema"]["required"] == ["xs"]
    r = ext.call(frame["pid"], "count", {"xs": [1, 2, 3]})
    assert json.loads(r["value"]) == {"n": 3, "xs": [1, 2, 3]}
    page.close()


def test_page_sees_only_its_own_call(poly: Mode, origins: tuple[str, str]) -> None:
    ctx, ext, _ = poly
    tag = unique("privacy")
    page = _open(ctx, f"{origins[0]}/tools.html?{tag}")
    page.evaluate("""() => { window.seen = [];
        addEventListener('webmcp-sidecar:ext', (e) => seen.push(e.detail)); }""")
    pid = tools_frame(ext, tag)["pid"]
    ext.call(pid, "add", {"a": 1, "b": 2}, call_id="host-conn-7:secret-id-123")
    seen = [json.loads(s) for s in page.evaluate("seen")]
    calls = [m for m in seen if m["type"] == "call"]
    assert calls == [{"type": "call", "id": calls[0]["id"], "name": "add", "args": {"a": 1, "b": 2}}]
    assert "secret" not in calls[0]["id"]
    page.close()


def test_native_wrapper_is_thin(nat: Mode, origins: tuple[str, str]) -> None:
    """The registerTool wrapper keeps Chromium's name, length, promises and rejections."""
    ctx = nat[0]
    if True:
        page = _open(ctx, f"{origins[0]}/empty.html?wrapper")
        out = page.evaluate("""async () => {
          const mc = document.modelContext, rt = mc.registerTool;
          const settle = (p) => p.then((v) => 'ok:' + v, (e) => e.name + ': ' + e.message);
          const p = rt.call(mc, { name: 'w', description: 'd', execute: () => { throw new Error('why'); } });
          const ts = await mc.getTools();
          return { name: rt.name, length: rt.length, promise: p instanceof Promise,
                   same: Object.getPrototypeOf(mc).registerTool === rt, resolved: await settle(p),
                   dup: await settle(mc.registerTool({ name: 'w', description: 'd', execute() {} })),
                   invalid: await settle(mc.registerTool({ name: 'a b', description: 'd', execute() {} })),
                   missing: await settle(mc.registerTool({ name: 'm', execute() {} })),
                   result: await settle(mc.executeTool(ts.find((t) => t.name === 'w'), {})),
                   legacy: typeof navigator.modelContext.provideContext };
        }""")
        page.close()
    assert out["name"] == "registerTool" and out["length"] == 1
    assert out["promise"] and out["same"] and out["resolved"] == "ok:undefined"
    assert out["dup"] == "InvalidStateError: Duplicate tool name"
    assert out["invalid"] == "InvalidStateError: Invalid tool name"
    assert out["missing"].startswith("TypeError")
    # The page's executeTool rejects exactly as Chromium's does without us.
    assert out["result"].startswith("UnknownError: Tool was executed but the invocation failed")
    assert out["legacy"] == "function"
