// The MAIN-world files (page/main/*.js): each mode's stub (lib/page-files.js STUB_FILES, what the worker registers), and the full code
// the worker injects when the stub asks (lib/page-files.js MAIN_FILES), run in a vm with a small
// stand-in for the page (window, document, navigator as EventTargets; DOM classes as stubs): the
// files' namespace is gone once they have run, a page that does not use the API asks for nothing,
// what a page does before the full code comes is there after it, and the legacy API, written
// once, behaves the same on the polyfill's registry and on a native document.modelContext. The real DOM and Chromium's
// own WebMCP are covered by tests/e2e/page_harness.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';
import { MAIN_FILES as FULL_FILES, STUB_FILES } from '../../extension/lib/page-files.js';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
/** The stub the worker registers for a page's mode (background/page-stubs.js). */
const stubOf = (native) => STUB_FILES[native ? 'native' : 'polyfill'];
const NS = Symbol.for('webmcp-sidecar.main-world.files');

/** A fake native document.modelContext: registerTool on its prototype, duplicates rejected later. */
function nativeModelContext() {
  const tools = new Map();
  class ModelContext extends EventTarget {
    registerTool(tool, options = {}) {
      if (tools.has(tool.name)) return Promise.reject(new DOMException('Duplicate tool name', 'InvalidStateError'));
      tools.set(tool.name, tool);
      options.signal?.addEventListener('abort', () => {
        tools.delete(tool.name);
        this.dispatchEvent(new Event('toolchange'));
      });
      this.dispatchEvent(new Event('toolchange'));
      return Promise.resolve();
    }
    async getTools() {
      return [...tools.values()].map((t) => ({ name: t.name }));
    }
  }
  return { mc: new ModelContext(), tools };
}

/** A page's MessagePort as far as the files use it: one message, one later task, its listeners
 * (`onmessage` first) called in order. */
class MessagePort extends EventTarget {
  postMessage(data) {
    const other = this.other;
    setImmediate(() => other.dispatchEvent(new MessageEvent('message', { data })));
  }
  get onmessage() {
    return this.handler ?? null;
  }
  set onmessage(f) {
    if (this.handler) this.removeEventListener('message', this.handler);
    this.handler = f;
    if (f) this.addEventListener('message', f);
  }
}
class MessageChannel {
  constructor() {
    this.port1 = new MessagePort();
    this.port2 = new MessagePort();
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  }
}

/** Runs the MAIN-world stub in a fresh page; `native` gives the document a modelContext (and
 * runs native mode's stub, unless `stub` names the files); `secure: false` is a page that is not
 * a secure context (plain http, not loopback). */
function page({ native = null, secure = true, refuse = false, touched = null, stub = stubOf(native) } = {}) {
  class Stub {}
  class Navigator {}
  class Document extends EventTarget {
    querySelectorAll(selector) {
      return this.found?.(selector) ?? []; // by default no tool form, no iframe
    }
  }
  const document = new Document();
  Object.assign(document, { readyState: 'loading' });
  if (native) document.modelContext = native;
  const window = new EventTarget();
  Object.defineProperty(window, Symbol.toStringTag, { value: 'Window' }); // executeTool checks it
  // As Blink has it: an accessor of the window's own, whose first call makes Navigator's objects.
  const nav = new Navigator();
  const navigatorGetter = function navigator() {
    touched?.add('navigator');
    return nav;
  };
  Object.defineProperty(window, 'navigator', { get: navigatorGetter, enumerable: true, configurable: true });
  const posted = [];
  let installs = 0;
  // The worker's part (background/page-install.js): the stub's `install` brings the full code, later.
  window.addEventListener('webmcp-sidecar:page', (ev) => {
    const msg = JSON.parse(ev.detail);
    posted.push(msg);
    if (msg.type === 'install' && !installs++) {
      // The worker refused (page/isolated/stub.js then says so to the MAIN world).
      if (refuse) return setImmediate(() => window.dispatchEvent(new CustomEvent('webmcp-sidecar:ext', { detail: '{"type":"install_refused"}' })));
      setImmediate(() => {
        for (const f of FULL_FILES) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), ctx, { filename: f });
      });
    }
  });
  const stubs = {};
  for (const name of ['Node', 'Element', 'HTMLElement', 'HTMLInputElement', 'HTMLTextAreaElement', 'HTMLSelectElement',
    'HTMLOptionElement', 'HTMLFormElement', 'HTMLIFrameElement', 'DocumentFragment']) stubs[name] = class extends Stub {};
  stubs.MutationObserver = class {
    observe() {}
    disconnect() {}
  };
  // A top-level window of its own origin: no cross-origin relatives (frame-remote.js).
  Object.assign(window, { parent: window, origin: 'https://a.test' });
  const globals = {
    ...stubs, window, document, Document, Navigator, location: { origin: 'https://a.test' },
    EventTarget, Event, CustomEvent, AbortController, AbortSignal, DOMException, queueMicrotask,
    MessageChannel, MessagePort, Proxy, WeakMap, URL, MessageEvent, Crypto, crypto, setTimeout, isSecureContext: secure,
  };
  // `touched`: which of the globals that cost a page heap (LAZY) the files read.
  if (touched) {
    for (const name of LAZY) {
      const v = globals[name];
      delete globals[name];
      Object.defineProperty(globals, name, { get: () => (touched.add(name), v), enumerable: true, configurable: true });
    }
  }
  // `navigator` in the page's code reads the window's (window is the global object in a browser).
  Object.defineProperty(globals, 'navigator', { get: () => window.navigator, enumerable: true, configurable: true });
  const ctx = vm.createContext(globals);
  for (const f of stub) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), ctx, { filename: f });
  return { ctx, window, document, posted, navigatorGetter, installs: () => installs, run: (code) => vm.runInContext(code, ctx) };
}

