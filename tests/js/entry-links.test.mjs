// MCP entries' own links (extension/background/entry-links.js) in the worker, against a fake
// chrome.* and a fake WebSocket: which offers open one, whose calls a link may carry, where
// results go, and what a closing link does to the calls it brought.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ENTRY_LINKS } from '../../extension/background/entry-links.js';
import { checkHostMessage } from '../../extension/lib/messages.js';
import { MAX_LINK_FRAME, RESULT_PART_CHARS } from '../../extension/lib/generated/protocol.js';
import { FakeWS, workerWithFakeWS } from './fake-ws.mjs';
import { tick } from './fake-chrome.mjs';

const TOKEN = 'E'.repeat(40) + '_-y';
const call = (id, extra = {}) => ({ type: 'call', id, site: 'b.com', tool: 'bx', args: {}, timeout_ms: 5000, max_bytes: 1 << 26, ...extra });

/** A worker on FakeWS with b.com's `bx` in tab 1 (fake-ws.mjs), and a way to open entries' links. */
async function worker(t) {
  const { w, frame } = await workerWithFakeWS(t);
  /** Entry `conn`'s link, offered and accepted. */
  const linkOf = (conn, port = 40200) => {
    w.host({ type: 'entry_link', conn, port, token: TOKEN });
    const ws = FakeWS.made.at(-1);
    ws.accept();
    return ws;
  };
  return { w, frame, linkOf };
}

test('the worker checks an entry link offer before opening anything', async (t) => {
  const good = checkHostMessage({ type: 'entry_link', conn: 'c12', port: 40200, token: TOKEN, extra: 1 });
  assert.deepEqual(good, { ok: true, msg: { type: 'entry_link', conn: 'c12', port: 40200, token: TOKEN } });
  const bad = [
    { conn: 'h1' }, { conn: 'c1.2' }, { conn: 'c' }, { conn: '../c1' }, { conn: 7 }, { conn: 'c'.padEnd(14, '1') },
    { port: 0 }, { port: 65536 }, { port: '1' }, { token: 'short' }, { token: `${TOKEN}/x` },
  ];
  for (const b of bad) {
    assert.equal(checkHostMessage({ type: 'entry_link', conn: 'c1', port: 40200, token: TOKEN, ...b }).ok, false, JSON.stringify(b));
  }
  const { w } = await worker(t);
  w.host({ type: 'entry_link', conn: 'c1.1', port: 40200, token: TOKEN });
  w.host({ type: 'entry_link', conn: 'c1', port: 99999, token: TOKEN });
  w.host({ type: 'entry_link', conn: 'c1', port: 4000, token: 'ws://evil' });
  assert.equal(FakeWS.made.length, 0);
  const logged = w.fromHost().filter((m) => m.type === 'log').map((m) => m.message);
  assert.equal(logged.length, 3);
  assert.ok(logged.every((m) => m.includes('malformed entry_link')));
});

test("an entry's calls come on its link and their results go back on it, not to the host", async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  assert.equal(c1.url, `ws://127.0.0.1:40200/link/${TOKEN}`);
  assert.deepEqual(w.status().entryLinks, { c1: 'open' });
  assert.ok(!JSON.stringify(w.status()).includes(TOKEN), 'the status the panels get has no token');

  c1.receive(call('c1.1'));
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['call', 'c1.1']]);
  frame.receive({ type: 'result', id: 'c1.1', ok: true, value: '"direct"' });
  assert.deepEqual(c1.take().map((m) => [m.type, m.id, m.value]), [['result', 'c1.1', '"direct"']]);
  assert.deepEqual(w.fromHost(), []);

  // A call the host routed (same entry, before its link was open) is answered the host's way.
  w.call('c1.2', 'b.com', 'bx');
  frame.take();
  frame.receive({ type: 'result', id: 'c1.2', ok: true, value: '"via host"' });
  assert.deepEqual(c1.take(), []);
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.id]), [['result', 'c1.2']]);

  // A cancel on the link reaches the page.
  c1.receive(call('c1.3'));
  frame.take();
  c1.receive({ type: 'cancel', id: 'c1.3' });
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['cancel', 'c1.3']]);
});

