"""WebMCP as the page sees it: the polyfill against Chromium 156's own implementation.

Every test runs one scenario in three browsers and holds each to the same expectation:
- `native`: Chromium with `--enable-features=WebMCP` and no extension (the reference);
- `native_ext`: the same with our content scripts (our wrapper must change nothing);
- `polyfill`: Chromium without the flag, with our content scripts (the polyfill must match).
Order is checked (what happens before what), never how long anything takes. Where the polyfill
cannot match, docs/WEBMCP_WPT.md ("Polyfill vs Chromium") says so and no test asks for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import MARKS, serve

pytestmark = MARKS

MODES = ["native", "native_ext", "polyfill"]


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    with serve() as a:
        yield a


@pytest.fixture(params=MODES)
def page(request: pytest.FixtureRequest, contexts: dict[str, Any], origin: str) -> Iterator[Any]:
    pg = contexts[request.param].new_page()
    pg.goto(f"{origin}/conformance/blank.html")
    # The polyfill answers `document.modelContext` as Chromium does; so must every mode.
    assert pg.evaluate("() => !!document.modelContext")
    yield pg
    pg.close()


def test_interfaces(page: Any) -> None:
    out = page.evaluate("""() => {
      const mc = document.modelContext;
      let ctor;
      try { new ModelContext(); ctor = 'constructed'; } catch (e) { ctor = e.name + ': ' + e.message; }
      const a = new ToolActivatedEvent('toolactivated', { toolName: 'n' });
      const c = new ToolCancelEvent('toolcancel', { toolName: 7 });
      return {
        types: [typeof ModelContext, typeof ToolActivatedEvent, typeof ToolCancelEvent],
        mc: [mc instanceof ModelContext, mc instanceof EventTarget, Object.prototype.toString.call(mc),
             document.modelContext === mc, 'modelContext' in Document.prototype],
        ctor,
        events: [a.toolName, a instanceof Event, a.bubbles, c.toolName, c instanceof ToolCancelEvent,
                 new ToolActivatedEvent('x').toolName, 'toolName' in ToolActivatedEvent.prototype],
        handlers: [mc.ontoolchange, mc.ontoolactivated, mc.ontoolcancel],
        enumerable: Object.keys(window).filter((k) => /ModelContext|Tool.*Event/.test(k)),
      };
    }""")
    assert out == {
        "types": ["function", "function", "function"],
        "mc": [True, True, "[object ModelContext]", True, True],
        "ctor": "TypeError: Failed to construct 'ModelContext': Illegal constructor",
        "events": ["n", True, False, "7", True, "", True],
        "handlers": [None, None, None],
        "enumerable": [],
    }


REGISTER = r"""async () => {
  const mc = document.modelContext, out = {}, log = [];
  const reg = (tool, opts) => settle(mc.registerTool(tool, opts));
  mc.addEventListener('toolchange', () => log.push('toolchange'));
  const p = mc.registerTool({ name: 'one', description: 'd', execute() {} });
  // A second registration of the name fails at once: the first is registered already.
  const dup = mc.registerTool({ name: 'one', description: 'd', execute() {} });
  dup.catch(() => log.push('duplicate rejected'));
  p.then(() => log.push('registered'));
  queueMicrotask(() => log.push('microtask'));
  await p;
  out.order = log.splice(0);
  out.dup = await settle(dup);
  out.names = await Promise.all(['', 'a b', 'é', 'n'.repeat(129), 'n'.repeat(128), 'A-z_0.9']
    .map((name) => reg({ name, description: 'd', execute() {} }).then((r) => r.slice(0, 40))));
  out.types = [
    await reg(5), await reg({ name: 'x', execute() {} }), await reg({ name: 'x', description: 'd' }),
    await reg({ name: 'x', description: 'd', execute: 'no' }),
    await reg({ description: 'd', execute() {} }),
    await reg({ name: 'x', description: 'd', execute() {}, inputSchema: 5 }),
    await reg({ name: 'x2', description: 'd', execute() {} }, { signal: 'no' }),
  ];
  let threw = false;
  try { mc.registerTool(5).catch(() => {}); } catch { threw = true; }
  out.threw = threw;
  out.preAborted = await reg({ name: 'pre', description: 'd', execute() {} },
                             { signal: AbortSignal.abort(new RangeError('not now')) });
  const ac = new AbortController();
  await mc.registerTool({ name: 'tmp', title: 7, description: 8, execute() {} }, { signal: ac.signal });
  out.before = (await mc.getTools()).map((t) => [t.name, t.title, t.description]);
  log.length = 0;
  ac.abort();
  const listed = mc.getTools();
  out.again = await reg({ name: 'tmp', description: 'back', execute() {} });
  out.after = (await listed).map((t) => t.name);
  out.changes = log.length;
  return out;
}"""


def test_register_tool(page: Any) -> None:
    out = page.evaluate(REGISTER)
    assert out["order"] == ["duplicate rejected", "microtask", "toolchange", "registered"]
    assert out["dup"] == "InvalidStateError: Duplicate tool name"
    invalid = "InvalidStateError: Invalid tool name"
    assert out["names"] == [invalid, invalid, invalid, invalid, "ok:undefined", "ok:undefined"]
    pre = "TypeError: Failed to execute 'registerTool' on 'ModelContext': "
    member = pre + "Failed to read the '%s' property from 'ModelContextTool': "
    assert out["types"] == [
        pre + "The provided value is not of type 'ModelContextTool'.",
        member % "description" + "Required member is undefined.",
        member % "execute" + "Required member is undefined.",
        member % "execute" + "The given value is not a function.",
        member % "name" + "Required member is undefined.",
        member % "inputSchema" + "Failed to convert value to 'object'.",
        pre + "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': "
        "Failed to convert value to 'AbortSignal'.",
    ]
    assert out["threw"] is False  # rejected, never thrown
    assert out["preAborted"] == "RangeError: not now"
    assert out["before"][-1] == ["tmp", "7", "8"]  # title and description as strings
    # Unregistered at once by its signal: gone from a list asked for right after, the name free.
    assert "tmp" not in out["after"]
    assert out["again"] == "ok:undefined"
    # Chromium may fold two changes of one task into one toolchange: at least one came.
    assert out["changes"] >= 1


GET_TOOLS = r"""async () => {
  const mc = document.modelContext;
  await mc.registerTool({ name: 'plain', description: 'p', execute() {} });
  await mc.registerTool({ name: 'full', title: 'Full', description: 'f',
    inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    annotations: { readOnlyHint: true, consequentialHint: 0, destructiveHint: true }, execute() {} });
  const tools = await mc.getTools();
  const view = (t) => ({ keys: Object.keys(t), origin: t.origin === location.origin,
                         window: t.window === window, title: t.title, schema: t.inputSchema,
                         annotations: t.annotations });
  const again = await mc.getTools();
  return { plain: view(tools.find((t) => t.name === 'plain')),
           full: view(tools.find((t) => t.name === 'full')), fresh: again[0] !== tools[0],
           isArray: Array.isArray(tools) };
}"""


def test_get_tools(page: Any) -> None:
    out = page.evaluate(GET_TOOLS)
    assert out["plain"] == {
        "keys": ["description", "name", "origin", "title", "window"],
        "origin": True,
        "window": True,
        "title": "",
        "schema": None,
        "annotations": None,
    }
    assert out["full"] == {
        "keys": ["annotations", "description", "inputSchema", "name", "origin", "title", "window"],
        "origin": True,
        "window": True,
        "title": "Full",
        "schema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
        # Chromium's annotations dictionary: its own members, booleans, nothing else.
        "annotations": {
            "consequentialHint": False,
            "debugging": False,
            "readOnlyHint": True,
            "untrustedContentHint": False,
        },
    }
    assert out["fresh"] is True and out["isArray"] is True


EXECUTE = r"""async () => {
  const mc = document.modelContext, out = {};
  await mc.registerTool({ name: 'echo', description: 'd', execute: (i) => i });
  await mc.registerTool({ name: 'self', description: 'd', execute: function () { return this === window; } });
  const results = { str: () => 'text', empty: () => '', none: () => {}, obj: () => ({ n: [1, 'é'] }),
    num: () => 5, later: async () => 'later', thrown: () => { throw new Error('why'); },
    rejected: async () => { throw new TypeError('why'); }, cycle: () => { const o = {}; o.o = o; return o; },
    big: () => 10n, nested: () => ({ n: 1n }), nan: () => NaN, yes: () => true, nul: () => null,
    date: () => new Date(0), fn: () => () => 1, thenable: () => ({ then(r) { r('kept'); } }) };
  for (const [name, execute] of Object.entries(results)) {
    await mc.registerTool({ name, description: 'd', execute });
  }
  const echo = await toolNamed('echo');
  const ex = (...a) => settle(mc.executeTool(...a));
  out.inputs = [await ex(echo, { a: 1 }), await ex(echo), await ex(echo, [1, 2]), await ex(echo, null),
                await ex(echo, 'x'), await ex(echo, 5)];
  // The input goes through JSON.stringify (toJSON honoured), then must parse back to an object.
  const cyc = {}; cyc.self = cyc;
  out.json = [await ex(echo, { toJSON: () => undefined }), await ex(echo, { toJSON: () => 'x' }),
              await ex(echo, new Date(0)), await ex(echo, { n: 1n }), await ex(echo, () => 1),
              await ex(echo, { a: undefined, f() {}, m: new Map([[1, 2]]) }), await ex(echo, [1, , 3]),
              (await ex(echo, cyc)).split('\n')[0]];
  out.copied = await (async () => { const i = { a: 1 }; let seen;
    await mc.registerTool({ name: 'keep', description: 'd', execute: (x) => { seen = x; } });
    await mc.executeTool(await toolNamed('keep'), i); return seen !== i; })();
  out.tools = [await ex('echo', {}), await ex({ name: 'echo' }, {}),
    await ex({ name: 'echo', description: 'd' }, {}),
    await ex({ name: 'echo', description: 'd', origin: location.origin }, {}),
    await ex({ name: 'echo', description: 'd', origin: location.origin, window: {} }, {}),
    await ex({ name: 'echo', description: '', origin: location.origin, window }, { by: 'dict' }),
    await ex({ name: 'nope', description: 'd', origin: location.origin, window }, {}),
    await ex({ ...echo, origin: 'https://elsewhere.example' }, {}),
    await ex(echo, {}, { signal: 'no' })];
  out.self = await ex(await toolNamed('self'), {});
  out.results = {};
  for (const name of Object.keys(results)) out.results[name] = await ex(await toolNamed(name), {});
  return out;
}"""


def test_execute_tool_inputs_and_results(page: Any) -> None:
    out = page.evaluate(EXECUTE)
    pre = "TypeError: Failed to execute 'executeTool' on 'ModelContext': "
    not_object = pre + "invalid input object: value is not an object"
    assert out["inputs"] == ['ok:{"a":1}', "ok:{}", "ok:[1,2]", not_object, not_object, not_object]
    parse_failed = "UnknownError: Failed to parse input arguments"
    assert out["json"] == [
        pre + "invalid input object: toJSON() returns undefined",
        parse_failed,
        parse_failed,
        pre + "Do not know how to serialize a BigInt",
        pre + "invalid input object: toJSON() returns undefined",
        'ok:{"m":{}}',
        "ok:[1,null,3]",
        pre + "Converting circular structure to JSON",
    ]
    assert out["copied"] is True
    member = pre + "Failed to read the '%s' property from 'RegisteredTool': "
    unknown = "UnknownError: The operation failed for an unknown transient reason (e.g. out of memory)."
    bad_signal = pre + "Failed to read the 'signal' property from 'ExecuteToolOptions': "
    bad_signal += "Failed to convert value to 'AbortSignal'."
    assert out["tools"] == [
        pre + "The provided value is not of type 'RegisteredTool'.",
        member % "description" + "Required member is undefined.",
        member % "origin" + "Required member is undefined.",
        member % "window" + "Required member is undefined.",
        member % "window" + "Failed to convert value to 'Window'.",
        'ok:{"by":"dict"}',  # any dictionary naming a registered tool of this document
        unknown,
        unknown,
        bad_signal,
    ]
    assert out["self"] == "ok:true"  # called with no `this`: a sloppy function gets window
    failed = (
        "UnknownError: Tool was executed but the invocation failed. "
        "For example, the script function threw an error"
    )
    assert out["results"] == {
        "str": "ok:text",
        "empty": "ok:Operation succeeded",
        "none": "ok:undefined",
        "obj": 'ok:{"n":[1,"é"]}',
        "num": "ok:5",
        "later": "ok:later",
        "thrown": failed,
        "rejected": failed,
        "cycle": failed,
        "big": "ok:10",  # a lone BigInt is written as String() writes it; a nested one fails
        "nested": failed,
        "nan": "ok:NaN",
        "yes": "ok:true",
        "nul": "ok:null",
        "date": 'ok:"1970-01-01T00:00:00.000Z"',
        "fn": "ok:undefined",
        "thenable": "ok:kept",
    }


ABORT = r"""async () => {
  const mc = document.modelContext, out = {};
  const log = [];
  mc.addEventListener('toolactivated', (e) => log.push('toolactivated:' + e.toolName));
  mc.addEventListener('toolcancel', (e) => log.push('toolcancel:' + e.toolName));
  window.addEventListener('toolactivated', () => log.push('window toolactivated'));
  window.addEventListener('toolcancel', () => log.push('window toolcancel'));

  // An aborted signal: rejected before the caller's next microtask, the tool never runs.
  let ran = false;
  await mc.registerTool({ name: 'never', description: 'd', execute: () => { ran = true; } });
  let early = 'pending';
  mc.executeTool(await toolNamed('never'), {}, { signal: AbortSignal.abort('too late') })
    .catch((e) => { early = e; });
  await Promise.resolve();
  out.early = [early, ran];

  // The caller's abort: the call rejects with its reason, then the tool's signal aborts, then toolcancel.
  let toolSignal, started;
  const startedP = new Promise((r) => { started = r; });
  await mc.registerTool({ name: 'hang', description: 'd', execute: (input, options) => {
    toolSignal = options.signal;
    out.options = Object.keys(options);
    log.push('started');
    options.signal.addEventListener('abort', () => log.push('tool signal aborted'));
    started();
    return new Promise(() => {});
  } });
  const cancelled = new Promise((r) => mc.addEventListener('toolcancel', r, { once: true }));
  const ac = new AbortController();
  const call = mc.executeTool(await toolNamed('hang'), {}, { signal: ac.signal });
  const activated = new Promise((r) => mc.addEventListener('toolactivated', r, { once: true }));
  await startedP;
  await activated;
  ac.abort('stop');
  await call.catch((e) => log.push('rejected:' + e));
  await cancelled;
  out.order = log.splice(0);
  out.toolReason = [toolSignal.reason instanceof DOMException, toolSignal.reason.name];

  // A tool that resolves after the abort: the call still rejects, with the default AbortError.
  let resolveLate;
  await mc.registerTool({ name: 'late', description: 'd', execute: (i, o) => new Promise((r) => {
    resolveLate = r; o.signal.addEventListener('abort', () => r('too late'));
  }) });
  const ac2 = new AbortController();
  const lateCall = mc.executeTool(await toolNamed('late'), {}, { signal: ac2.signal });
  await new Promise((r) => mc.addEventListener('toolactivated', r, { once: true }));
  ac2.abort();
  out.late = await settle(lateCall);

  // Two runs of one tool: aborting one leaves the other's signal alone.
  const signals = [], finish = [];
  await mc.registerTool({ name: 'twice', description: 'd', execute: (i, o) => {
    signals.push(o.signal); return new Promise((r) => finish.push(r)); } });
  const twice = await toolNamed('twice');
  const c1 = new AbortController();
  const run1 = mc.executeTool(twice, {}, { signal: c1.signal });
  const run2 = mc.executeTool(twice, {}, { signal: new AbortController().signal });
  while (signals.length < 2) await new Promise((r) => setTimeout(r, 0));
  const gone = new Promise((r) => mc.addEventListener('toolcancel', r, { once: true }));
  c1.abort('first');
  out.first = await settle(run1);
  await gone;
  finish[1]('second');
  out.second = [await settle(run2), signals[0].aborted, signals[1].aborted, signals[0] !== signals[1]];

  // A tool that unregisters itself while it runs still answers; then it is gone.
  const reg = new AbortController();
  await mc.registerTool({ name: 'bye', description: 'd', execute: async () => {
    reg.abort(); await new Promise((r) => setTimeout(r, 0)); return 'done'; } }, { signal: reg.signal });
  const bye = await toolNamed('bye');
  out.bye = [await settle(mc.executeTool(bye, {})), await settle(mc.executeTool(bye, {}))];
  out.rest = log.filter((x) => x.startsWith('window'));
  return out;
}"""


def test_execute_tool_abort(page: Any) -> None:
    out = page.evaluate(ABORT)
    assert out["early"] == ["too late", False]
    assert out["options"] == ["signal"]
    # Chromium 156 fires these at document.modelContext only, not at window.
    assert out["order"] == [
        "started",
        "toolactivated:hang",
        "rejected:stop",
        "tool signal aborted",
        "toolcancel:hang",
    ]
    assert out["toolReason"] == [True, "AbortError"]
    assert out["late"] == "AbortError: signal is aborted without reason"
    assert out["first"] == "reason:first"
    assert out["second"] == ["ok:second", True, False, True]
    unknown = "UnknownError: The operation failed for an unknown transient reason (e.g. out of memory)."
    assert out["bye"] == ["ok:done", unknown]
    assert out["rest"] == []


EVENTS = r"""async () => {
  const mc = document.modelContext, seen = [];
  mc.addEventListener('toolactivated', (e) => seen.push({
    cls: e.constructor.name, isActivated: e instanceof ToolActivatedEvent, name: e.toolName,
    target: e.target === mc, flags: [e.bubbles, e.cancelable, e.composed] }));
  let handler = 0;
  mc.ontoolactivated = () => handler++;
  await mc.registerTool({ name: 'ev', description: 'd', execute: () => 'x' });
  const r = await mc.executeTool(await toolNamed('ev'), {});
  return { r, seen, handler };
}"""


def test_tool_events(page: Any) -> None:
    out = page.evaluate(EVENTS)
    assert out == {
        "r": "x",
        "seen": [
            {
                "cls": "ToolActivatedEvent",
                "isActivated": True,
                "name": "ev",
                "target": True,
                "flags": [False, False, False],
            }
        ],
        "handler": 1,
    }


# ---- declarative forms -------------------------------------------------------------------------


@pytest.fixture
def forms(page: Any, origin: str) -> Any:
    page.goto(f"{origin}/conformance/forms.html")
    return page


DECLARATIVE = r"""async () => {
  const mc = document.modelContext, out = {}, log = [];
  const fruits = document.getElementById('fruits'), form = document.getElementById('pick');
  const go = document.getElementById('go');
  // Chromium has the pseudo-classes; the polyfill marks the same moments with data attributes.
  const native = CSS.supports('selector(:tool-form-active)');
  const formActive = () =>
    native ? form.matches(':tool-form-active') : form.hasAttribute('data-tool-form-active');
  const submitActive = () =>
    native ? go.matches(':tool-submit-active') : go.hasAttribute('data-tool-submit-active');
  fruits.addEventListener('input', () => log.push('input'));
  fruits.addEventListener('change', () => log.push('change'));
  mc.addEventListener('toolactivated', (e) => log.push('toolactivated:' + e.toolName + ':'
    + [...fruits.selectedOptions].map((o) => o.value)));
  form.addEventListener('submit', (e) => {
    log.push(['submit', e.agentInvoked, formActive(), submitActive()].join(':'));
    e.preventDefault();
    e.respondWith(Promise.resolve('picked ' + new FormData(form).getAll('fruits')));
  });
  const pick = await waitTool('pick');
  out.tool = [pick.title, pick.description, Object.keys(pick.inputSchema.properties)];
  const run = async (input) => {
    const r = await settle(mc.executeTool(pick, input));
    return [r, ...log.splice(0)];
  };
  out.first = await run({ fruits: ['apple', 'plum'] });
  out.same = await run({ fruits: ['plum', 'apple'] });
  out.other = await run({ fruits: ['pear'] });
  out.after = [formActive(), submitActive()];
  const plain = await waitTool('plain');
  out.noButton = await settle(mc.executeTool(plain, { q: 'x' }));

  form.setAttribute('tooltitle', 'Picker');
  out.retitled = (await waitTool('pick', true, (t) => t.title === 'Picker')).title;
  const plainForm = document.getElementById('plain');
  plainForm.removeAttribute('tooldescription');
  out.removed = !(await waitTool('plain', false));
  plainForm.setAttribute('tooldescription', 'again');
  out.back = (await waitTool('plain')).description;
  return out;
}"""


def test_declarative_forms(forms: Any) -> None:
    out = forms.evaluate(DECLARATIVE)
    assert out["tool"] == ["Fruit picker", "Pick fruit", ["fruits", "note"]]  # tooltitle is the title
    assert out["first"] == [
        "ok:picked apple,plum",
        "input",
        "change",
        "submit:true:true:true",  # agentInvoked; the form and its button marked while it runs
        "toolactivated:pick:apple,plum",
    ]
    # The same selection again: no input/change (a select multiple fires them only on a change).
    assert out["same"] == ["ok:picked apple,plum", "submit:true:true:true", "toolactivated:pick:apple,plum"]
    assert out["other"] == [
        "ok:picked pear",
        "input",
        "change",
        "submit:true:true:true",
        "toolactivated:pick:pear",
    ]
    assert out["after"] == [False, False]
    assert out["noButton"] == (
        "UnknownError: No submit button was found, but for a form without `toolautosubmit`, "
        "there must be a submit button"
    )
    assert out["retitled"] == "Picker"
    assert out["removed"] is True  # no tooldescription, no tool
    assert out["back"] == "again"


MANUAL = r"""async () => {
  const mc = document.modelContext, log = [];
  const form = document.getElementById('manual');
  let tool;
  for (let i = 0; i < 500 && !tool; i++) {
    tool = await toolNamed('manual');
    if (!tool) await new Promise((r) => setTimeout(r, 10));
  }
  let state = 'pending';
  mc.addEventListener('toolactivated', () => {
    log.push(['toolactivated', form.q.value, state].join(':'));
    document.getElementById('send').click(); // the user submits
  });
  form.addEventListener('submit', (e) => {
    log.push('submit:' + e.agentInvoked);
    e.preventDefault();
    e.respondWith(Promise.resolve('sent ' + form.q.value));
  });
  state = await settle(mc.executeTool(tool, { q: 'hello' }));
  log.push(state);
  return log;
}"""


def test_form_without_autosubmit_waits_for_the_user(page: Any, origin: str) -> None:
    page.goto(f"{origin}/conformance/manual.html")
    assert page.evaluate(MANUAL) == ["toolactivated:hello:pending", "submit:true", "ok:sent hello"]


# ---- same-origin frames ------------------------------------------------------------------------

FRAMES = r"""async () => {
  const mc = document.modelContext, out = {}, log = [];
  await mc.registerTool({ name: 'zz_top', description: 'd', execute: () => 'top' });
  const f = document.createElement('iframe');
  f.src = 'blank.html';
  document.body.appendChild(f);
  await new Promise((r) => { f.onload = r; });
  const child = f.contentDocument.modelContext;
  mc.addEventListener('toolactivated', (e) => log.push('top toolactivated:' + e.toolName));
  child.addEventListener('toolactivated', (e) => log.push('frame toolactivated:' + e.toolName));
  // The child's registration is a change for the parent too.
  const changed = new Promise((r) => mc.addEventListener('toolchange', r, { once: true }));
  await child.registerTool({ name: 'kid', description: 'd', execute: (i) => 'kid got ' + i.n });
  await changed;
  out.changed = true;
  await child.registerTool({ name: 'hang', description: 'd', execute: () => new Promise(() => {}) });
  const where = (w) => (w === window ? 'top' : w === f.contentWindow ? 'frame' : '?');
  const view = (ts) => ts.map((t) => [t.name, where(t.window), t.origin === location.origin]);
  out.fromTop = view(await mc.getTools());
  out.fromFrame = view(await child.getTools());
  const tools = await mc.getTools();
  out.run = await settle(mc.executeTool(tools.find((t) => t.name === 'kid'), { n: 1 }));
  out.events = log.splice(0);
  // A call pending in a frame that goes away rejects.
  const hang = tools.find((t) => t.name === 'hang');
  const started = new Promise((r) => child.addEventListener('toolactivated', r, { once: true }));
  const pending = settle(mc.executeTool(hang, {}));
  await started;
  f.remove();
  out.detached = await pending;
  out.after = (await mc.getTools()).map((t) => t.name);
  return out;
}"""


def test_same_origin_frames(page: Any) -> None:
    out = page.evaluate(FRAMES)
    assert out["changed"] is True
    # Every document of the page lists the tools of all its same-origin frames, by name.
    expected = [["hang", "frame", True], ["kid", "frame", True], ["zz_top", "top", True]]
    assert out["fromTop"] == expected
    assert out["fromFrame"] == expected
    # The tool runs in its own frame, whose document.modelContext gets toolactivated.
    assert out["run"] == "ok:kid got 1"
    assert out["events"] == ["frame toolactivated:kid"]
    assert out["detached"].startswith("UnknownError: The operation failed for an unknown transient reason")
    assert out["after"] == ["zz_top"]


FORM_EDGES = r"""async () => {
  const mc = document.modelContext, out = {}, log = [];
  // The page's submit handler submits by script instead (no respondWith).
  const js = document.getElementById('jsSubmit');
  js.addEventListener('submit', (e) => { log.push('submit'); e.preventDefault(); js.submit(); });
  out.bySubmit = [await settle(mc.executeTool(await waitTool('js_submit'))), ...log.splice(0)];
  // The form removes itself in its submit handler after respondWith.
  const vanish = document.getElementById('vanish');
  const vt = await waitTool('vanish');
  vanish.addEventListener('submit', (e) => {
    e.preventDefault(); e.respondWith(Promise.resolve('answered')); vanish.remove();
  });
  out.removed = await settle(mc.executeTool(vt, {}));
  // A form waiting for the user, cancelled: marked while it runs, not by toolcancel.
  const w = document.getElementById('wait'), b = document.getElementById('waitGo');
  const native = CSS.supports('selector(:tool-form-active)');
  const marks = () => native
    ? [w.matches(':tool-form-active'), b.matches(':tool-submit-active')]
    : [w.hasAttribute('data-tool-form-active'), b.hasAttribute('data-tool-submit-active')];
  mc.addEventListener('toolactivated', (e) => log.push('toolactivated:' + e.toolName + ':' + marks()));
  mc.addEventListener('toolcancel', (e) => log.push('toolcancel:' + e.toolName + ':' + marks()));
  const wt = await waitTool('wait');
  const ac = new AbortController();
  const activated = new Promise((r) => mc.addEventListener('toolactivated', r, { once: true }));
  const call = settle(mc.executeTool(wt, {}, { signal: ac.signal }));
  await activated;
  const cancelled = new Promise((r) => mc.addEventListener('toolcancel', r, { once: true }));
  ac.abort();
  log.push(await call);
  await cancelled;
  out.cancelled = [...log.splice(0), marks().join()];
  return out;
}"""


def test_declarative_edges(page: Any, origin: str) -> None:
    page.goto(f"{origin}/conformance/forms2.html")
    out = page.evaluate(FORM_EDGES)
    assert out["bySubmit"] == ["ok:null", "submit"]  # submitted, nothing said: "null"
    assert out["removed"] == "ok:answered"  # Chromium 156 keeps the answer (WPT wants UnknownError)
    assert out["cancelled"] == [
        "toolactivated:wait:true,true",
        "AbortError: signal is aborted without reason",
        "toolcancel:wait:false,false",
        "false,false",
    ]


ORIGIN_LISTS = r"""async () => {
  const mc = document.modelContext;
  const reg = (name, options) => settle(mc.registerTool({ name, description: 'd', execute() {} }, options));
  const names = (options) => settle(mc.getTools(options).then((ts) => ts.map((t) => t.name).join()));
  return {
    exposedTo: [await reg('x1', { exposedTo: ['https://elsewhere.example'] }),
                await reg('x2', { exposedTo: [] }),
                await reg('x3', { exposedTo: 'https://elsewhere.example' }),
                await reg('x4', { exposedTo: ['*'] }),
                await reg('x5', { exposedTo: ['http://elsewhere.example'] })],
    fromOrigins: [await names({ fromOrigins: ['https://elsewhere.example'] }),
                  await names({ fromOrigins: [] }),
                  await names({ fromOrigins: ['nope'] }),
                  await names({ fromOrigins: 'x' })],
  };
}"""


def test_origin_lists(page: Any) -> None:
    out = page.evaluate(ORIGIN_LISTS)
    not_sequence = "The provided value cannot be converted to a sequence."
    insecure = "SecurityError: Only secure origins are allowed in the %s list."
    assert out["exposedTo"] == [
        "ok:undefined",
        "ok:undefined",
        "TypeError: Failed to execute 'registerTool' on 'ModelContext': Failed to read the 'exposedTo' "
        "property from 'ModelContextRegisterToolOptions': " + not_sequence,
        insecure % "exposedTo",
        insecure % "exposedTo",
    ]
    # The document's own tools are listed whatever fromOrigins names.
    assert out["fromOrigins"] == [
        "ok:x1,x2",
        "ok:x1,x2",
        insecure % "fromOrigins",
        "TypeError: Failed to execute 'getTools' on 'ModelContext': Failed to read the 'fromOrigins' "
        "property from 'ModelContextGetToolOptions': " + not_sequence,
    ]
