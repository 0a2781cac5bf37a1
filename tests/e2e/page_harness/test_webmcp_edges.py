"""WebMCP's edges as the page sees them: aborts and unregistrations while a tool runs, the
polyfill against Chromium 156's own (issue 28).

The same three browsers as test_webmcp_conformance.py (`native` without us, `native_ext` with our
content scripts, `polyfill` without the flag), each held to one expectation, measured in
Chromium 156 with `--enable-features=WebMCP`. What is checked is order (what happens before
what, microtasks included), never how long anything takes: each scenario waits on the events it
expects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.page_harness.harness import MARKS
from tests.e2e.page_harness.test_webmcp_cross_origin import SETUP, WAIT_LISTED, frame

pytestmark = MARKS

MODES = ["native", "native_ext", "polyfill"]

# In every scenario: `log` records the events at document.modelContext, `until(p)` waits until
# `p()` holds, checked once a task; after 2000 checks it notes "gave up" in the log and goes on,
# so that a scenario that would hang fails on its log instead.
PRELUDE = r"""
  const mc = document.modelContext, out = {}, log = [];
  for (const t of ['toolactivated', 'toolcancel']) {
    mc.addEventListener(t, (e) => log.push(t + ':' + e.toolName));
  }
  const until = (p) => new Promise((r) => {
    let n = 0;
    const check = () => (p() ? r() : ++n > 2000 ? (log.push('gave up'), r()) : setTimeout(check, 0));
    check();
  });