/** DOM interfaces (and `location`) whose objects Blink makes in a frame on first touch: a frame
 * that never uses WebMCP should not pay for them (bench/pageload.py, heap per frame). */
const LAZY = ['Element', 'HTMLElement', 'HTMLInputElement', 'HTMLTextAreaElement', 'HTMLSelectElement', 'HTMLOptionElement',
  'HTMLFormElement', 'HTMLIFrameElement', 'DocumentFragment', 'Node', 'MutationObserver', 'CustomEvent', 'AbortController',
  'AbortSignal', 'DOMException', 'URL', 'MessageChannel', 'MessagePort', 'MessageEvent', 'Crypto', 'crypto', 'location',
  'Navigator'];

const tick = () => new Promise((r) => setTimeout(r, 5));
/** Until `f()` holds: the full code comes a task after the stub asks, later on a busy machine. */
const until = async (f) => {
  for (let i = 0; i < 5000 && !f(); i++) await new Promise((r) => setTimeout(r, 1));
};
const names = (p) => p.posted.filter((m) => m.type === 'tools').at(-1)?.tools.map((t) => `${t.name}:${t.source}`).sort();

test("each mode's stub lists base.js first and start.js last, and carries only its own installer", () => {
  for (const files of Object.values(STUB_FILES)) {
    assert.equal(files[0], 'page/main/base.js');
    assert.equal(files.at(-1), 'page/main/start.js');
  }
  assert.ok(STUB_FILES.native.includes('page/main/native.js') && !STUB_FILES.native.includes('page/main/surface.js'));
  assert.ok(STUB_FILES.polyfill.includes('page/main/surface.js') && !STUB_FILES.polyfill.includes('page/main/native.js'));
  assert.ok(!STUB_FILES.native.includes('page/main/selectors.js'));
});

test('the stub for either mode (the first moments after an install) installs the mode the page has', async () => {
  const { mc, tools } = nativeModelContext();
  const n = page({ native: mc, stub: STUB_FILES.any });
  assert.equal(n.document.modelContext, mc);
  await n.run(`navigator.modelContext.registerTool({ name: 'legacy', description: 'd', execute() {} })`);
  assert.ok(tools.has('legacy'), 'native mode: the legacy API goes to Chromium\'s registry');
  const p = page({ stub: STUB_FILES.any });
  assert.equal(typeof p.run('document.modelContext.registerTool'), 'function');
  assert.equal(typeof p.window.ToolActivatedEvent, 'function');
});

