// lib/senders.js: the one check of "is this one of our own pages".
import test from 'node:test';
import assert from 'node:assert/strict';
import { isOurPage } from '../../extension/lib/senders.js';

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