test("a link carries only its own entry's calls; anything else from it is refused", async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  const c2 = linkOf('c2', 40201);
  c2.receive(call('c2.1'));
  frame.take();
  c1.receive(call('c2.9'));
  c1.receive({ type: 'cancel', id: 'c2.1' });
  c1.receive(call('c10.1')); // a prefix of another id is not enough
  c1.receive(call('h.1'));
  c1.receive({ type: 'browser_call', id: 'c1.5', tool: 'navigate', args: {} });
  c1.receive({ type: 'entry_link', conn: 'c1', port: 1, token: TOKEN });
  assert.deepEqual(frame.take(), [], 'nothing reached the page');
  const logs = w.fromHost().filter((m) => m.type === 'log').map((m) => m.message);
  assert.equal(logs.length, 6);
  assert.equal(w.worker.entryLinks.refused, 4);
  assert.equal(FakeWS.made.length, 2);
  // c2's call still runs and still answers on c2's link.
  frame.receive({ type: 'result', id: 'c2.1', ok: true, value: '1' });
  assert.deepEqual(c2.take().map((m) => m.id), ['c2.1']);
  assert.deepEqual(c1.take(), []);
});

test('a long result goes back in chunks on the link its call came on, named by its id', async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  c1.receive(call('c1.1'));
  frame.take();
  const value = JSON.stringify('x'.repeat(200_000));
  frame.receive({ type: 'result', id: 'c1.1', ok: true, value });
  assert.deepEqual(w.fromHost(), [], 'nothing of it on the native port');
  const chunks = c1.take();
  assert.ok(chunks.length === 4 && chunks.every((c, i) => c.type === 'chunk' && c.cid === 'c1.1' && c.seq === i));
  assert.deepEqual(chunks.map((c) => c.last), [false, false, false, true]);
  assert.ok(chunks.every((c) => c.data.length <= RESULT_PART_CHARS));
  assert.ok(chunks.every((c) => new TextEncoder().encode(JSON.stringify(c)).length <= MAX_LINK_FRAME));
  const whole = JSON.parse(chunks.map((c) => c.data).join(''));
  assert.deepEqual([whole.type, whole.id, whole.value], ['result', 'c1.1', value]);
  c1.close();
  assert.deepEqual(frame.take(), [], 'no cancel for a call that was answered');
});

test('a result is measured whole, envelope and all, before it takes the link', async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  c1.receive(call('c1.1'));
  frame.take();
  // The value alone is under the 64 Ki-unit cut; with its envelope the message is not.
  const value = JSON.stringify('x'.repeat(65_520));
  frame.receive({ type: 'result', id: 'c1.1', ok: true, value });
  assert.deepEqual(w.fromHost(), []);
  const chunks = c1.take();
  assert.ok(chunks.length === 2 && chunks.every((c) => c.type === 'chunk' && c.cid === 'c1.1'));
  const whole = JSON.parse(chunks.map((c) => c.data).join(''));
  assert.deepEqual([whole.id, whole.value], ['c1.1', value]);
});

test('a long result whose link closed meanwhile takes the native port in chunks', async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  c1.receive(call('c1.1'));
  frame.take();
  c1.readyState = 2; // closing: no onclose yet, so the call is still the link's
  const value = JSON.stringify('x'.repeat(200_000));
  frame.receive({ type: 'result', id: 'c1.1', ok: true, value });
  assert.deepEqual(c1.take(), []);
  const chunks = w.fromHost();
  assert.ok(chunks.length === 4 && chunks.every((c) => c.type === 'chunk'));
  assert.equal(JSON.parse(chunks.map((c) => c.data).join('')).id, 'c1.1');
});

test('a link that closes cancels the calls it brought; a later result takes the host', async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  c1.receive(call('c1.1'));
  c1.receive(call('c1.2'));
  frame.receive({ type: 'result', id: 'c1.2', ok: true, value: '2' });
  frame.take();
  c1.take();
  c1.close();
  assert.deepEqual(w.status().entryLinks, {});
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['cancel', 'c1.1']]);
  frame.receive({ type: 'result', id: 'c1.1', ok: false, error: { code: 'cancelled', message: 'stopped' } });
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.id]), [['result', 'c1.1']]);
});

