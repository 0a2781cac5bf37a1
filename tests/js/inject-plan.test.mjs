// Content scripts for tabs open before an install/update/reload (lib/inject-plan.js, the plan;
// background/open-tabs.js, chrome.scripting), and the site of about:blank/srcdoc frames
// (background/frame-ports.js keys them by their origin).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  ISOLATED_MARK, MAIN_MARK, SWEEP_CONCURRENCY, framesToInject, frameUrl, matchesPattern, probeFrame, registeredSet,
  scriptSets, tabsToProbe,
} from '../../extension/lib/inject-plan.js';
import { STUB_FILES, STUB_IDS, stubScript } from '../../extension/lib/page-files.js';
import { installOpenTabs } from '../../extension/background/open-tabs.js';
import { FramePorts } from '../../extension/background/frame-ports.js';
import { Registry } from '../../extension/lib/registry.js';
import { FakeEvent, Port, tool } from './fake-chrome.mjs';

const MANIFEST = JSON.parse(readFileSync(new URL('../../extension/manifest.json', import.meta.url), 'utf8'));

/** The sets a sweep injects: the registered MAIN stub (background/page-stubs.js), then the manifest's. */
const SETS = [registeredSet(stubScript('polyfill')), ...scriptSets(MANIFEST)];

test('the file lists: the MAIN stub the worker registered, then the manifest\'s isolated stub', () => {
  assert.equal(SETS.length, 2);
  assert.deepEqual(MANIFEST.content_scripts.map((c) => c.world ?? 'ISOLATED'), ['ISOLATED']);
  assert.equal(SETS[0].world, 'MAIN');
  assert.equal(SETS[0].mark, MAIN_MARK);
  assert.equal(SETS[1].world, 'ISOLATED');
  assert.equal(SETS[1].mark, ISOLATED_MARK);
  assert.deepEqual(SETS[0].files, STUB_FILES.polyfill);
  assert.deepEqual(SETS[1].files, ['page/isolated/stub.js']); // the rest on a frame's first use (lib/page-files.js)
  for (const s of SETS) {
    assert.equal(s.allFrames, true);
    assert.equal(s.matchAboutBlank, true);
    assert.equal(s.matchOriginAsFallback, true);
  }
  // Chrome may give a registered script's files back with a leading slash.
  assert.deepEqual(registeredSet({ ...stubScript('native'), js: ['/page/main/base.js'] }).files, ['page/main/base.js']);
  assert.equal(registeredSet({ id: 'x', js: [] }), null);
  assert.equal(registeredSet(null), null);
});

test('scriptSets skips entries without scripts and reads nothing from a manifest without any', () => {
  assert.deepEqual(scriptSets({ version: '1' }), []);
  assert.deepEqual(scriptSets({ content_scripts: [{ css: ['a.css'], matches: ['<all_urls>'] }, null] }), []);
  const [s] = scriptSets({ content_scripts: [{ js: ['a.js', 7, ''], matches: ['https://*/*'] }] });
  assert.deepEqual(s, {
    files: ['a.js'], world: 'ISOLATED', mark: ISOLATED_MARK, allFrames: false, matches: ['https://*/*'], excludeMatches: [],
    matchAboutBlank: false, matchOriginAsFallback: false,
  });
});

test('match patterns as Chrome reads them', () => {
  assert.ok(matchesPattern('http://*/*', 'http://127.0.0.1:8080/a?b'));
  assert.ok(matchesPattern('https://*/*', 'https://example.com/'));
  assert.ok(!matchesPattern('https://*/*', 'http://example.com/'));
  assert.ok(matchesPattern('*://*.example.com/*', 'https://example.com/x'));
  assert.ok(matchesPattern('*://*.example.com/*', 'http://a.b.example.com/x'));
  assert.ok(!matchesPattern('*://*.example.com/*', 'http://notexample.com/x'));
  assert.ok(!matchesPattern('*://*/*', 'file:///tmp/a.html'));
  assert.ok(matchesPattern('<all_urls>', 'file:///tmp/a.html'));
  assert.ok(!matchesPattern('<all_urls>', 'chrome://settings/'));
  assert.ok(matchesPattern('https://a.com/docs/*', 'https://a.com/docs/x'));
  assert.ok(!matchesPattern('https://a.com/docs/*', 'https://a.com/other'));
  assert.ok(matchesPattern('http://localhost:8080/*', 'http://localhost:8080/'));
  assert.ok(!matchesPattern('http://localhost:8080/*', 'http://localhost:9090/'));
  assert.ok(!matchesPattern('http://*/*', 'about:blank'));
  assert.ok(!matchesPattern('http://*/*', 'not a url'));
});

