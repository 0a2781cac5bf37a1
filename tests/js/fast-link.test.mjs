// The fast link (extension/background/fast-link.js) on its own, and in the worker against a fake
// chrome.* and a fake WebSocket: which offers open it, what takes it, and what happens when it
// is not open.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FastLink, fastLinkUrl } from '../../extension/background/fast-link.js';
import { checkHostMessage } from '../../extension/lib/messages.js';
import { FakeWS, workerWithFakeWS } from './fake-ws.mjs';

const TOKEN = 'T'.repeat(40) + '_-x';

function link() {
  FakeWS.made = [];
  const got = [];
  const logs = [];
  const fast = new FastLink({
    WebSocket: /** @type {any} */ (FakeWS), onMessage: (m) => got.push(m), log: (level, msg) => logs.push([level, msg]),
  });
  return { fast, got, logs };
}

test('the URL is the loopback address, the port and the token in the path', () => {
  assert.equal(fastLinkUrl(40123, TOKEN), `ws://127.0.0.1:40123/link/${TOKEN}`);
});

test('nothing goes over the link until it is open; then messages go both ways as JSON', () => {
  const { fast, got, logs } = link();
  assert.equal(fast.state(), 'closed');
  assert.equal(fast.postText(JSON.stringify({ type: 'result', id: 'a' })), false);
  fast.open(40123, TOKEN);
  const [ws] = FakeWS.made;
  assert.equal(fast.state(), 'connecting');
  assert.equal(fast.postText(JSON.stringify({ type: 'result', id: 'a' })), false);
  ws.accept();
  assert.equal(fast.state(), 'open');
  assert.equal(fast.postText(JSON.stringify({ type: 'result', id: 'b', value: 'é😀' })), true);
  assert.deepEqual(ws.take(), [{ type: 'result', id: 'b', value: 'é😀' }]);
  ws.receive({ type: 'call', id: 'c1' });
  ws.receive('{not json');
  ws.onmessage({ data: new ArrayBuffer(4) });
  assert.deepEqual(got, [{ type: 'call', id: 'c1' }]);
  assert.deepEqual(logs.map(([level]) => level), ['warning', 'warning']);
  ws.close();
  assert.equal(fast.state(), 'closed');
  assert.equal(fast.postText(JSON.stringify({ type: 'result', id: 'c' })), false);
});

test('a new offer replaces the open link; the old one closing later changes nothing', () => {
  const { fast } = link();
  fast.open(1, TOKEN);
  const [old] = FakeWS.made;
  old.accept();
  fast.open(2, TOKEN);
  const [, current] = FakeWS.made;
  assert.equal(old.readyState, FakeWS.CLOSED);
  current.accept();
  old.onclose?.({ code: 1006 });
  assert.equal(fast.state(), 'open');
  assert.ok(current.url.includes(':2/'));
});

test('the worker checks an offer before opening anything', () => {
  const good = checkHostMessage({ type: 'fast_link', port: 40123, token: TOKEN, extra: 1 });
  assert.deepEqual(good, { ok: true, msg: { type: 'fast_link', port: 40123, token: TOKEN } });
  const bad = [
    { port: 0 }, { port: 65536 }, { port: '40123' }, { port: 1.5 }, { token: 'short' },
    { token: `${TOKEN}/../x` }, { token: `${TOKEN}?a=b` }, { token: 'x'.repeat(129) }, { token: 7 },
  ];
  for (const b of bad) {
    const c = checkHostMessage({ type: 'fast_link', port: 40123, token: TOKEN, ...b });
    assert.equal(c.ok, false, JSON.stringify(b));
  }
});

test('in the worker: a bad offer opens nothing and is logged to the host', async (t) => {
  const { w } = await workerWithFakeWS(t);
  w.host({ type: 'fast_link', port: 99999, token: TOKEN });
  w.host({ type: 'fast_link', port: 4000, token: 'ws://evil' });
  assert.equal(FakeWS.made.length, 0);
  const logged = w.fromHost().filter((m) => m.type === 'log').map((m) => m.message);
  assert.equal(logged.length, 2);
  assert.ok(logged.every((m) => m.includes('malformed fast_link')));
});

