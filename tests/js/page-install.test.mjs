// background/page-install.js: the rest of the page code, into the one document whose stub asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPageInstall } from '../../extension/background/page-install.js';
import { ISOLATED_FILES, MAIN_FILES } from '../../extension/lib/page-files.js';
import { ourFrame } from '../../extension/lib/senders.js';

function fake() {
  const injected = [];
  const chrome = /** @type {any} */ ({
    runtime: { id: 'ours' },
    scripting: { executeScript: async (d) => { injected.push(d); return []; } },
  });
  const logs = [];
  return { chrome, injected, logs, install: createPageInstall({ chrome, log: (l, m) => logs.push([l, m]) }) };
}

/** As routes.js hands it on: our content scripts' frames only (lib/senders.js ourFrame). */
const request = (install, msg, sender, respond) => {
  const at = ourFrame(sender, { id: 'ours' });
  return at ? install.request(msg, sender, at, respond) : false;
};

const ask = (install, sender) => new Promise((resolve) => {
  const async = request(install, { type: 'page_install' }, sender, resolve);
  if (!async) setTimeout(() => resolve(null), 0);
});

const page = (over = {}) => ({ id: 'ours', tab: { id: 7 }, frameId: 3, documentId: 'D1', origin: 'https://a.test', url: 'https://a.test/x', ...over });

test('a stub in a web page gets the isolated files, into its document, once', async () => {
  const { install, injected } = fake();
  assert.deepEqual(await ask(install, page()), { ok: true });
  assert.deepEqual(injected, [{ target: { tabId: 7, documentIds: ['D1'] }, files: [...ISOLATED_FILES], injectImmediately: true }]);
  const again = await new Promise((resolve) => request(install, {}, page(), resolve));
  assert.deepEqual(again, { ok: false, why: 'again' });
  assert.equal(injected.length, 1);
  assert.deepEqual(install.counts(), { admitted: 1, refused: 1 });
});

test("polyfill (`main`): the MAIN world's full code first, then the isolated files", async () => {
  const { install, injected } = fake();
  const r = await new Promise((resolve) => request(install, { type: 'page_install', main: true }, page(), resolve));
  assert.deepEqual(r, { ok: true });
  assert.deepEqual(injected, [
    { target: { tabId: 7, documentIds: ['D1'] }, files: [...MAIN_FILES], world: 'MAIN', injectImmediately: true },
    { target: { tabId: 7, documentIds: ['D1'] }, files: [...ISOLATED_FILES], injectImmediately: true },
  ]);
  assert.equal(MAIN_FILES.at(-1), 'page/main/adopt.js');
});

test('Firefox (no documentId): by frame id; a reload of the same URL is another document (the stub names it)', async () => {
  const { install, injected } = fake();
  const firefox = page({ documentId: undefined });
  const asks = (doc) => new Promise((resolve) => request(install, { type: 'page_install', main: true, doc }, firefox, resolve));
  assert.deepEqual(await asks('7f0c3a52-0000-4000-8000-000000000001'), { ok: true });
  assert.deepEqual(injected[0].target, { tabId: 7, frameIds: [3] });
  assert.deepEqual(await asks('7f0c3a52-0000-4000-8000-000000000002'), { ok: true }); // reloaded
  assert.deepEqual(await asks('7f0c3a52-0000-4000-8000-000000000002'), { ok: false, why: 'again' });
  assert.equal(injected.length, 4); // MAIN and isolated files, twice
});

test('an about:srcdoc frame of a web page is one; extension pages, other extensions and tab-less senders are not', async () => {
  const { install, injected } = fake();
  await ask(install, page({ documentId: 'S', origin: 'https://a.test', url: 'about:srcdoc' }));
  assert.equal(injected.length, 1);
  for (const s of [
    page({ id: 'theirs', documentId: 'X1' }),
    page({ tab: undefined, documentId: 'X2' }),
    page({ origin: 'chrome-extension://ours', url: 'chrome-extension://ours/sidepanel/index.html', documentId: 'X3' }),
  ]) {
    assert.equal(request(install, {}, s, () => assert.fail('answered')), false);
  }
  assert.equal(injected.length, 1);
});

test('a tab whose frames ask past the cap: the rest go without, one warning', async () => {
  const { install, injected, logs } = fake();
  for (let i = 0; i < 300; i++) request(install, {}, page({ frameId: i, documentId: `d${i}` }), () => {});
  assert.ok(injected.length < 300 && injected.length > 0);
  assert.equal(logs.filter(([l]) => l === 'warning').length, 1);
});