test('a stub of the other mode (WebMCP switched since the worker registered it) installs nothing and throws nothing', async () => {
  // The polyfill's stub under Chromium's WebMCP: the page keeps Chromium's own API.
  const { mc } = nativeModelContext();
  const p = page({ native: mc, stub: STUB_FILES.polyfill });
  assert.equal(p.document.modelContext, mc);
  assert.equal(p.window[NS], undefined);
  await tick();
  assert.deepEqual(p.posted, []);
  // The native stub without WebMCP: no API until the page reloads (the worker registers the polyfill's).
  const q = page({ stub: STUB_FILES.native });
  assert.equal(q.document.modelContext, undefined);
  assert.equal(typeof q.window.ToolActivatedEvent, 'undefined');
});

test('once the files have run, the page cannot reach their namespace', () => {
  for (const native of [null, nativeModelContext().mc]) {
    const p = page({ native });
    assert.equal(p.window[NS], undefined);
    const ours = Object.getOwnPropertySymbols(p.window).filter((s) => s.description.startsWith('webmcp'));
    // The marker, and in the polyfill the frame hooks its same-origin relatives read (frame-tree.js,
    // frame-remote.js).
    const hook = Symbol.for('webmcp-sidecar.frame-registry');
    const remote = Symbol.for('webmcp-sidecar.frame-remote');
    assert.deepEqual(ours, native ? [Symbol.for('webmcp-sidecar.main-world')] : [Symbol.for('webmcp-sidecar.main-world'), hook, remote]);
    if (!native) {
      const h = p.window[hook];
      assert.ok(Object.isFrozen(h) && Object.getPrototypeOf(h) === null);
      assert.deepEqual(Object.keys(h).sort(), ['list', 'notify', 'origin', 'run']);
      const r = p.window[remote];
      assert.ok(Object.isFrozen(r) && Object.getPrototypeOf(r) === null);
      assert.deepEqual(Object.keys(r).sort(), ['frames', 'policy', 'run']);
    }
    assert.equal(typeof p.run('navigator.modelContext.registerTool'), 'function');
  }
});

test('not a secure context: the files add nothing to the page and tell nobody (as Chromium offers no WebMCP there)', async () => {
  for (const native of [null, nativeModelContext().mc]) {
    const p = page({ native, secure: false });
    await tick();
    assert.deepEqual(Object.getOwnPropertySymbols(p.window).filter((s) => s.description?.startsWith('webmcp')), []);
    assert.equal(p.run('navigator.modelContext'), undefined);
    assert.equal(p.document.modelContext, native ?? undefined); // a native one is left as it is (Chromium has none there)
    assert.equal(typeof p.window.ToolActivatedEvent, 'undefined');
    assert.deepEqual(p.posted, []);
  }
});

test('a second copy of the files leaves the page to the first', async () => {
  const p = page();
  for (const f of stubOf(null)) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), p.ctx, { filename: f });
  assert.equal(p.window[NS], undefined);
  p.run(`document.modelContext.registerTool({ name: 'a', description: 'a', execute() {} })`);
  await tick();
  for (const f of FULL_FILES) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), p.ctx, { filename: f }); // injected twice
  await tick();
  assert.equal(p.window[NS], undefined);
  assert.equal(p.posted.filter((m) => m.type === 'ready').length, 1);
  assert.equal(p.installs(), 1);
});

test('polyfill: a page that does not use the API asks for nothing; its namespace stays out of view', async () => {
  const p = page();
  p.run(`'modelContext' in document; document.modelContext; navigator.modelContext; new window.ToolActivatedEvent('toolactivated', { toolName: 'x' }).toolName;
    document.modelContext.addEventListener('toolchange', () => {}); document.modelContext.ontoolchange = () => {};`);
  await tick();
  assert.deepEqual(p.posted, []);
  assert.equal(p.window[NS], undefined);
});

test('a page that never uses WebMCP: the stub reads no DOM interface but document\'s, in either mode', async () => {
  for (const native of [null, nativeModelContext().mc]) {
    const touched = new Set();
    const p = page({ native, touched });
    assert.deepEqual([...touched], [], native ? 'native' : 'polyfill');
    p.document.readyState = 'interactive';
    p.document.dispatchEvent(new Event('DOMContentLoaded'));
    // The polyfill's watch for tool forms (and iframes given `tools`) starts at DOMContentLoaded.
    assert.deepEqual([...touched], native ? [] : ['MutationObserver']);
    assert.deepEqual(p.posted, []);
  }
  // Its first use takes the rest: the page reading document.modelContext, here.
  const touched = new Set();
  const p = page({ touched });
  p.run('document.modelContext');
  assert.ok(touched.has('Element') && touched.has('DOMException'), [...touched].join());
});