test("a result goes back by its own call's way; a dropped link cancels exactly the calls whose way it is", async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  const c2 = linkOf('c2', 40201);
  c1.receive(call('c1.1'));
  c1.receive(call('c1.2'));
  w.call('c1.3', 'b.com', 'bx'); // c1's too, but it came through the host
  c2.receive(call('c2.1'));
  assert.deepEqual(frame.take().map((m) => m.id), ['c1.1', 'c1.2', 'c1.3', 'c2.1']);
  const way = (id) => w.worker.pending.get(id)?.reply;
  assert.deepEqual(['c1.1', 'c1.2', 'c1.3', 'c2.1'].map((id) => way(id)?.via), ['entry', 'entry', 'host', 'entry']);
  assert.equal(way('c1.1'), way('c1.2'), "one link's calls share its reply");
  assert.notEqual(way('c1.1'), way('c2.1'));

  frame.receive({ type: 'result', id: 'c1.2', ok: true, value: '2' });
  frame.receive({ type: 'result', id: 'c2.1', ok: true, value: '21' });
  assert.deepEqual(c1.take().map((m) => [m.id, m.value]), [['c1.2', '2']]);
  assert.deepEqual(c2.take().map((m) => [m.id, m.value]), [['c2.1', '21']]);
  assert.deepEqual(w.fromHost(), []);

  // c1's link drops: its one call still out is cancelled; the host's call of c1 and c2's run on.
  c2.receive(call('c2.2'));
  frame.take();
  c1.close();
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['cancel', 'c1.1']]);
  assert.deepEqual([...w.worker.pending.keys()].sort(), ['c1.1', 'c1.3', 'c2.2']);
  frame.receive({ type: 'result', id: 'c1.1', ok: false, error: { code: 'cancelled', message: 'stopped' } });
  frame.receive({ type: 'result', id: 'c1.3', ok: true, value: '3' });
  frame.receive({ type: 'result', id: 'c2.2', ok: true, value: '22' });
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.id]), [['result', 'c1.1'], ['result', 'c1.3']]);
  assert.deepEqual(c2.take().map((m) => m.id), ['c2.2']);
  assert.equal(w.worker.pending.size, 0);
});

test("a dropped link cancels its call that waits for a loading tab's tool, answered the host's way", async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const c1 = linkOf('c1');
  // Tab 1 loads its next page: a call for bx waits for the new page's tools (tool-waits.js).
  const loading = { id: 1, windowId: 1, url: 'http://b.com/next', status: 'loading' };
  w.chrome.tabs.get = async () => loading;
  w.chrome.tabs.onUpdated.fire(1, { status: 'loading', url: loading.url }, loading);
  frame.drop();
  await tick();
  w.fromHost();
  c1.receive(call('c1.1'));
  await tick();
  assert.equal(w.worker.pending.get('c1.1')?.stage, 'waiting');
  c1.close();
  assert.equal(w.worker.pending.size, 0);
  assert.deepEqual(w.fromHost().filter((m) => m.type === 'result').map((m) => [m.id, m.error?.code]), [['c1.1', 'cancelled']]);
  assert.deepEqual(c1.take(), []);
});

test('a new offer of the same entry replaces its link; the native port closing closes them all', async (t) => {
  const { w, frame, linkOf } = await worker(t);
  const old = linkOf('c1');
  old.receive(call('c1.1'));
  frame.take();
  const current = linkOf('c1', 40300);
  assert.equal(old.readyState, FakeWS.CLOSED);
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['cancel', 'c1.1']]);
  old.onclose?.({ code: 1006 }); // late: changes nothing
  assert.deepEqual(w.status().entryLinks, { c1: 'open' });
  const other = linkOf('c2', 40201);
  w.native().drop('Native host has exited.');
  assert.equal(current.readyState, FakeWS.CLOSED);
  assert.equal(other.readyState, FakeWS.CLOSED);
  assert.deepEqual(w.status().entryLinks, {});
});

test(`at most ${MAX_ENTRY_LINKS} entry links at once`, async (t) => {
  const { w, linkOf } = await worker(t);
  for (let i = 1; i <= MAX_ENTRY_LINKS + 3; i++) w.host({ type: 'entry_link', conn: `c${i}`, port: 40000 + i, token: TOKEN });
  assert.equal(FakeWS.made.length, MAX_ENTRY_LINKS);
  assert.equal(Object.keys(w.status().entryLinks).length, MAX_ENTRY_LINKS);
  const refused = w.fromHost().filter((m) => m.type === 'log' && m.message.includes('are open already'));
  assert.equal(refused.length, 3);
  FakeWS.made[0].close();
  linkOf('c99');
  assert.equal(Object.keys(w.status().entryLinks).length, MAX_ENTRY_LINKS);
});

test('an offer whose WebSocket cannot even be made takes no slot', async (t) => {
  const { w } = await worker(t);
  // As Chromium does for a port it refuses (e.g. 6000): the constructor throws.
  w.worker.entryLinks.WebSocket = /** @type {any} */ (class { constructor() { throw new Error('The port 6000 is not allowed.'); } });
  w.host({ type: 'entry_link', conn: 'c1', port: 6000, token: TOKEN });
  assert.deepEqual(w.status().entryLinks, {});
  assert.equal(w.worker.entryLinks.links.size, 0);
  assert.ok(w.fromHost().some((m) => m.type === 'log' && m.message.includes('entry link not opened')));
});
