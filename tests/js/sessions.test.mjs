import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTable, cleanClientName, GROUP_COLORS } from '../../extension/lib/sessions.js';

test('sessions are named after their client, unique among live ones, with their own colours', () => {
  const t = new SessionTable();
  const a = t.ensure('c1', 'Claude Code', 1);
  const b = t.ensure('c2', 'Claude Code', 2);
  const c = t.ensure('c3', '  Cursor\n', 3);
  assert.deepEqual([a.title, b.title, c.title], ['Claude Code', 'Claude Code 2', 'Cursor']);
  assert.deepEqual([a.color, b.color, c.color], GROUP_COLORS.slice(0, 3));
  assert.equal(t.ensure('c1'), a); // found again, unchanged
  t.end('c1');
  assert.equal(t.ensure('c4', 'Claude Code').title, 'Claude Code'); // the name is free again
});

test('client names are tidied for a tab group title', () => {
  assert.equal(cleanClientName(''), 'MCP client');
  assert.equal(cleanClientName(undefined), 'MCP client');
  assert.equal(cleanClientName('a\tb'), 'a b');
  assert.equal(cleanClientName('x'.repeat(100)).length, 40);
});

test('tabs belong to one session; the newest added is current unless told otherwise', () => {
  const t = new SessionTable();
  t.ensure('c1', 'A');
  t.ensure('c2', 'B');
  t.addTab('c1', 10);
  t.addTab('c1', 11);
  assert.equal(t.get('c1').current, 10); // a second tab does not take over by itself
  t.select('c1', 11);
  assert.equal(t.get('c1').current, 11);
  assert.equal(t.ownerOf(11).id, 'c1');
  assert.equal(t.ownerOf(99), null);
  // Taken over by another session: gone from the first.
  t.addTab('c2', 11, { current: true });
  assert.deepEqual(t.get('c1').tabs, [10]);
  assert.equal(t.get('c1').current, 10);
  assert.equal(t.ownerOf(11).id, 'c2');
  assert.deepEqual(t.tabsMessage('c2'), { type: 'session_tabs', session: 'c2', tabs: [11], current: 11 });
});

test('closing the current tab moves to the most recently used one and is told once', () => {
  const t = new SessionTable();
  t.ensure('c1', 'A');
  t.addTab('c1', 1);
  t.addTab('c1', 2);
  t.addTab('c1', 3);
  t.select('c1', 2); // order of use: 1, 3, 2
  const s = t.removeTab(2, { url: 'https://a.test/', title: 'A' });
  assert.equal(s.id, 'c1');
  assert.equal(s.current, 3);
  assert.deepEqual(t.takeClosed('c1'), { tabId: 2, url: 'https://a.test/', title: 'A' });
  assert.equal(t.takeClosed('c1'), null);
  // A tab that is not the current one goes quietly.
  t.removeTab(1);
  assert.equal(t.takeClosed('c1'), null);
  t.removeTab(3);
  assert.equal(t.get('c1').current, null);
  assert.deepEqual(t.get('c1').tabs, []);
  assert.equal(t.removeTab(3), null); // twice: nothing
});

test('a replaced tab keeps its session and place; tabs a session opens are its own', () => {
  const t = new SessionTable();
  t.ensure('c1', 'A');
  t.addTab('c1', 5);
  t.replaceTab(5, 6);
  assert.equal(t.get('c1').current, 6);
  assert.equal(t.ownerOf(6).id, 'c1');
  assert.equal(t.ownerOf(5), null);
  const s = t.openedFrom(6, 7);
  assert.equal(s.id, 'c1');
  assert.equal(t.get('c1').current, 6); // a popup does not steal the current tab
  assert.deepEqual(t.get('c1').tabs, [7, 6]);
  assert.equal(t.openedFrom(99, 8), null); // opened from the user's tab: not ours
  assert.equal(t.openedFrom(6, 7), null); // already known
});

test('an ended session leaves its tabs to nobody and its activity is tracked', () => {
  const t = new SessionTable();
  t.ensure('c1', 'A', 100);
  t.addTab('c1', 1);
  t.touch('c1', 'click', 250);
  assert.equal(t.get('c1').lastActivity, 250);
  assert.equal(t.get('c1').lastTool, 'click');
  assert.equal(t.end('c1').tabs[0], 1);
  assert.equal(t.ownerOf(1), null);
  assert.equal(t.end('c1'), null);
  assert.deepEqual(t.tabsMessage('c1'), { type: 'session_tabs', session: 'c1', tabs: [], current: null });
});
