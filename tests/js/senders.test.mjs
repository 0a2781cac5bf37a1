// lib/senders.js: the one check of "is this sender ours" (our pages; our content scripts' frames).
import test from 'node:test';
import assert from 'node:assert/strict';
import { isOurPage, ourFrame } from '../../extension/lib/senders.js';

const runtime = { id: 'ours', getURL: (p) => `chrome-extension://ours/${p}` };

test('our pages, in their pane or in a tab, are ours', () => {
  assert.equal(isOurPage({ id: 'ours', url: 'chrome-extension://ours/sidepanel/panel.html' }, runtime), true);
  assert.equal(isOurPage({ id: 'ours', url: 'chrome-extension://ours/sidepanel/panel.html', tab: { id: 3 } }, runtime), true);
});

test('content scripts, other extensions and senders without a URL are not', () => {
  assert.equal(isOurPage({ id: 'ours', url: 'https://evil.test/', tab: { id: 3 } }, runtime), false);
  assert.equal(isOurPage({ id: 'other', url: 'chrome-extension://ours/sidepanel/panel.html' }, runtime), false);
  assert.equal(isOurPage({ id: 'ours', url: 'chrome-extension://other/panel.html' }, runtime), false);
  assert.equal(isOurPage({ id: 'ours' }, runtime), false);
  assert.equal(isOurPage(undefined, runtime), false);
});

test("ourFrame: one of our content scripts, in the tab and frame the browser says; anyone else null", () => {
  const tab = { id: 3, windowId: 1 };
  assert.deepEqual(ourFrame({ id: 'ours', url: 'https://a.test/', tab, frameId: 0 }, runtime), { tab, tabId: 3, frameId: 0 });
  assert.deepEqual(ourFrame({ id: 'ours', url: 'https://a.test/f', tab, frameId: 7 }, runtime)?.frameId, 7);
  assert.equal(ourFrame({ id: 'other', url: 'https://a.test/', tab, frameId: 0 }, runtime), null);
  assert.equal(ourFrame({ id: 'ours', url: 'chrome-extension://ours/sidepanel/panel.html' }, runtime), null, 'a page of ours not in a tab');
  assert.equal(ourFrame({ id: 'ours', tab: { id: -1 }, frameId: 0 }, runtime), null);
  assert.equal(ourFrame({ id: 'ours', tab }, runtime), null, 'no frame');
  assert.equal(ourFrame(undefined, runtime), null);
});