"""


@pytest.fixture(params=MODES)
def page(request: pytest.FixtureRequest, contexts: dict[str, Any], origins: tuple[str, str]) -> Iterator[Any]:
    pg = contexts[request.param].new_page()
    pg.goto(f"{origins[0]}/conformance/blank.html")
    assert pg.evaluate("() => !!document.modelContext")
    yield pg
    pg.close()


ABORT_EARLY = r"""async () => {""" + PRELUDE + r"""
  let n = 0;
  // The callback resolves once its own signal aborts: the caller's promise must stay rejected.
  await mc.registerTool({ name: 't', description: 'd', execute: (i, o) => {
    const k = ++n;
    log.push('exec' + k);
    return new Promise((r) => {
      o.signal.onabort = () => { log.push('signal' + k + ':' + o.signal.reason.name); r('late'); };
    });
  } });
  const t = await toolNamed('t');
  for (const when of ['sync', 'microtask']) {
    const c = new AbortController();
    const call = mc.executeTool(t, {}, { signal: c.signal });
    call.then((v) => log.push('resolved:' + v), (e) => log.push('rejected:' + e.name));
    const abort = () => { c.abort(); log.push('aborted'); queueMicrotask(() => log.push('microtask')); };
    if (when === 'sync') abort(); else queueMicrotask(abort);
    await until(() => log.some((x) => x.startsWith('toolcancel')));
    out[when] = log.splice(0);
  }
  return out;
}"""


def test_an_abort_before_the_tool_started_rejects_at_once_and_the_tool_still_runs(page: Any) -> None:
    out = page.evaluate(ABORT_EARLY)
    # The call rejects inside abort() (its reaction comes before a microtask queued right after);
    # the tool runs all the same, then its signal aborts and toolcancel fires; the value its
    # callback resolves with afterwards reaches nobody.
    for when, k in (("sync", 1), ("microtask", 2)):
        assert out[when] == [
            "aborted", "rejected:AbortError", "microtask",
            f"exec{k}", "toolactivated:t", f"signal{k}:AbortError", "toolcancel:t",
        ], when


SELF_CANCEL = r"""async () => {""" + PRELUDE + r"""
  // Each tool aborts the caller's signal itself (the caller hands it its controller).
  const hang = () => new Promise(() => {});
  const kinds = {
    sync_pending: (c) => { log.push('aborting'); c.abort('self'); return hang(); },
    async_pending: async (c) => {
      await new Promise((r) => setTimeout(r, 0));
      log.push('aborting');
      c.abort('self');
      return hang();
    },
    sync_value: (c) => { log.push('aborting'); c.abort('self'); return 'value'; },
  };
  for (const [name, body] of Object.entries(kinds)) {
    const c = new AbortController();
    await mc.registerTool({ name, description: 'd', execute: (i, o) => {
      o.signal.addEventListener('abort', () => log.push('signal:' + o.signal.reason.name));
      const r = body(c);
      log.push('returned');
      return r;
    } });
    const call = mc.executeTool(await toolNamed(name), {}, { signal: c.signal });
    out[name + '_result'] = await settle(call);
    if (name === 'sync_value') {
      // Nothing is cancelled: a later tool's cancel, which comes after any earlier one, is the sign.
      const c2 = new AbortController();
      await mc.registerTool({ name: 'marker', description: 'd', execute: () => hang() });
      mc.executeTool(await toolNamed('marker'), {}, { signal: c2.signal }).catch(() => {});
      await until(() => log.includes('toolactivated:marker'));
      c2.abort();
      await until(() => log.includes('toolcancel:marker'));
    } else {
      await until(() => log.includes('toolcancel:' + name));
    }
    out[name] = log.splice(0);
  }
  return out;
}"""


def test_a_tool_that_cancels_itself_through_the_callers_signal(page: Any) -> None:
    out = page.evaluate(SELF_CANCEL)
    for name in ("sync_pending", "async_pending", "sync_value"):
        assert out[name + "_result"] == "reason:self", name
    # Still pending when its cancel comes: its signal aborts and toolcancel fires.
    assert out["sync_pending"] == [
        "aborting", "returned", "toolactivated:sync_pending", "signal:AbortError", "toolcancel:sync_pending"
    ]
    assert out["async_pending"] == [
        "returned", "toolactivated:async_pending", "aborting", "signal:AbortError", "toolcancel:async_pending"
    ]
    # Its result was in before the cancel could reach it: no abort, no toolcancel.
    assert out["sync_value"] == ["aborting", "returned", "toolactivated:sync_value", "toolactivated:marker",
                                 "toolcancel:marker"]


MICROTASKS = r"""async () => {""" + PRELUDE + r"""
  // An outer tool runs an inner one with its own signal; the inner one aborts the outer call.
  // Chromium runs the page's microtasks between execute() and toolactivated, and between a
  // signal's abort and toolcancel.
  const c = new AbortController();
  await mc.registerTool({ name: 'inner', description: 'd', execute: (i, o) => {
    log.push('inner exec');
    o.signal.onabort = () => log.push('inner signal');
    c.abort('stop');
    return new Promise(() => {});
  } });
  await mc.registerTool({ name: 'outer', description: 'd', execute: async (i, o) => {
    log.push('outer exec');
    o.signal.onabort = () => log.push('outer signal');
    const r = await settle(mc.executeTool(await toolNamed('inner'), {}, { signal: o.signal }));
    log.push('outer got ' + r);
    return r;
  } });
  settle(mc.executeTool(await toolNamed('outer'), {}, { signal: c.signal }))
    .then((r) => log.push('call ' + r));
  await until(() => log.includes('toolcancel:inner'));
  return log;
}"""


def test_microtasks_run_before_toolactivated_and_before_toolcancel(page: Any) -> None:
    assert page.evaluate(MICROTASKS) == [
        "outer exec", "toolactivated:outer", "inner exec",
        "call reason:stop", "toolactivated:inner",
        "outer signal", "outer got AbortError: signal is aborted without reason", "toolcancel:outer",
        "inner signal", "toolcancel:inner",
    ]


UNREGISTER = r"""async () => {""" + PRELUDE + r"""
  // Unregistered from outside while it runs: the call waits for the tool's own result.
  {
    const reg = new AbortController();
    let finish;
    await mc.registerTool({ name: 'u1', description: 'd', execute: (i, o) => {
      o.signal.onabort = () => log.push('signal');
      return new Promise((r) => { finish = r; });
    } }, { signal: reg.signal });
    const call = settle(mc.executeTool(await toolNamed('u1'), {})).then((r) => log.push('call ' + r));
    await until(() => log.includes('toolactivated:u1'));
    reg.abort();
    log.push('unregistered');
    out.listed = (await mc.getTools()).map((t) => t.name);
    log.push('tool resolves');
    finish('later');
    await call;
    out.outside = log.splice(0);
  }
  // Unregistered by itself, synchronously inside execute(); the caller aborts at once: the
  // cancellation still reaches its signal.
  {
    const reg = new AbortController(), c = new AbortController();
    await mc.registerTool({ name: 'u2', description: 'd', execute: (i, o) => {
      reg.abort();
      log.push('exec, unregistered');
      o.signal.onabort = () => log.push('signal:' + o.signal.reason.name);
      return new Promise(() => {});
    } }, { signal: reg.signal });
    settle(mc.executeTool(await toolNamed('u2'), {}, { signal: c.signal }))
      .then((r) => log.push('call ' + r));
    c.abort('caller');
    await until(() => log.includes('toolcancel:u2'));
    out.self = log.splice(0);
  }
  // Re-entrant: the outer tool runs the inner one; the inner one unregisters both. Both settle.
  {
    const ro = new AbortController(), ri = new AbortController();
    let finish;
    await mc.registerTool({ name: 'inner', description: 'd', execute: () => {
      ro.abort();
      ri.abort();
      log.push('both unregistered');
      return new Promise((r) => { finish = r; });
    } }, { signal: ri.signal });
    await mc.registerTool({ name: 'outer', description: 'd', execute: async (i, o) => {
      const r = await settle(mc.executeTool(await toolNamed('inner'), {}, { signal: o.signal }));
      log.push('outer got ' + r);
      return 'outer:' + r;
    } }, { signal: ro.signal });
    const call = settle(mc.executeTool(await toolNamed('outer'), {})).then((r) => log.push('call ' + r));
    await until(() => log.includes('toolactivated:inner'));
    out.left = (await mc.getTools()).map((t) => t.name);
    log.push('inner resolves');
    finish('inner done');
    await call;
    out.reentrant = log.splice(0);
  }
  return out;
}"""


def test_unregistering_a_tool_while_it_runs(page: Any) -> None:
    out = page.evaluate(UNREGISTER)
    assert out["listed"] == []
    assert out["outside"] == ["toolactivated:u1", "unregistered", "tool resolves", "call ok:later"]
    assert out["self"] == ["call reason:caller", "exec, unregistered", "toolactivated:u2",
                           "signal:AbortError", "toolcancel:u2"]
    assert "inner" not in out["left"] and "outer" not in out["left"]
    assert out["reentrant"] == ["toolactivated:outer", "both unregistered", "toolactivated:inner",
                                "inner resolves", "outer got ok:inner done", "call ok:outer:ok:inner done"]


FRAME_TOOLS = r"""async ([top]) => {
  window.log = [];
  for (const t of ['toolactivated', 'toolcancel']) {
    document.modelContext.addEventListener(t, (e) => log.push(t + ':' + e.toolName));
  }
  window.reg = {};
  window.finish = {};
  for (const name of ['later', 'pending', 'early']) {
    reg[name] = new AbortController();
    await document.modelContext.registerTool({ name, description: 'd', execute: (i, o) => {
      log.push('exec:' + name);
      o.signal.addEventListener('abort', () => log.push('signal:' + name));
      return new Promise((r) => { finish[name] = r; });
    } }, { signal: reg[name].signal, exposedTo: [top] });
  }
}"""


def test_a_cross_origin_tool_unregistered_or_aborted_while_it_runs(
    page: Any, origins: tuple[str, str]
) -> None:
    a, b = origins
    page.evaluate(SETUP, [b, [["allowed", "tools"]]])
    child = frame(page, "allowed")
    child.evaluate(FRAME_TOOLS, [a])
    page.evaluate(WAIT_LISTED, [[b], "early", True])
    page.evaluate(
        r"""async ([other]) => {
      const mc = document.modelContext;
      const tools = await mc.getTools({ fromOrigins: [other] });
      const named = (n) => tools.find((t) => t.name === n);
      window.done = [];
      window.c = new AbortController();
      for (const n of ['later', 'pending']) {
        settle(mc.executeTool(named(n), {}, n === 'pending' ? { signal: c.signal } : {}))
          .then((r) => done.push(n + ' ' + r));
      }
      // Aborted right after the call: rejected inside abort(), the tool runs all the same.
      const c2 = new AbortController();
      mc.executeTool(named('early'), {}, { signal: c2.signal }).catch((e) => done.push('early ' + e.name));
      c2.abort();
      done.push('aborted');
      queueMicrotask(() => done.push('microtask'));
    }""",
        [b],
    )
    started = "() => ['later', 'pending', 'early'].every((n) => log.includes('toolactivated:' + n))"
    child.wait_for_function(started)
    # Unregistered in the frame while they run: the calls wait for the tools' own outcome.
    child.evaluate("() => { reg.later.abort(); reg.pending.abort(); finish.later('its result'); }")
    page.wait_for_function("() => done.includes('later ok:its result')")
    page.evaluate("() => c.abort('caller')")
    page.wait_for_function("() => done.includes('pending reason:caller')")
    child.wait_for_function("() => log.includes('toolcancel:pending') && log.includes('toolcancel:early')")
    assert page.evaluate("() => done") == [
        "aborted", "early AbortError", "microtask", "later ok:its result", "pending reason:caller"
    ]
    seen = child.evaluate("() => log")
    for name in ("early", "pending"):
        mine = [x for x in seen if x.endswith(":" + name)]
        assert mine == [f"exec:{name}", f"toolactivated:{name}", f"signal:{name}", f"toolcancel:{name}"], seen
    assert [x for x in seen if x.endswith(":later")] == ["exec:later", "toolactivated:later"]
    assert page.evaluate(WAIT_LISTED, [[b], "pending", False])


PSEUDO = r"""async () => {
  const mc = document.modelContext, seen = {};
  const form = document.getElementById('pick'), go = document.getElementById('go');
  const note = form.querySelector('input[name=note]');
  const ask = () => {
    const tryIt = (f) => { try { return f(); } catch (e) { return e.name; } };
    return [
      form.matches(':tool-form-active'), form.matches(':tool-submit-active'),
      go.matches(':tool-submit-active'), note.matches(':tool-form-active'),
      note.closest(':tool-form-active') === form, document.querySelector('form:tool-form-active') === form,
      form.querySelectorAll(':tool-submit-active').length,
      document.querySelectorAll('form:not(:tool-form-active)').length,
      tryIt(() => form.matches(':tool-form-active(')), tryIt(() => form.matches('[')),
    ];
  };
  form.addEventListener('submit', (e) => {
    seen.during = ask();
    e.preventDefault();
    e.respondWith(Promise.resolve('done'));
  });
  seen.before = ask();
  const pick = await waitTool('pick');
  seen.result = await settle(mc.executeTool(pick, { fruits: ['pear'] }));
  seen.after = ask();
  return seen;
}"""


def test_selectors_with_the_pseudo_classes_answer_instead_of_throwing(
    page: Any, origins: tuple[str, str]
) -> None:
    """The polyfill cannot make the pseudo-classes (stylesheets and computed styles keep the
    difference, docs/WEBMCP_WPT.md), but a page's matches(), closest() and querySelector*()
    with them answer as Chromium's do instead of throwing."""
    page.goto(f"{origins[0]}/conformance/forms.html")
    out = page.evaluate(PSEUDO)
    assert out["result"] == "ok:done"
    errors = ["SyntaxError", "SyntaxError"]
    assert out["before"] == [False, False, False, False, False, False, 0, 2, *errors]
    assert out["during"] == [True, False, True, False, True, True, 1, 1, *errors]
    assert out["after"] == out["before"]