test('polyfill: an on* handler listens from its first non-null value, at that place among the listeners, as HTML\'s do', () => {
  const p = page();
  p.run(`globalThis.log = []; const mc = document.modelContext;
    mc.addEventListener('toolchange', () => log.push('first'));
    mc.ontoolchange = 'not a function';
    mc.ontoolchange = () => log.push('handler');
    mc.addEventListener('toolchange', () => log.push('last'));
    mc.dispatchEvent(new Event('toolchange'));
    mc.ontoolchange = null;
    mc.dispatchEvent(new Event('toolchange'));
    mc.ontoolchange = () => log.push('again');
    mc.dispatchEvent(new Event('toolchange'));`);
  assert.equal(JSON.stringify(p.run('log')), JSON.stringify(['first', 'handler', 'last', 'first', 'last', 'first', 'again', 'last']));
});

test('polyfill: a tool form or an iframe given `tools` at DOMContentLoaded brings the full code', async () => {
  for (const found of ['form[toolname]', 'iframe[allow*="tools"]']) {
    const p = page();
    p.document.found = (s) => (s.split(', ').includes(found) ? [{}] : []);
    p.document.readyState = 'interactive';
    p.document.dispatchEvent(new Event('DOMContentLoaded'));
    assert.equal(p.installs(), 1, found);
    p.document.found = null; // the full code comes next: its own reading of the document is not this test's
    await until(() => p.run('document.modelContext.getTools') && p.window[NS] === undefined);
  }
});

test('native: the MAIN stub tells the isolated stub when the frame needs the relay, once', async () => {
  /** An iframe's load, as the document's capture listener sees it. */
  const iframeLoad = (p) => {
    const ev = new Event('load');
    Object.defineProperty(ev, 'target', { value: { localName: 'iframe' } });
    p.document.dispatchEvent(ev);
  };
  const installs = (p) => p.posted.filter((m) => m.type === 'install').length;
  // A toolchange.
  const a = nativeModelContext();
  const pa = page({ native: a.mc });
  await a.mc.registerTool({ name: 't', description: 'd', execute() {} });
  await a.mc.registerTool({ name: 'u', description: 'd', execute() {} });
  assert.equal(installs(pa), 1);
  // Top frame: tools Chromium lists from a same-origin iframe, without a toolchange here.
  const b = nativeModelContext();
  const pb = page({ native: b.mc });
  iframeLoad(pb);
  await tick();
  assert.equal(installs(pb), 0);
  b.tools.set('in-iframe', { name: 'in-iframe' });
  iframeLoad(pb);
  await tick();
  assert.equal(installs(pb), 1);
  // An iframe given `tools` (the relay grants it), at DOMContentLoaded.
  const c = nativeModelContext();
  const pc = page({ native: c.mc });
  pc.document.found = (s) => (s === 'iframe[allow*="tools"]' ? [{}] : []);
  pc.document.dispatchEvent(new Event('DOMContentLoaded'));
  assert.equal(installs(pc), 1);
  // A page that replaced getTools fools only itself: no throw out of our listener.
  const d = nativeModelContext();
  const pd = page({ native: d.mc });
  d.mc.getTools = () => {
    throw new Error('page');
  };
  iframeLoad(pd);
  assert.equal(installs(pd), 0);
});

