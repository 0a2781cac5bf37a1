// The pure helpers of the MAIN world's cross-origin frames (page/main/frame-rows.js, used by frame-remote.js): the
// reading of an iframe's `allow` attribute, held to the ISOLATED world's own reading
// (page/isolated/frame-policy.js, what the worker's check rests on), and the checks on a
// relative's list of tools. The frames themselves: tests/e2e/page_harness/test_webmcp_cross_origin.py.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';
import { MAIN_FILES as FULL_FILES, STUB_FILES } from '../../extension/lib/page-files.js';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
const MAIN_FILES = STUB_FILES.polyfill;
const NS = Symbol.for('webmcp-sidecar.main-world.files');

/** A MessageChannel that never runs anything (a real one keeps node's event loop alive). */
class MessagePort extends EventTarget {
  postMessage() {}
  set onmessage(_) {}
}
class MessageChannel {
  port1 = new MessagePort();
  port2 = new MessagePort();
}

/** The MAIN files (the stub, then the full code) up to frame-remote.js in a bare vm; their namespace. */
function mainNamespace() {
  class Stub {}
  const window = new EventTarget();
  Object.assign(window, { parent: window, origin: 'https://a.test' });
  const stubs = {};
  for (const name of ['Node', 'Element', 'HTMLElement', 'HTMLInputElement', 'HTMLTextAreaElement', 'HTMLSelectElement',
    'HTMLOptionElement', 'HTMLFormElement', 'HTMLIFrameElement', 'MutationObserver', 'Document', 'Navigator']) stubs[name] = class extends Stub {};
  const ctx = vm.createContext({
    ...stubs, window, document: Object.assign(new EventTarget(), { readyState: 'loading' }), navigator: new stubs.Navigator(), location: { origin: 'https://a.test' },
    EventTarget, Event, CustomEvent, AbortController, AbortSignal, DOMException, queueMicrotask, MessageChannel, MessagePort,
    MessageEvent, WeakMap, URL, Crypto, crypto, setTimeout, isSecureContext: true,
  });
  // The stub without start.js (which hides the namespace), its surface, then the full code up to frame-remote.js.
  for (const f of MAIN_FILES.slice(0, -1)) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), ctx, { filename: f });
  window[NS].surface = window[NS].installSurface();
  window[NS].late(); // as surface.js's first use does
  const upto = FULL_FILES.indexOf('page/main/frame-remote.js');
  assert.ok(upto > 0, 'frame-remote.js is in the full code');
  for (const f of FULL_FILES.slice(0, upto + 1)) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), ctx, { filename: f });
  return window[NS];
}

/** The ISOLATED world's framePolicy. */
function isolatedPolicy() {
  const ctx = vm.createContext({ URL, crypto, document: {}, location: { origin: 'https://a.test' }, webmcpSidecar: {} });
  vm.runInContext(readFileSync(path.join(EXT, 'page/isolated/frame-policy.js'), 'utf8'), ctx);
  return ctx.webmcpSidecar.framePolicy;
}

test("an iframe's allow attribute reads the same in both worlds", () => {
  const main = mainNamespace().toolsOrigins;
  const iso = isolatedPolicy().toolsOrigins;
  const self = 'https://a.test';
  const cases = [
    ['tools', 'https://b.test/x'],
    ['tools *', 'https://b.test/x'],
    ["tools 'self'", 'https://b.test/x'],
    ["tools 'none'", 'https://b.test/x'],
    ["tools 'src' https://c.test", 'https://b.test/x'],
    ['camera; tools https://c.test:8443/path', 'https://b.test/x'],
    ['camera', 'https://b.test/x'],
    ['', 'https://b.test/x'],
    ['tools', ''],
    ['tools', 'about:blank'],
    ['  tools   https://c.test  ; tools *', 'https://b.test/'],
    ['tools nonsense', 'https://b.test/'],
  ];
  const expected = [
    ['https://b.test'], ['*'], [self], [], ['https://b.test', 'https://c.test'], ['https://c.test:8443'], [], [], [self], [self],
    ['https://c.test'], [],
  ];
  cases.forEach(([allow, src], i) => {
    assert.deepEqual([...main(allow, src, self)], expected[i], `main: ${allow}`);
    assert.deepEqual([...iso(allow, src, self)], expected[i], `isolated: ${allow}`);
  });
});

test("an iframe gives its document `tools` as Permissions Policy reads it ('self' by default)", () => {
  const { frameGrants } = mainNamespace();
  const A = 'https://a.test', B = 'https://b.test', C = 'https://c.test';
  const cases = [
    ['', B + '/', B, false], // another origin without a directive
    ['', A + '/x', A, true], // the parent's origin: the default
    ["tools 'none'", A + '/x', A, false],
    ['tools', B + '/', B, true], // 'src'
    ['tools', B + '/', C, false], // navigated away from its src's origin
    ["tools 'self'", B + '/', B, false],
    ['tools *', B + '/', C, true],
    ['camera; tools ' + C, B + '/', C, true],
    ['toolsx', B + '/', B, false],
  ];
  for (const [allow, src, self, want] of cases) assert.equal(frameGrants(allow, src, A, self), want, `${allow} ${self}`);
});

test("a relative's list of tools is taken whole or not at all", () => {
  const { readRows } = mainNamespace();
  const tool = { name: 'a', title: '', description: 'd', inputSchema: '{"type":"object"}', annotations: { readOnlyHint: 1, x: 2 } };
  const rows = readRows([tool]);
  assert.equal(rows.length, 1);
  // Annotations as Chromium's dictionary (booleans, known hints only).
  assert.deepEqual({ ...rows[0].annotations }, { consequentialHint: false, debugging: false, readOnlyHint: true, untrustedContentHint: false });
  for (const bad of [
    'x', {}, [null], [{ ...tool, name: 'a b' }], [{ ...tool, name: 5 }], [{ ...tool, description: undefined }],
    [{ ...tool, title: 'x'.repeat(64 * 1024 + 1) }], [{ ...tool, inputSchema: 'nope' }],
    [{ ...tool, annotations: 'no' }], Array.from({ length: 129 }, (_, i) => ({ ...tool, name: 't' + i })),
  ]) assert.equal(readRows(bad), null, JSON.stringify(bad).slice(0, 60));
  assert.equal(readRows(Array.from({ length: 128 }, (_, i) => ({ ...tool, name: 't' + i }))).length, 128);
});
