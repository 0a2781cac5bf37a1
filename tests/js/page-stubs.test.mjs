// The MAIN world's stub per mode (background/page-stubs.js): the worker finds out whether the
// browser has WebMCP (an offscreen document in Chrome, its own document in Firefox) and
// registers that mode's stub (lib/page-files.js) once per browser session; e2e:
// tests/e2e/test_page_weight.py.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installPageStubs } from '../../extension/background/page-stubs.js';
import { STUB_FILES, STUB_IDS, sameStub, stubId, stubScript } from '../../extension/lib/page-files.js';

/** A Chrome for page-stubs.js: `native` is what the offscreen document finds; `deaf` sends it
 * that many messages before its listener is there. */
function fakeChrome({ native = false, registered = [], session = {}, deaf = 0, silent = false } = {}) {
  const calls = [];
  let scripts = [...registered];
  let open = false;
  const chrome = {
    storage: {
      session: {
        data: { ...session },
        async get(key) { return key in this.data ? { [key]: this.data[key] } : {}; },
        async set(obj) { Object.assign(this.data, obj); },
      },
    },
    offscreen: {
      async hasDocument() { return open; },
      async createDocument(opts) {
        calls.push(['createDocument', opts.url]);
        assert.ok(!open, 'one offscreen document at a time');
        open = true;
      },
      async closeDocument() {
        calls.push(['closeDocument']);
        open = false;
      },
    },
    runtime: {
      async sendMessage(msg) {
        assert.deepEqual(msg, { type: 'webmcp_mode?' });
        if (!open || deaf-- > 0) throw new Error('Could not establish connection. Receiving end does not exist.');
        return silent ? undefined : { native };
      },
    },
    scripting: {
      async getRegisteredContentScripts({ ids }) {
        calls.push(['get', ids]);
        return scripts.filter((s) => ids.includes(s.id));
      },
      async registerContentScripts(list) {
        calls.push(['register', list.map((s) => s.js)]);
        for (const s of list) assert.ok(!scripts.some((x) => x.id === s.id), 'a duplicate id would throw');
        scripts.push(...list);
      },
      async unregisterContentScripts({ ids }) {
        calls.push(['unregister', ids]);
        scripts = scripts.filter((s) => !ids.includes(s.id));
      },
      async updateContentScripts(list) {
        calls.push(['update', list.map((s) => s.js)]);
        for (const s of list) {
          const i = scripts.findIndex((x) => x.id === s.id);
          assert.ok(i >= 0, 'only a registered script can be updated');
          scripts[i] = { ...scripts[i], ...s };
        }
      },
    },
  };
  return { chrome, calls, scripts: () => scripts };
}

const quiet = () => {};

test('after an install: a stub for either mode at once, then, the offscreen document having said Chrome has WebMCP, native mode\'s', async () => {
  const f = fakeChrome({ native: true, deaf: 3 });
  const stubs = installPageStubs({ chrome: f.chrome, log: quiet });
  assert.equal(stubs.isRegistered(), false); // the worker's host connects once it is
  await stubs.registered;
  assert.equal(stubs.isRegistered(), true);
  assert.deepEqual(f.scripts().map((s) => s.js), [[...STUB_FILES.any]]);
  assert.ok(!f.calls.some((c) => c[0] === 'closeDocument'), 'registered before the probe answered');
  assert.equal(await stubs.ready, 'native');
  assert.deepEqual(f.scripts().map((s) => s.js), [[...STUB_FILES.native]]);
  const [s] = f.scripts();
  assert.equal(s.id, stubId('native'));
  assert.equal(s.world, 'MAIN');
  assert.equal(s.runAt, 'document_start');
  assert.equal(s.allFrames && s.matchOriginAsFallback && s.persistAcrossSessions, true);
  // The mode's stub in before the first one out: no document loads with neither.
  assert.deepEqual(f.calls.filter((c) => c[0] !== 'createDocument' && c[0] !== 'closeDocument'), [
    ['get', [...STUB_IDS]], ['register', [[...STUB_FILES.any]]], ['get', [...STUB_IDS]],
    ['register', [[...STUB_FILES.native]]], ['unregister', [stubId('any')]],
  ]);
  assert.ok(f.calls.some((c) => c[0] === 'closeDocument'));
  assert.equal(f.chrome.storage.session.data.pageStubMode, 'native');
});

