import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InstallGate, FRAME_LIMIT, TAB_LIMIT } from '../../extension/lib/install-gate.js';

test('one install per document, however often it asks', () => {
  const g = new InstallGate();
  assert.equal(g.admit({ tabId: 1, frameId: 0, document: 'A', now: 0 }), 'ok');
  for (let i = 0; i < 1000; i++) assert.equal(g.admit({ tabId: 1, frameId: 0, document: 'A', now: i }), 'again');
  assert.equal(g.admitted, 1);
  assert.equal(g.refused, 1000);
});

test('a frame that reloads itself in a loop is capped, and gets one again a second later', () => {
  const g = new InstallGate();
  let n = 0;
  for (let i = 0; i < 100; i++) if (g.admit({ tabId: 1, frameId: 5, document: `d${i}`, now: 0 }) === 'ok') n++;
  assert.equal(n, FRAME_LIMIT.burst);
  assert.equal(g.admit({ tabId: 1, frameId: 5, document: 'late', now: 10 }), 'capped');
  assert.equal(g.admit({ tabId: 1, frameId: 5, document: 'later', now: FRAME_LIMIT.intervalMs }), 'ok');
  // Another frame of the tab is not held back by that one.
  assert.equal(g.admit({ tabId: 1, frameId: 6, document: 'other', now: 10 }), 'ok');
});

test('a tab making many frames ask is capped as a whole', () => {
  const g = new InstallGate();
  let n = 0;
  for (let i = 1; i <= 1000; i++) if (g.admit({ tabId: 2, frameId: i, document: `d${i}`, now: 0 }) === 'ok') n++;
  assert.equal(n, TAB_LIMIT.burst);
  assert.equal(g.admit({ tabId: 3, frameId: 0, document: 'x', now: 0 }), 'ok'); // other tabs unaffected
});

test("the top frame is not held back by iframes (an ad) that spent the tab's bucket", () => {
  const g = new InstallGate();
  for (let i = 1; i <= 1000; i++) g.admit({ tabId: 2, frameId: i, document: `d${i}`, now: 0 });
  assert.equal(g.admit({ tabId: 2, frameId: 77777, document: 'sub', now: 0 }), 'capped');
  assert.equal(g.admit({ tabId: 2, frameId: 0, document: 'top', now: 0 }), 'ok');
  // ... but a top frame reloading itself in a loop is capped by its own bucket.
  let n = 1;
  for (let i = 0; i < 100; i++) if (g.admit({ tabId: 2, frameId: 0, document: `top${i}`, now: 0 }) === 'ok') n++;
  assert.equal(n, FRAME_LIMIT.burst);
});

test('the documents remembered are bounded', () => {
  const g = new InstallGate({ maxDocuments: 3 });
  for (let i = 0; i < 5; i++) g.admit({ tabId: i, frameId: 0, document: `d${i}`, now: 0 });
  assert.equal(g.documents.size, 3);
  assert.ok(!g.documents.has('d0'));
});