test('polyfill: what the page does before the full code comes is there after it, in order', async () => {
  const p = page();
  p.run(`const mc = document.modelContext;
    globalThis.log = [];
    mc.addEventListener('toolchange', () => log.push('change'));
    mc.ontoolactivated = (e) => log.push('activated ' + e.toolName);
    globalThis.first = mc.registerTool({ name: 'a', description: 'a', execute: (i) => 'got ' + i.x });
    globalThis.dup = mc.registerTool({ name: 'a', description: 'again', execute() {} }).then(() => 'ok', (e) => e.name);
    try { navigator.modelContext.registerTool({ name: 'a', description: 'x', execute() {} }); } catch (e) { log.push('legacy ' + e.name); }
    globalThis.listed = mc.getTools().then((l) => l.map((t) => t.name + '@' + t.origin).join());
    globalThis.ran = mc.getTools().then(([t]) => mc.executeTool(t, { x: 1 }));`);
  assert.deepEqual([...p.run('log')], ['legacy InvalidStateError']); // at once, as before
  assert.equal(p.posted.filter((m) => m.type === 'install').length, 1);
  assert.equal(await p.run('dup'), 'InvalidStateError');
  assert.equal(await p.run('first'), undefined);
  assert.equal(await p.run('listed'), 'a@https://a.test');
  assert.equal(await p.run('ran'), 'got 1');
  await tick();
  assert.deepEqual([...p.run('log')], ['legacy InvalidStateError', 'change', 'activated a']);
  assert.deepEqual(names(p), ['a:polyfill']);
  assert.equal(p.window[NS], undefined);
});

test('polyfill: if the full code is refused, what waits for it and what comes later fail plainly, never hang', async () => {
  const p = page({ refuse: true });
  p.run(`const mc = document.modelContext;
    globalThis.settled = (pr) => pr.then((v) => 'ok ' + v, (e) => e.name + ': ' + e.message);
    globalThis.reg = settled(mc.registerTool({ name: 'a', description: 'a', execute: () => 1 }));
    globalThis.listed = settled(mc.getTools());`);
  const why = 'UnknownError: WebMCP Sidecar could not load its page code into this frame';
  assert.ok((await p.run('listed')).startsWith(why), await p.run('listed'));
  assert.equal(await p.run('reg'), 'ok undefined'); // registerTool's part happens in the stub
  assert.ok((await p.run('settled(document.modelContext.getTools())')).startsWith(why));
  assert.ok((await p.run('settled(document.modelContext.executeTool({ name: "a" }, {}))')).startsWith(why));
  assert.equal(p.installs(), 1);
});

test('polyfill: the legacy API registers, provides, unregisters and clears in the one registry', async () => {
  const p = page();
  p.run(`document.modelContext.registerTool({ name: 'spec', description: 's', execute: () => 1 })`);
  const h = p.run(`navigator.modelContext.registerTool({ name: 'one', description: 'o', execute: () => 1 })`);
  await until(() => names(p)?.length === 2);
  assert.deepEqual(names(p), ['one:legacy', 'spec:polyfill']);
  const dup = (code) => assert.throws(() => p.run(code), (e) => e.name === 'InvalidStateError' && /Duplicate/.test(e.message));
  dup(`navigator.modelContext.registerTool({ name: 'spec', description: 'x', execute() {} })`);
  dup(`navigator.modelContext.provideContext({ tools: [{ name: 'one', description: 'x', execute() {} }] })`);
  p.run(`navigator.modelContext.provideContext({ tools: [{ name: 'a', description: 'a', execute() {} }] })`);
  p.run(`navigator.modelContext.provideContext({ tools: [{ name: 'b', description: 'b', execute() {} }] })`);
  await tick();
  assert.deepEqual(names(p), ['b:legacy', 'one:legacy', 'spec:polyfill']);
  h.unregister();
  p.run(`navigator.modelContext.registerTool({ name: 'one', description: 'again', execute: () => 2 })`);
  h.unregister(); // an old handle does not take the new tool of that name
  await tick();
  assert.deepEqual(names(p), ['b:legacy', 'one:legacy', 'spec:polyfill']);
  p.run(`navigator.modelContext.unregisterTool('b')`);
  p.run(`navigator.modelContext.clearContext()`);
  await tick();
  assert.deepEqual(names(p), ['spec:polyfill']);
});