test('an about:blank/srcdoc/blob: frame is keyed by its origin; other frames by their URL', () => {
  assert.equal(frameUrl('https://a.com/x', 'https://a.com'), 'https://a.com/x');
  assert.equal(frameUrl('about:srcdoc', 'http://127.0.0.1:9000'), 'http://127.0.0.1:9000/');
  assert.equal(frameUrl('about:blank', 'https://a.com'), 'https://a.com/');
  assert.equal(frameUrl('blob:https://a.com/1234-5678', 'https://a.com'), 'https://a.com/');
  // An opaque origin (a data: or sandboxed frame) has no site.
  assert.equal(frameUrl('data:text/html,x', 'null'), 'data:text/html,x');
  assert.equal(frameUrl('about:blank', 'null'), 'about:blank');
  // A frame's own http(s) URL wins, whatever its origin (a sandboxed page's is "null").
  assert.equal(frameUrl('https://a.com/s', 'null'), 'https://a.com/s');
  assert.equal(frameUrl(undefined, 'https://a.com'), 'https://a.com/');
  assert.equal(frameUrl(undefined, undefined), '');
});

test('which tabs: web pages our scripts match, active and recent first; the rest quietly skipped', () => {
  const sets = SETS;
  const tabs = [
    { id: 1, url: 'https://old.com/', lastAccessed: 10 },
    { id: 2, url: 'chrome://settings/', lastAccessed: 99 },
    { id: 3, url: 'https://chromewebstore.google.com/detail/x', lastAccessed: 99 },
    { id: 4, url: 'file:///tmp/a.html', lastAccessed: 99 },
    { id: 5, url: 'http://recent.com/', lastAccessed: 50 },
    { id: 6, url: 'https://active.com/', active: true, lastAccessed: 1 },
    { id: 7, url: 'https://sleeping.com/', discarded: true, lastAccessed: 99 },
    { id: 8, lastAccessed: 99 },
    { url: 'https://noid.com/' },
    { id: 9, url: 'chrome-extension://abc/page.html' },
  ];
  assert.deepEqual(tabsToProbe(tabs, sets), [6, 5, 1]);
  // file: pages only when the user allowed file access, and only for sets matching file:.
  assert.deepEqual(tabsToProbe(tabs, sets, { fileAccess: true }), [6, 5, 1]);
  const fileSets = scriptSets({ content_scripts: [{ js: ['a.js'], matches: ['<all_urls>'] }] });
  assert.deepEqual(tabsToProbe(tabs, fileSets, { fileAccess: true }), [6, 4, 5, 1]);
  assert.deepEqual(tabsToProbe(null, sets), []);
});

test('which frames: those without our relay that the set is for, srcdoc/about:blank by origin', () => {
  const [main, isolated] = SETS;
  const results = [
    { frameId: 0, documentId: 'd0', result: { has: false, url: 'https://a.com/', origin: 'https://a.com' } },
    { frameId: 1, documentId: 'd1', result: { has: true, url: 'https://a.com/f', origin: 'https://a.com' } },
    { frameId: 2, documentId: 'd2', result: { has: false, url: 'about:srcdoc', origin: 'https://a.com' } },
    { frameId: 3, documentId: 'd3', result: { has: false, url: 'data:text/html,x', origin: 'null' } },
    { frameId: 4, documentId: 'd4' }, // the probe failed there
    { frameId: 5, documentId: 'd5', result: { has: false, url: 'chrome-error://chromewebdata/', origin: 'null' } },
    { frameId: 6, documentId: 'd6', result: { has: false, url: 'https://b.com/', origin: 'https://b.com' } },
    { frameId: 6, documentId: 'd6', result: { has: false, url: 'https://b.com/', origin: 'https://b.com' } },
  ];
  for (const set of [main, isolated]) {
    assert.deepEqual(framesToInject(results, set), { frameIds: [0, 2, 6], documentIds: ['d0', 'd2', 'd6'] });
  }
  // Without the fallback flags an srcdoc frame is not ours; without all_frames only the top is.
  assert.deepEqual(framesToInject(results, { ...main, matchAboutBlank: false, matchOriginAsFallback: false }).frameIds, [0, 6]);
  assert.deepEqual(framesToInject(results, { ...main, allFrames: false }).frameIds, [0]);
  // Old Chrome without documentId: frame ids.
  const noDocs = results.map(({ documentId, ...r }) => r);
  assert.deepEqual(framesToInject(noDocs, main), { frameIds: [0, 2, 6], documentIds: null });
  assert.deepEqual(framesToInject([], main), { frameIds: [], documentIds: null });
  assert.deepEqual(framesToInject(null, main), { frameIds: [], documentIds: null });
});

