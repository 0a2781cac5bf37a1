// The isolated world's stub (page/isolated/stub.js), the manifest's only isolated-world file, run
// in a vm with a stand-in window: until the MAIN world's stub says the frame uses WebMCP it touches
// nothing but `window` (a world's `document` costs ~18 KB of heap per frame, bench/pageload.py),
// then asks the worker once; into a tab open from before it looks at once. The real browser:
// tests/e2e/test_page_weight.py and the page harness.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';

const STUB = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension/page/isolated/stub.js'), 'utf8');

/**
 * @param {{native?: boolean, top?: boolean, late?: boolean, iframes?: boolean, answer?: object,
 *   tools?: unknown[]}} [opts]
 */
function frame({ native = false, top = true, late = false, iframes = false, answer = { ok: true }, tools = [] } = {}) {
  const window = new EventTarget();
  const parent = top ? window : new EventTarget();
  Object.assign(window, { top: top ? window : parent, parent });
  let documentReads = 0;
  const mc = native ? Object.assign(new EventTarget(), { getTools: async () => tools }) : undefined;
  const document = { modelContext: mc, querySelector: (s) => (iframes && s === 'iframe[allow*="tools"]' ? {} : null) };
  const sent = [];
  const toMain = [];
  window.addEventListener('webmcp-sidecar:ext', (ev) => toMain.push(JSON.parse(/** @type {any} */ (ev).detail)));
  const globals = {
    window, isSecureContext: true, CustomEvent, JSON,
    addEventListener: window.addEventListener.bind(window),
    crypto: { randomUUID: () => 'uuid-1' },
    chrome: { runtime: { sendMessage: async (m) => (sent.push(JSON.parse(JSON.stringify(m))), answer) } },
  };
  Object.defineProperty(globals, 'document', { get: () => (documentReads++, document), enumerable: true });
  const ctx = vm.createContext(globals);
  vm.runInContext(STUB, ctx, { filename: 'stub.js' });
  if (late) vm.runInContext('webmcpSidecarStub.late()', ctx); // what background/open-tabs.js does
  /** @param {object} msg */
  const fromMain = (msg) => window.dispatchEvent(new CustomEvent('webmcp-sidecar:page', { detail: JSON.stringify(msg) }));
  return { window, parent, mc, sent, toMain, fromMain, documentReads: () => documentReads, stub: () => vm.runInContext('webmcpSidecarStub', ctx) };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test('until the MAIN stub says the frame uses WebMCP, the stub touches nothing but window and asks nothing', async () => {
  const f = frame();
  f.fromMain({ type: 'tools', tools: [] }); // polyfill: an empty list is kept for the relay, no more
  f.fromMain({ type: 'native-error', name: 'x', message: 'y' });
  await tick();
  assert.equal(f.documentReads(), 0);
  assert.deepEqual(f.sent, []);
  assert.equal(f.stub().last, '{"type":"tools","tools":[]}');
});

test('polyfill: `install` brings both worlds\' code, asked for once; a list with tools does the same', async () => {
  for (const word of [{ type: 'install' }, { type: 'tools', tools: [{ name: 'a' }] }]) {
    const f = frame();
    f.fromMain(word);
    f.fromMain(word);
    await tick();
    assert.deepEqual(f.sent, [{ type: 'page_install', main: true, doc: 'uuid-1' }]);
    assert.deepEqual(f.toMain, [{ type: 'install' }]); // the MAIN stub puts out its namespace
  }
});

test('native: `install` (the MAIN stub saw a toolchange) brings the isolated code only', async () => {
  const f = frame({ native: true });
  f.fromMain({ type: 'install' });
  await tick();
  assert.deepEqual(f.sent, [{ type: 'page_install', main: false, doc: 'uuid-1' }]);
  assert.deepEqual(f.toMain, []);
});

test('refused (the tab\'s cap, or the extension went away): the MAIN stub is told, so what waits settles', async () => {
  const f = frame({ answer: { ok: false, error: 'too many frames' } });
  f.fromMain({ type: 'install' });
  await tick();
  assert.deepEqual(f.toMain, [{ type: 'install' }, { type: 'install_refused' }]);
});

test('a parent\'s grant of `tools` is kept for the relay; anyone else\'s is not', () => {
  const f = frame({ top: false });
  const grant = (source, t) => {
    const ev = new Event('message');
    Object.defineProperties(ev, { source: { value: source }, data: { value: { 'webmcp-sidecar:tools-grant': t } } });
    f.window.dispatchEvent(ev);
  };
  grant(f.window, 'forged');
  grant(f.parent, 'x'.repeat(65));
  assert.equal(f.stub().grant, null);
  grant(f.parent, 'token-1');
  assert.equal(f.stub().grant, 'token-1');
});

test('injected into a tab open from before, it looks at once', async () => {
  // Polyfill: the MAIN world may hold an earlier copy's full code: asked for its list.
  const poly = frame({ late: true });
  await tick();
  assert.deepEqual(poly.toMain, [{ type: 'sync' }]);
  assert.deepEqual(poly.sent, []);
  // An iframe given `tools` needs the relay.
  const granting = frame({ late: true, iframes: true });
  await tick();
  assert.equal(granting.sent.length, 1);
  // Native: tools there already, or a later toolchange.
  const withTools = frame({ late: true, native: true, tools: [{ name: 'a' }] });
  await tick();
  assert.deepEqual(withTools.sent, [{ type: 'page_install', main: false, doc: 'uuid-1' }]);
  const later = frame({ late: true, native: true });
  await tick();
  assert.deepEqual(later.sent, []);
  later.mc.dispatchEvent(new Event('toolchange'));
  await tick();
  assert.equal(later.sent.length, 1);
  // Woken twice, or after it asked: it looks once.
  poly.stub().late();
  await tick();
  assert.deepEqual(poly.toMain, [{ type: 'sync' }]);
});