test('WebMCP switched off since: the native stub is replaced by the polyfill\'s; the same stub is left as it is', async () => {
  const f = fakeChrome({ native: false, registered: [stubScript('native')] });
  assert.equal(await installPageStubs({ chrome: f.chrome, log: quiet }).ready, 'polyfill');
  assert.deepEqual(f.scripts().map((s) => s.js), [[...STUB_FILES.polyfill]]);
  assert.deepEqual(f.calls.filter((c) => c[0] === 'register' || c[0] === 'unregister'),
    [['register', [[...STUB_FILES.polyfill]]], ['unregister', [stubId('native')]]]);

  const same = fakeChrome({ native: false, registered: [stubScript('polyfill')] });
  assert.equal(await installPageStubs({ chrome: same.chrome, log: quiet }).ready, 'polyfill');
  assert.ok(!same.calls.some((c) => c[0] === 'register' || c[0] === 'update' || c[0] === 'unregister'));

  // An update of the extension changed the mode's files: the same id, updated in place.
  const older = fakeChrome({ native: true, registered: [{ ...stubScript('native'), js: ['page/main/old.js'] }] });
  assert.equal(await installPageStubs({ chrome: older.chrome, log: quiet }).ready, 'native');
  assert.deepEqual(older.scripts().map((s) => s.js), [[...STUB_FILES.native]]);
  assert.ok(older.calls.some((c) => c[0] === 'update'));
});

test('a worker waking again in the same browser session looks at nothing', async () => {
  const f = fakeChrome({ session: { pageStubMode: 'native' } });
  assert.equal(await installPageStubs({ chrome: f.chrome, log: quiet }).ready, 'native');
  assert.deepEqual(f.calls, []);
});

test('Firefox: its background page is a document, no offscreen one; no WebMCP there, so the polyfill', async () => {
  const f = fakeChrome({ native: true });
  globalThis.document = {};
  try {
    assert.equal(await installPageStubs({ chrome: f.chrome, log: quiet }).ready, 'polyfill');
    globalThis.document = { modelContext: {} };
    const g = fakeChrome();
    assert.equal(await installPageStubs({ chrome: g.chrome, log: quiet }).ready, 'native');
  } finally {
    delete globalThis.document;
  }
  assert.ok(!f.calls.some((c) => c[0] === 'createDocument'));
});

test('a probe that never answers: an error in the log, the stub for either mode stays, the document closed', async () => {
  const f = fakeChrome({ silent: true });
  const logs = [];
  const stubs = installPageStubs({ chrome: f.chrome, log: (l, m) => logs.push([l, m]) });
  await assert.rejects(stubs.ready, /did not answer/);
  await stubs.registered;
  assert.deepEqual(f.scripts().map((s) => s.js), [[...STUB_FILES.any]]);
  assert.ok(f.calls.some((c) => c[0] === 'closeDocument'));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(logs[0][0], 'error');
});

test('a browser without chrome.scripting (the tests\' fake) registers nothing', async () => {
  const stubs = installPageStubs({ chrome: /** @type {any} */ ({}), log: quiet });
  assert.equal(await stubs.ready, null);
  assert.equal(stubs.isRegistered(), true);
});

test('sameStub: Chrome\'s own account of a registration (files with a leading slash) is the same stub', () => {
  const want = stubScript('polyfill');
  assert.ok(sameStub({ ...want, js: want.js.map((f) => `/${f}`) }, want));
  assert.ok(!sameStub(stubScript('native'), want));
  assert.ok(!sameStub({ ...want, allFrames: false }, want));
  assert.ok(!sameStub({ ...want, world: 'ISOLATED' }, want));
  assert.ok(!sameStub(undefined, want));
});