test('the probe reads the relay marker of the world it runs in, and the document\'s origin', () => {
  globalThis.location = /** @type {any} */ ({ href: 'https://a.com/x', origin: 'https://a.com' });
  try {
    assert.deepEqual(probeFrame(ISOLATED_MARK), { has: false, url: 'https://a.com/x', origin: 'https://a.com' });
    globalThis[Symbol.for(ISOLATED_MARK)] = true;
    assert.equal(probeFrame(ISOLATED_MARK).has, true);
    // An srcdoc frame: its URL's origin is opaque, its document's is the parent's.
    globalThis.location = /** @type {any} */ ({ href: 'about:srcdoc', origin: 'null' });
    globalThis.origin = 'https://a.com';
    assert.deepEqual(probeFrame(ISOLATED_MARK), { has: true, url: 'about:srcdoc', origin: 'https://a.com' });
  } finally {
    delete globalThis[Symbol.for(ISOLATED_MARK)];
    delete globalThis.location;
    delete globalThis.origin;
  }
  // The isolated world's stub, every frame's, really sets that marker.
  const stub = readFileSync(new URL('../../extension/page/isolated/stub.js', import.meta.url), 'utf8');
  assert.ok(stub.includes(`Symbol.for('${ISOLATED_MARK}')`));
});

/**
 * A browser for open-tabs.js: tabs with frames, each frame with or without our scripts (`has`:
 * both worlds; `main`, if given, the MAIN world's); the MAIN stub registered;
 * executeScript runs the probe for real and records file injections.
 */
function fakeBrowser(tabs, { session = {}, failTabs = [], hangTabs = [] } = {}) {
  const injected = [];
  const woken = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const chrome = {
    runtime: { getManifest: () => MANIFEST, onInstalled: new FakeEvent() },
    extension: { isAllowedFileSchemeAccess: async () => false },
    storage: {
      session: {
        data: { ...session },
        async get(key) { return key in this.data ? { [key]: this.data[key] } : {}; },
        async set(obj) { Object.assign(this.data, obj); },
      },
    },
    tabs: { query: async () => tabs.map(({ frames, ...t }) => t) },
    scripting: {
      async getRegisteredContentScripts({ ids }) {
        assert.deepEqual(ids, [...STUB_IDS]);
        return [stubScript('polyfill')];
      },
      async executeScript({ target, func, args, files, world, injectImmediately }) {
        assert.equal(injectImmediately, true);
        const tab = tabs.find((t) => t.id === target.tabId);
        if (failTabs.includes(target.tabId)) throw new Error(`Cannot access contents of url "${tab.url}".`);
        if (hangTabs.includes(target.tabId)) return new Promise(() => {});
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        if (func?.name === 'wakeStub') {
          // Once the files are in, the isolated stub of every frame looks at once (page/isolated/stub.js).
          assert.equal(world, 'ISOLATED');
          woken.push({ tabId: target.tabId, allFrames: target.allFrames, afterInjected: injected.length });
          let looked = 0;
          globalThis.webmcpSidecarStub = { late: () => looked++ };
          try {
            func();
          } finally {
            delete globalThis.webmcpSidecarStub;
          }
          assert.equal(looked, 1);
          func(); // a frame without our stub: nothing to wake
          return [];
        }
        if (func) {
          assert.equal(args[0], world === 'MAIN' ? MAIN_MARK : ISOLATED_MARK);
          const frames = target.allFrames ? tab.frames : tab.frames.filter((f) => f.frameId === 0);
          return frames.map((f) => {
            globalThis.location = /** @type {any} */ ({ href: f.url, origin: f.url.startsWith('about:') ? 'null' : f.origin });
            globalThis.origin = f.origin;
            if (world === 'MAIN' ? f.main ?? f.has : f.has) globalThis[Symbol.for(args[0])] = true;
            try {
              return { frameId: f.frameId, documentId: `doc-${target.tabId}-${f.frameId}`, result: func(...args) };
            } finally {
              delete globalThis[Symbol.for(args[0])];
              delete globalThis.location;
              delete globalThis.origin;
            }
          });
        }
        injected.push({ tabId: target.tabId, documentIds: target.documentIds, world, files });
        return [];
      },
    },
  };
  return { chrome, injected, woken, maxInFlight: () => maxInFlight };
}