test('in the worker: calls come over the link, results go back on it; long ones in chunks on the native port', async (t) => {
  const { w, frame } = await workerWithFakeWS(t);
  w.host({ type: 'fast_link', port: 40123, token: TOKEN });
  const [ws] = FakeWS.made;
  assert.equal(ws.url, `ws://127.0.0.1:40123/link/${TOKEN}`);
  ws.accept();
  assert.equal(w.status().fastLink, 'open');
  assert.ok(!JSON.stringify(w.status()).includes(TOKEN), 'the status the panels get has no token');

  ws.receive({ type: 'call', id: 'c1', site: 'b.com', tool: 'bx', args: {}, timeout_ms: 5000, max_bytes: 1 << 26 });
  assert.deepEqual(frame.take().map((m) => [m.type, m.id]), [['call', 'c1']]);
  frame.receive({ type: 'result', id: 'c1', ok: true, value: '"fast"' });
  assert.deepEqual(ws.take().map((m) => [m.type, m.id, m.value]), [['result', 'c1', '"fast"']]);
  assert.deepEqual(w.fromHost(), [], 'nothing on the native port');

  ws.receive({ type: 'call', id: 'c2', site: 'b.com', tool: 'bx', args: {}, timeout_ms: 5000, max_bytes: 1 << 26 });
  frame.take();
  const value = JSON.stringify('x'.repeat(200_000));
  frame.receive({ type: 'result', id: 'c2', ok: true, value });
  assert.deepEqual(ws.take(), []);
  const chunks = w.fromHost();
  assert.ok(chunks.length === 4 && chunks.every((c) => c.type === 'chunk' && c.cid === chunks[0].cid));
  assert.equal(JSON.parse(chunks.map((c) => c.data).join('')).value, value);

  // Closed: the native port carries results again.
  ws.close();
  assert.equal(w.status().fastLink, 'closed');
  w.call('c3', 'b.com', 'bx');
  frame.take();
  frame.receive({ type: 'result', id: 'c3', ok: true, value: '"native"' });
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.id]), [['result', 'c3']]);
});

test('in the worker: the link closes with the native port (its host is gone)', async (t) => {
  const { w } = await workerWithFakeWS(t);
  w.host({ type: 'fast_link', port: 40123, token: TOKEN });
  const [ws] = FakeWS.made;
  ws.accept();
  w.native().drop('Native host has exited.');
  assert.equal(ws.readyState, FakeWS.CLOSED);
  assert.equal(w.status().fastLink, 'closed');
});

test('the link carries calls and cancels only: anything else from it is refused and logged', () => {
  const { fast, got, logs } = link();
  fast.open(40123, TOKEN);
  const [ws] = FakeWS.made;
  ws.accept();
  for (const type of ['skills', 'browser_call', 'fast_link', 'host_hello', 'chunk']) ws.receive({ type, id: 'x' });
  ws.receive([1, 2]);
  ws.receive('null');
  ws.receive({ type: 'cancel', id: 'c9' });
  assert.deepEqual(got, [{ type: 'cancel', id: 'c9' }]);
  assert.equal(logs.length, 7);
  assert.ok(logs.every(([level, msg]) => level === 'warning' && msg.includes('carries calls only')));
});

test('in the worker: a result is measured whole, envelope and all, before it takes the link', async (t) => {
  const { w, frame } = await workerWithFakeWS(t);
  w.host({ type: 'fast_link', port: 40123, token: TOKEN });
  const [ws] = FakeWS.made;
  ws.accept();
  ws.receive({ type: 'call', id: 'e1', site: 'b.com', tool: 'bx', args: {}, timeout_ms: 5000, max_bytes: 1 << 26 });
  frame.take();
  // The value alone is under the 64 Ki-unit cut; with its envelope the message is not.
  const value = JSON.stringify('x'.repeat(65_520));
  frame.receive({ type: 'result', id: 'e1', ok: true, value });
  assert.deepEqual(ws.take(), []);
  const chunks = w.fromHost();
  assert.ok(chunks.length === 2 && chunks.every((c) => c.type === 'chunk'));
  const whole = JSON.parse(chunks.map((c) => c.data).join(''));
  assert.deepEqual([whole.id, whole.value], ['e1', value]);
});