test('native: the legacy API goes through registerTool, and forgets a name the browser refused', async () => {
  const { mc, tools } = nativeModelContext();
  const p = page({ native: mc });
  await mc.registerTool({ name: 'taken', description: 't', execute() {} }); // through the wrapper
  p.run(`navigator.modelContext.registerTool({ name: 'one', description: 'o', execute: () => 1 })`);
  p.run(`navigator.modelContext.registerTool({ name: 'taken', description: 'x', execute() {} })`);
  await tick();
  assert.deepEqual([...tools.keys()].sort(), ['one', 'taken']);
  // Refused by the browser, so free again for the legacy API (and still a clash there).
  p.run(`navigator.modelContext.registerTool({ name: 'taken', description: 'x', execute() {} })`);
  p.run(`navigator.modelContext.provideContext({ tools: [{ name: 'c', description: 'c', execute() {} }] })`);
  await tick();
  assert.deepEqual([...tools.keys()].sort(), ['c', 'one', 'taken']);
  p.run(`navigator.modelContext.clearContext()`);
  assert.deepEqual([...tools.keys()], ['taken']);
  // Native tools need no channel: the MAIN stub only says, once, at the first toolchange, that
  // this frame needs the relay (page/isolated/stub.js looks at nothing itself).
  assert.deepEqual(p.posted, [{ type: 'install' }]);
});

test('polyfill: executeTool writes results and reads inputs as Chromium 156 does', async () => {
  const p = page();
  p.run(`const mc = document.modelContext;
    globalThis.out = {};
    const settle = (pr) => pr.then((v) => 'ok:' + v, (e) => e.name + ': ' + e.message);
    const tools = { empty: () => '', big: () => 5n, nested: () => ({ n: 1n }), none: () => {}, echo: (i) => i };
    globalThis.done = (async () => {
      for (const [name, execute] of Object.entries(tools)) await mc.registerTool({ name, description: 'd', execute });
      const all = await mc.getTools();
      const t = (n) => all.find((x) => x.name === n);
      for (const n of ['empty', 'big', 'nested', 'none']) out[n] = await settle(mc.executeTool(t(n), {}));
      out.arr = await settle(mc.executeTool(t('echo'), [1, 2]));
      out.date = await settle(mc.executeTool(t('echo'), new Date(0)));
      out.noJson = await settle(mc.executeTool(t('echo'), { toJSON: () => undefined }));
      out.exposed = await settle(mc.registerTool({ name: 'x', description: 'd', execute() {} }, { exposedTo: ['ftp://a.test'] }));
      out.sorted = (await mc.getTools()).map((x) => x.name).join();
    })();`);
  await p.run('done');
  const out = p.run('out');
  assert.equal(out.empty, 'ok:Operation succeeded');
  assert.equal(out.big, 'ok:5');
  assert.match(out.nested, /^UnknownError: Tool was executed but the invocation failed/);
  assert.equal(out.none, 'ok:undefined');
  assert.equal(out.arr, 'ok:[1,2]');
  assert.equal(out.date, 'UnknownError: Failed to parse input arguments');
  assert.match(out.noJson, /^TypeError: .*toJSON\(\) returns undefined$/);
  assert.equal(out.exposed, 'SecurityError: Only secure origins are allowed in the exposedTo list.');
  assert.equal(out.sorted, 'big,echo,empty,nested,none');
});

test('navigator.modelContext (the older API) comes at the page\'s first read of navigator, which then is the browser\'s again', () => {
  for (const native of [null, nativeModelContext().mc]) {
    const touched = new Set();
    const p = page({ native, touched });
    assert.ok(!touched.has('navigator') && !touched.has('Navigator'));
    assert.notEqual(Object.getOwnPropertyDescriptor(p.window, 'navigator').get, p.navigatorGetter);
    // The first read, any way the page makes it (here through window, then the global name).
    const mc = p.run('window.navigator.modelContext');
    assert.equal(typeof mc.registerTool, 'function');
    const d = Object.getOwnPropertyDescriptor(p.window, 'navigator');
    assert.equal(d.get, p.navigatorGetter);
    assert.ok(d.enumerable && d.configurable);
    assert.equal(p.run('navigator.modelContext'), mc);
    // And it works: a tool registered through it is in the registry document.modelContext lists.
    p.run(`navigator.modelContext.registerTool({ name: 'old', description: 'd', execute: () => 1 })`);
    assert.throws(() => p.run(`navigator.modelContext.registerTool({ name: 'old', description: 'd', execute: () => 1 })`), /Duplicate/);
  }
});

test('a page that made window.navigator its own before reading it keeps it, and the older API is not forced on it', () => {
  const p = page();
  p.run(`Object.defineProperty(window, 'navigator', { value: { mine: true }, configurable: true })`);
  assert.equal(p.run('navigator.mine'), true);
  assert.equal(p.run('navigator.modelContext'), undefined);
});