/** page-stubs.js's `ready`: the polyfill's stub is registered. */
const stubs = Promise.resolve('polyfill');

const page = (id, url, frames = [{ frameId: 0, url, origin: new URL(url).origin, has: false }], extra = {}) =>
  ({ id, url, frames, lastAccessed: id, ...extra });

test('install: every open web page without our scripts gets both worlds, MAIN first, in its missing frames', async () => {
  const tabs = [
    page(1, 'https://a.com/', [
      { frameId: 0, url: 'https://a.com/', origin: 'https://a.com', has: false },
      { frameId: 3, url: 'about:srcdoc', origin: 'https://a.com', has: false },
    ]),
    page(2, 'https://b.com/', [{ frameId: 0, url: 'https://b.com/', origin: 'https://b.com', has: true }]),
    page(3, 'chrome://newtab/'),
  ];
  const b = fakeBrowser(tabs, { session: { openTabsSwept: true } });
  const logs = [];
  const openTabs = installOpenTabs({ chrome: b.chrome, log: (level, m) => logs.push([level, m]), stubs });
  assert.equal(b.chrome.runtime.onInstalled.listeners.length, 1);
  assert.deepEqual(await openTabs.sweep(), { tabs: 1, frames: 2 });
  assert.deepEqual(b.injected, [
    { tabId: 1, documentIds: ['doc-1-0', 'doc-1-3'], world: 'MAIN', files: STUB_FILES.polyfill },
    { tabId: 1, documentIds: ['doc-1-0', 'doc-1-3'], world: 'ISOLATED', files: MANIFEST.content_scripts[0].js },
  ]);
  // Then every probed tab's stubs are woken (Firefox put the manifest's scripts into tab 2 itself).
  assert.deepEqual(b.woken.map((w) => [w.tabId, w.allFrames]).sort(), [[1, true], [2, true]]);
  assert.equal(b.woken.find((w) => w.tabId === 1).afterInjected, 2);
  assert.equal(logs.length, 1);
  assert.match(logs[0][1], /1 tab\(s\)/);
});

test('a tab whose isolated stub is there but not the MAIN one (Firefox adds only the manifest\'s) gets the MAIN stub', async () => {
  const tabs = [page(1, 'https://a.com/', [{ frameId: 0, url: 'https://a.com/', origin: 'https://a.com', has: true, main: false }])];
  const b = fakeBrowser(tabs, { session: { openTabsSwept: true } });
  const openTabs = installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  assert.deepEqual(await openTabs.sweep(), { tabs: 1, frames: 1 });
  assert.deepEqual(b.injected, [{ tabId: 1, documentIds: ['doc-1-0'], world: 'MAIN', files: STUB_FILES.polyfill }]);
});

test('the sweep waits for the MAIN stub\'s registration', async () => {
  let registered;
  const late = new Promise((r) => { registered = r; });
  const b = fakeBrowser([page(1, 'https://a.com/')], { session: { openTabsSwept: true } });
  const openTabs = installOpenTabs({ chrome: b.chrome, log: () => {}, stubs: late });
  const done = openTabs.sweep();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(b.injected.length, 0);
  registered('polyfill');
  assert.deepEqual(await done, { tabs: 1, frames: 1 });
  assert.deepEqual(b.injected.map((i) => i.world), ['MAIN', 'ISOLATED']);
});

test('a tab we may not script, or that never answers, is skipped quietly and the others still get theirs', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const tabs = [page(1, 'https://denied.com/'), page(2, 'https://hung.com/'), page(3, 'https://fine.com/')];
  const b = fakeBrowser(tabs, { session: { openTabsSwept: true }, failTabs: [1], hangTabs: [2] });
  const openTabs = installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  const done = openTabs.sweep();
  // Let the fine tab finish (its fake executeScript waits one timer tick), then give up on the hung one.
  for (let i = 0; i < 20; i++) {
    t.mock.timers.tick(1);
    await new Promise((r) => setImmediate(r));
  }
  t.mock.timers.tick(10_000);
  assert.deepEqual(await done, { tabs: 1, frames: 1 });
  assert.deepEqual(b.injected.map((i) => [i.tabId, i.world]), [[3, 'MAIN'], [3, 'ISOLATED']]);
});

