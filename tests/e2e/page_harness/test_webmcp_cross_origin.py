"""WebMCP across origins as the page sees it: the polyfill against Chromium 156's own.

The same three browsers as test_webmcp_conformance.py (`native` without us, `native_ext` with our
content scripts, `polyfill` without the flag), a top document on one origin of 127.0.0.1 and
iframes from another port (cross-origin, same site, secure as loopback). What is checked:
a child's tool reaches the parent's `getTools({fromOrigins})` only when the iframe has
`allow="tools"` and the tool's `exposedTo` names the parent's origin; it runs in its frame, fails
and aborts as Chromium's own, and a call pending in a frame that goes away rejects. The other way
round, a parent's tool exposed to a child's origin. One registry per page: same-origin documents
share their cross-origin frames' exposed tools, a frame of the top's origin under another origin is
one of the top's, and a grandchild given the permission down the chain is the top's relative.
Order is checked, never time.
A frame without the permission gets NotAllowedError from the API in every mode (the polyfill's
frame asks its parent, test_webmcp_policy.py); what the polyfill still cannot know is in
docs/WEBMCP_WPT.md ("Polyfill vs Chromium").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import MARKS, serve

pytestmark = MARKS

MODES = ["native", "native_ext", "polyfill"]


SETUP = r"""async ([other, frames]) => {
  window.log = [];
  for (const t of ['toolchange', 'toolactivated', 'toolcancel']) {
    document.modelContext.addEventListener(t, (e) => log.push(t + (e.toolName ? ':' + e.toolName : '')));
  }
  for (const [id, allow] of frames) {
    const f = document.createElement('iframe');
    if (allow) f.allow = allow;
    f.id = id;
    f.src = other + '/conformance/blank.html?' + id;
    const loaded = new Promise((r) => { f.onload = r; });
    document.body.appendChild(f);
    await loaded;
  }
}"""

# Run in a frame: its events logged in `log`, tools registered by kind, each with its own signal.
FRAME_TOOLS = r"""async ([tools]) => {
  if (!window.log) {
    window.log = [];
    window.signals = {};
    for (const t of ['toolchange', 'toolactivated', 'toolcancel']) {
      document.modelContext.addEventListener(t, (e) => log.push(t + (e.toolName ? ':' + e.toolName : '')));
    }
  }
  const kinds = {
    echo: (i) => 'ran in ' + location.port + ' with ' + JSON.stringify(i),
    fail: () => { throw new RangeError('boom'); },
    hang: (i, o) => new Promise(() => {
      o.signal.addEventListener('abort', () => log.push('signal:' + o.signal.reason.name));
    }),
  };
  const out = [];
  for (const [name, kind, exposedTo] of tools) {
    const ac = new AbortController();
    signals[name] = ac;
    const options = { signal: ac.signal };
    if (exposedTo) options.exposedTo = exposedTo;
    out.push(await settle(document.modelContext.registerTool(
      { name, description: 'd ' + name, inputSchema: { type: 'object' }, execute: kinds[kind] }, options)));
  }
  return out;
}"""

# In the top document: waits until getTools({fromOrigins}) lists `name` (or no longer does).
WAIT_LISTED = r"""async ([origins, name, present]) => {
  const mc = document.modelContext;
  const has = async () => (await mc.getTools({ fromOrigins: origins })).some((t) => t.name === name);
  const change = () => new Promise((r) => mc.addEventListener('toolchange', r, { once: true }));
  while ((await has()) !== present) await change();
  return true;
}"""


# A frame's log without its own toolchange events (each of its registrations fires one).
NOT_CHANGES = "() => log.splice(0).filter((x) => x !== 'toolchange')"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(mode: str, contexts: dict[str, Any], origins: tuple[str, str]) -> Iterator[Any]:
    a, _ = origins
    pg = contexts[mode].new_page()
    pg.goto(f"{a}/conformance/blank.html")
    yield pg
    pg.close()


def frame(page: Any, tag: str) -> Any:
    return next(f for f in page.frames if f.url.endswith("?" + tag))


def test_child_tool_exposed_to_the_parent(page: Any, mode: str, origins: tuple[str, str]) -> None:
    a, b = origins
    page.evaluate(SETUP, [b, [["allowed", "tools"], ["plain", None]]])
    page.evaluate(
        "() => document.modelContext.registerTool({ name: 'top_tool', description: 'd', execute: () => 1 })"
    )
    child, plain = frame(page, "allowed"), frame(page, "plain")
    page.evaluate("() => log.splice(0)")
    # Not exposed to the parent: no toolchange there, nothing listed.
    hidden = child.evaluate(
        FRAME_TOOLS, [[["x_hidden", "echo", None], ["x_elsewhere", "echo", ["https://elsewhere.example"]]]]
    )
    assert hidden == ["ok:undefined", "ok:undefined"]
    # An iframe without allow="tools": the registration is refused (test_webmcp_policy.py).
    plain.evaluate(FRAME_TOOLS, [[["p_exposed", "echo", [a]]]])
    assert child.evaluate(FRAME_TOOLS, [[["x_exposed", "echo", [a]]]]) == ["ok:undefined"]
    page.evaluate(WAIT_LISTED, [[b], "x_exposed", True])
    assert page.evaluate("() => log.splice(0)") == ["toolchange"]
    child.evaluate(FRAME_TOOLS, [[["x_fail", "fail", [a]], ["x_hang", "hang", [a]]]])
    page.evaluate(WAIT_LISTED, [[b], "x_hang", True])
    page.evaluate(WAIT_LISTED, [[b], "x_fail", True])

    out = page.evaluate(
        r"""async ([other]) => {
      const mc = document.modelContext, out = {};
      const win = document.getElementById('allowed').contentWindow;
      const where = (w) => (w === window ? 'top' : w === win ? 'allowed' : '?');
      out.plain = (await mc.getTools()).map((t) => t.name);
      const tools = await mc.getTools({ fromOrigins: [other] });
      const from = (o) => (o === other ? 'other' : o === location.origin ? 'own' : o);
      out.listed = tools.map((t) => [t.name, from(t.origin), where(t.window), Object.keys(t).join()]);
      const x = tools.find((t) => t.name === 'x_exposed');
      out.run = await settle(mc.executeTool(x, { a: 1 }));
      const bare = { name: x.name, description: '', origin: x.origin, window: x.window };
      out.arrayInput = await settle(mc.executeTool(bare, [5]));
      out.fail = await settle(mc.executeTool(tools.find((t) => t.name === 'x_fail'), {}));
      out.wrong = [
        await settle(mc.executeTool({ ...x, name: 'x_hidden' })),
        await settle(mc.executeTool({ ...x, name: 'x_elsewhere' })),
        await settle(mc.executeTool({ ...x, window: document.getElementById('plain').contentWindow })),
        await settle(mc.executeTool({ ...x, origin: location.origin })),
        await settle(mc.executeTool({ ...x, window })),
      ];
      const signal = AbortSignal.abort(new RangeError('no'));
      out.preAborted = await settle(mc.executeTool(x, {}, { signal }));
      return out;
    }""",
        [b],
    )
    assert out["plain"] == ["top_tool"]  # another origin's tools only when asked for
    keys = "description,inputSchema,name,origin,title,window"
    assert out["listed"] == [
        ["top_tool", "own", "top", "description,name,origin,title,window"],
        ["x_exposed", "other", "allowed", keys],
        ["x_fail", "other", "allowed", keys],
        ["x_hang", "other", "allowed", keys],
    ]
    port = b.rsplit(":", 1)[1]
    assert out["run"] == f'ok:ran in {port} with {{"a":1}}'
    assert out["arrayInput"] == f"ok:ran in {port} with [5]"
    assert out["fail"] == (
        "UnknownError: Tool was executed but the invocation failed. "
        "For example, the script function threw an error"
    )
    unknown = "UnknownError: The operation failed for an unknown transient reason (e.g. out of memory)."
    assert out["wrong"] == [unknown] * 5
    assert out["preAborted"] == "RangeError: no"
    # The tool ran in its frame: that document got toolactivated, the caller's did not.
    assert child.evaluate(NOT_CHANGES) == [
        "toolactivated:x_exposed",
        "toolactivated:x_exposed",
        "toolactivated:x_fail",
    ]
    assert page.evaluate(NOT_CHANGES) == []

    # The caller's abort rejects with its reason; then the tool's signal aborts and toolcancel fires there.
    page.evaluate(
        r"""async ([other]) => {
      const tools = await document.modelContext.getTools({ fromOrigins: [other] });
      const t = tools.find((t) => t.name === 'x_hang');
      window.ac = new AbortController();
      window.call = settle(document.modelContext.executeTool(t, {}, { signal: ac.signal }));
    }""",
        [b],
    )
    child.wait_for_function("() => log.includes('toolactivated:x_hang')")
    assert (
        page.evaluate("async () => { ac.abort(new RangeError('stop')); return await call; }")
        == "RangeError: stop"
    )
    child.wait_for_function("() => log.includes('toolcancel:x_hang')")
    assert child.evaluate(NOT_CHANGES) == ["toolactivated:x_hang", "signal:AbortError", "toolcancel:x_hang"]

    # Unregistered in the frame: a toolchange in the parent, gone from its list.
    child.evaluate("() => signals.x_exposed.abort()")
    page.evaluate(WAIT_LISTED, [[b], "x_exposed", False])
    assert page.evaluate("() => log.splice(0)") == ["toolchange"]

    # A call pending in a frame that goes away rejects; the frame's tools leave the list.
    page.evaluate(
        r"""async ([other]) => {
      const tools = await document.modelContext.getTools({ fromOrigins: [other] });
      const t = tools.find((t) => t.name === 'x_hang');
      window.call = settle(document.modelContext.executeTool(t, {}));
    }""",
        [b],
    )
    child.wait_for_function("() => log.includes('toolactivated:x_hang')")
    out = page.evaluate(
        r"""async ([other]) => {
      document.getElementById('allowed').remove();
      const r = await call;
      return [r, (await document.modelContext.getTools({ fromOrigins: [other] })).map((t) => t.name)];
    }""",
        [b],
    )
    assert out == [unknown, ["top_tool"]]


def test_parent_tool_exposed_to_the_child(page: Any, origins: tuple[str, str]) -> None:
    a, b = origins
    page.evaluate(SETUP, [b, [["allowed", "tools"]]])
    child = frame(page, "allowed")
    child.evaluate(FRAME_TOOLS, [[]])  # the child's event log
    page.evaluate(
        r"""async ([other]) => {
      window.signals = {};
      for (const [name, exposedTo] of [['p_private', undefined], ['p_shared', [other]]]) {
        signals[name] = new AbortController();
        await document.modelContext.registerTool({ name, description: 'd', execute: () => 'from the parent' },
                                                 { exposedTo, signal: signals[name].signal });
      }
    }""",
        [b],
    )
    child.evaluate(WAIT_LISTED, [[a], "p_shared", True])
    out = child.evaluate(
        r"""async ([top]) => {
      const mc = document.modelContext;
      const tools = await mc.getTools({ fromOrigins: [top] });
      const t = tools.find((t) => t.name === 'p_shared');
      return { plain: (await mc.getTools()).map((t) => t.name),
               listed: tools.map((t) => [t.name, t.origin === top, t.window === parent]),
               run: await settle(mc.executeTool(t, {})) };
    }""",
        [a],
    )
    assert out == {"plain": [], "listed": [["p_shared", True, True]], "run": "ok:from the parent"}
    page.wait_for_function("() => log.includes('toolactivated:p_shared')")
    assert "toolchange" in child.evaluate("() => log")
    page.evaluate("() => signals.p_shared.abort()")
    child.evaluate(WAIT_LISTED, [[a], "p_shared", False])


# In a frame of a third origin: forges our channel's messages (page/main/frame-remote.js) to
# its parent and its sibling, with the parent's document id read from what the parent posted it.
FORGE = r"""async ([calls]) => {
  const KEY = 'webmcp-sidecar:frames';
  const heard = [];
  addEventListener('message', (e) => {
    if (e.data && typeof e.data[KEY] === 'string') heard.push(JSON.parse(e.data[KEY]));
  });
  const say = (win, m) => win.postMessage({ [KEY]: JSON.stringify({ from: 'forger', ...m }) }, '*');
  say(parent, { t: 'list', ask: true, tools: '[]' });  // the parent answers: its id
  while (!heard.some((m) => m.t === 'list')) await new Promise((r) => setTimeout(r, 20));
  const top = heard.find((m) => m.t === 'list').from;
  const sibling = parent.frames[0];
  for (const [name, to] of calls) {
    say(parent, { t: 'call', to: top, id: 'c-' + name, name, input: '{}' });
    say(sibling, { t: 'call', to: '', id: 's-' + name, name, input: '{}' });
    const planted = [{ name: 'planted', title: '', description: 'd' }];
    say(sibling, { t: 'list', ask: true, tools: JSON.stringify(planted) });
  }
  const results = () => heard.filter((m) => m.t === 'result');
  while (results().length < calls.length) await new Promise((r) => setTimeout(r, 20));
  return results().map((m) => [m.id, m.ok, m.name]);
}"""


def test_a_third_origin_cannot_reach_in(contexts: dict[str, Any], origins: tuple[str, str]) -> None:
    """Polyfill only: the channel is ours. A frame of a third origin gets nothing of the tools
    exposed to another origin, cannot run them, and cannot plant tools in a sibling."""
    a, b = origins
    with serve() as c:
        page = contexts["polyfill"].new_page()
        try:
            page.goto(f"{a}/conformance/blank.html")
            page.evaluate(SETUP, [b, [["allowed", "tools"]]])
            page.evaluate(SETUP, [c, [["third", "tools *"]]])
            child, third = frame(page, "allowed"), frame(page, "third")
            child.evaluate(FRAME_TOOLS, [[["x_exposed", "echo", [a]]]])
            page.evaluate(WAIT_LISTED, [[b], "x_exposed", True])
            page.evaluate(
                r"""async ([other]) => {
              const tool = { name: 'for_b', description: 'd', execute: () => 'b only' };
              await document.modelContext.registerTool(tool, { exposedTo: [other] });
            }""",
                [b],
            )
            out = third.evaluate(FORGE, [[["for_b", ""], ["x_exposed", ""]]])
            unknown = "UnknownError"
            assert sorted(map(tuple, out)) == [("c-for_b", False, unknown), ("c-x_exposed", False, unknown)]
            # Nothing ran anywhere; the sibling lists nothing planted.
            assert page.evaluate(NOT_CHANGES) == []
            assert child.evaluate(NOT_CHANGES) == []
            listed = child.evaluate(
                "async ([o]) => (await document.modelContext.getTools({ fromOrigins: [o] })).map((t) => t.name)",  # noqa: E501
                [c],
            )
            assert listed == ["x_exposed"]  # its own only
        finally:
            page.close()


# Run in a document: adds an iframe `id` of `origin` (with `allow`) and waits for it to load.
ADD_FRAME = r"""async ([id, allow, origin]) => {
  const f = document.createElement('iframe');
  if (allow) f.allow = allow;
  f.id = id;
  f.src = origin + '/conformance/blank.html?' + id;
  const loaded = new Promise((r) => { f.onload = r; });
  document.body.appendChild(f);
  await loaded;
}"""

# Run in a document: getTools() (or with fromOrigins) as `name@port`, polled until `name` is
# listed (a bounded number of times: false if it never is). No time is asserted.
POLL_LISTED = r"""async ([origins, name]) => {
  const options = origins ? { fromOrigins: origins } : undefined;
  const list = async () => (await document.modelContext.getTools(options))
    .map((t) => t.name + '@' + t.origin.split(':').pop() + (t.window === window ? ':own' : ''));
  for (let i = 0; i < 500; i++) {
    const l = await list();
    if (l.some((x) => x.startsWith(name + '@'))) return l;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}"""

RUN_LISTED = r"""async ([origins, name]) => {
  const tools = await document.modelContext.getTools({ fromOrigins: origins });
  return settle(document.modelContext.executeTool(tools.find((t) => t.name === name), {}));
}"""


def port_of(origin: str) -> str:
    return origin.rsplit(":", 1)[1]


def test_same_origin_documents_share_their_cross_origin_frames(
    page: Any, mode: str, origins: tuple[str, str]
) -> None:
    """One registry per page (measured in Chromium 156): a document lists and runs the tools
    that cross-origin frames exposed to its origin also when they are its same-origin
    relatives' frames (a sibling's child, its parent's child), not its own."""
    a, b = origins
    pb = port_of(b)
    page.evaluate(ADD_FRAME, ["a2", None, a])
    page.evaluate(ADD_FRAME, ["b1", "tools", b])
    a2 = frame(page, "a2")
    a2.evaluate(ADD_FRAME, ["b2", "tools", b])
    b1, b2 = frame(page, "b1"), frame(page, "b2")
    assert b1.evaluate(FRAME_TOOLS, [[["s_b1", "echo", [a]]]]) == ["ok:undefined"]
    assert b2.evaluate(FRAME_TOOLS, [[["s_b2", "echo", [a]]]]) == ["ok:undefined"]
    # Each first where it is a direct relative, then in the other document of the origin.
    assert page.evaluate(POLL_LISTED, [[b], "s_b1"])
    assert a2.evaluate(POLL_LISTED, [[b], "s_b2"])
    both = [f"s_b1@{pb}", f"s_b2@{pb}"]
    assert page.evaluate(POLL_LISTED, [[b], "s_b2"]) == both
    assert a2.evaluate(POLL_LISTED, [[b], "s_b1"]) == both
    assert page.evaluate(POLL_LISTED, [None, "s_b1"]) is False  # plain getTools(): own origin only
    assert a2.evaluate(RUN_LISTED, [[b], "s_b1"]) == f"ok:ran in {pb} with {{}}"
    assert page.evaluate(RUN_LISTED, [[b], "s_b2"]) == f"ok:ran in {pb} with {{}}"
    assert b1.evaluate(NOT_CHANGES) == ["toolactivated:s_b1"]
    assert b2.evaluate(NOT_CHANGES) == ["toolactivated:s_b2"]


def test_a_frame_of_the_top_origin_under_another_origin(
    page: Any, mode: str, origins: tuple[str, str]
) -> None:
    """A document of the top's origin inside a cross-origin frame is in the same registry:
    getTools() in either lists the other's tools, executeTool runs them there; the frame
    between sees only what was exposed to it."""
    a, b = origins
    pa = port_of(a)
    page.evaluate(ADD_FRAME, ["b1", "tools", b])
    b1 = frame(page, "b1")
    b1.evaluate(ADD_FRAME, ["a3", "tools", a])
    a3 = frame(page, "a3")
    page.evaluate(
        "() => document.modelContext.registerTool({ name: 'x_top', description: 'd', execute: () => 'top' })"
    )
    assert (
        a3.evaluate(FRAME_TOOLS, [[["x_a3", "echo", None], ["x_a3b", "echo", [b]]]]) == ["ok:undefined"] * 2
    )
    assert page.evaluate(POLL_LISTED, [None, "x_a3"]) == [f"x_a3@{pa}", f"x_a3b@{pa}", f"x_top@{pa}:own"]
    assert a3.evaluate(POLL_LISTED, [None, "x_top"]) == [f"x_a3@{pa}:own", f"x_a3b@{pa}:own", f"x_top@{pa}"]
    assert b1.evaluate(POLL_LISTED, [[a], "x_a3b"]) == [f"x_a3b@{pa}"]
    assert page.evaluate(RUN_LISTED, [[], "x_a3"]) == f"ok:ran in {pa} with {{}}"
    assert a3.evaluate(NOT_CHANGES) == ["toolactivated:x_a3"]


def test_a_grandchild_frame_with_the_permission_delegated(
    page: Any, mode: str, origins: tuple[str, str]
) -> None:
    """A third origin's frame inside the allowed cross-origin frame, given `tools` again: its
    tools exposed to the top origin are listed in the top document and run there (Chromium 156
    keeps one registry per page), those exposed to the frame between in that one; the top's
    tools exposed to it reach it. Not given on at either level: the registration is refused
    (the polyfill's frame asks its parent, frame-remote.js `policy?`)."""
    a, b = origins
    with serve() as c:
        pc = port_of(c)
        page.evaluate(ADD_FRAME, ["b1", "tools", b])
        page.evaluate(ADD_FRAME, ["b2", None, b])
        b1, b2 = frame(page, "b1"), frame(page, "b2")
        b1.evaluate(ADD_FRAME, ["c1", "tools", c])
        b1.evaluate(ADD_FRAME, ["c2", None, c])
        b2.evaluate(ADD_FRAME, ["c3", "tools", c])
        c1, c2, c3 = frame(page, "c1"), frame(page, "c2"), frame(page, "c3")
        denied = [
            frame.evaluate(FRAME_TOOLS, [[[name, "echo", [a]]]])
            for frame, name in ((c2, "g_c2"), (c3, "g_c3"))
        ]
        refused = 'NotAllowedError: Access to the feature "tools" is disallowed by permissions policy.'
        assert denied == [[refused]] * 2
        tools = [["g_top", "echo", [a]], ["g_mid", "echo", [b]]]
        assert c1.evaluate(FRAME_TOOLS, [tools]) == ["ok:undefined"] * 2
        assert b1.evaluate(POLL_LISTED, [[c], "g_mid"]) == [f"g_mid@{pc}"]
        assert b1.evaluate(RUN_LISTED, [[c], "g_mid"]) == f"ok:ran in {pc} with {{}}"
        assert page.evaluate(POLL_LISTED, [[c], "g_top"]) == [f"g_top@{pc}"]
        assert page.evaluate(RUN_LISTED, [[c], "g_top"]) == f"ok:ran in {pc} with {{}}"
        assert c1.evaluate(NOT_CHANGES) == ["toolactivated:g_mid", "toolactivated:g_top"]
        page.evaluate(
            r"""async ([third]) => {
          const tool = { name: 'p_for_c', description: 'd', execute: () => 'from the top' };
          await document.modelContext.registerTool(tool, { exposedTo: [third] });
        }""",
            [c],
        )
        listed = c1.evaluate(POLL_LISTED, [[a], "p_for_c"])
        assert [x for x in listed if not x.endswith(f"@{pc}") and not x.endswith(":own")] == [
            f"p_for_c@{port_of(a)}"
        ]
        assert c1.evaluate(RUN_LISTED, [[a], "p_for_c"]) == "ok:from the top"