test('a second sweep finds the scripts and injects nothing; sweeps at once share one run', async () => {
  const tabs = [page(1, 'https://a.com/')];
  const b = fakeBrowser(tabs, { session: { openTabsSwept: true } });
  const openTabs = installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  const [x, y] = [openTabs.sweep(), openTabs.sweep()];
  assert.equal(x, y);
  await x;
  assert.equal(b.injected.length, 2);
  tabs[0].frames[0].has = true; // what the injection did
  assert.deepEqual(await openTabs.sweep(), { tabs: 0, frames: 0 });
  assert.equal(b.injected.length, 2);
});

test('many tabs are handled a few at a time', async () => {
  const tabs = Array.from({ length: 20 }, (_, i) => page(i + 1, `https://s${i}.com/`));
  const b = fakeBrowser(tabs, { session: { openTabsSwept: true } });
  const openTabs = installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  assert.deepEqual(await openTabs.sweep(), { tabs: 20, frames: 20 });
  assert.ok(b.maxInFlight() <= SWEEP_CONCURRENCY, `${b.maxInFlight()} at once`);
  assert.ok(b.maxInFlight() > 1);
});

test('the first start since the extension loaded sweeps once and remembers it for the session', async () => {
  const tabs = [page(1, 'https://a.com/')];
  const b = fakeBrowser(tabs);
  installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  for (let i = 0; i < 50 && !b.chrome.storage.session.data.openTabsSwept; i++) await new Promise((r) => setTimeout(r, 2));
  assert.equal(b.chrome.storage.session.data.openTabsSwept, true);
  assert.equal(b.injected.length, 2);
  // A worker that wakes up again in the same session does nothing.
  const again = fakeBrowser(tabs, { session: b.chrome.storage.session.data });
  installOpenTabs({ chrome: again.chrome, log: () => {}, stubs });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(again.injected.length, 0);
});

test('onInstalled sweeps', async () => {
  const b = fakeBrowser([page(1, 'https://a.com/')], { session: { openTabsSwept: true } });
  installOpenTabs({ chrome: b.chrome, log: () => {}, stubs });
  b.chrome.runtime.onInstalled.fire({ reason: 'update' });
  for (let i = 0; i < 50 && b.injected.length < 2; i++) await new Promise((r) => setTimeout(r, 2));
  assert.deepEqual(b.injected.map((i) => i.world), ['MAIN', 'ISOLATED']);
});

test('a browser without chrome.scripting gets no triggers', async () => {
  const chrome = /** @type {any} */ ({ runtime: { onInstalled: new FakeEvent() }, tabs: {} });
  const openTabs = installOpenTabs({ chrome, log: () => {}, stubs });
  assert.equal(chrome.runtime.onInstalled.listeners.length, 0);
  assert.deepEqual(await openTabs.sweep(), { tabs: 0, frames: 0 });
});

test('an srcdoc/about:blank frame\'s tools belong to its origin\'s site, not to no site', () => {
  const registry = new Registry();
  const chrome = /** @type {any} */ ({ runtime: { lastError: undefined } });
  const frames = new FramePorts({ chrome, registry, changed: () => {}, portGone: () => {} });
  const connect = (frameId, url, origin) => {
    const port = new Port(chrome, 'webmcp-page', { tab: { id: 1, windowId: 1, url: 'https://a.com/' }, frameId, url, origin });
    frames.connect(port, { tab: port.sender.tab, tabId: 1, frameId }, (frame, msg) => frames.report(frame, msg));
    return port;
  };
  connect(0, 'https://a.com/', 'https://a.com').receive({ type: 'tools', url: 'https://a.com/', native: false, tools: [tool('top')] });
  // The page's own claim (`url`) is not what decides: the browser's sender.origin is.
  connect(2, 'about:srcdoc', 'https://a.com').receive({ type: 'tools', url: 'https://evil.com/', native: false, tools: [tool('inner')] });
  connect(3, 'data:text/html,x', 'null').receive({ type: 'tools', url: 'https://a.com/', native: false, tools: [tool('opaque')] });
  assert.deepEqual(registry.siteTools('a.com').map((t) => t.name), ['inner', 'top']);
  assert.equal(frames.get(1, 2)?.site, 'a.com');
  assert.equal(frames.get(1, 2)?.https, true);
  assert.deepEqual(registry.sites(), ['a.com']);
});
