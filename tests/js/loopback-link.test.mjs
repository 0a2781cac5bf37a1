// A loopback link (extension/background/loopback-link.js) on its own, against a fake WebSocket:
// its URL, what it lets through each way, and when it is open. Its use in the worker, an MCP
// entry's link each: entry-links.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopbackLink, linkUrl } from '../../extension/background/loopback-link.js';
import { FakeWS } from './fake-ws.mjs';

const TOKEN = 'T'.repeat(40) + '_-x';

function link() {
  FakeWS.made = [];
  const got = [];
  const logs = [];
  const loop = new LoopbackLink({
    WebSocket: /** @type {any} */ (FakeWS), onMessage: (m) => got.push(m), log: (level, msg) => logs.push([level, msg]),
    name: 'test link',
  });
  return { loop, got, logs };
}

test('the URL is the loopback address, the port and the token in the path', () => {
  assert.equal(linkUrl(40123, TOKEN), `ws://127.0.0.1:40123/link/${TOKEN}`);
});

test('nothing goes over the link until it is open; then messages go both ways as JSON', () => {
  const { loop, got, logs } = link();
  assert.equal(loop.state(), 'closed');
  assert.equal(loop.postText(JSON.stringify({ type: 'result', id: 'a' })), false);
  loop.open(40123, TOKEN);
  const [ws] = FakeWS.made;
  assert.equal(loop.state(), 'connecting');
  assert.equal(loop.postText(JSON.stringify({ type: 'result', id: 'a' })), false);
  ws.accept();
  assert.equal(loop.state(), 'open');
  assert.equal(loop.postText(JSON.stringify({ type: 'result', id: 'b', value: 'é😀' })), true);
  assert.deepEqual(ws.take(), [{ type: 'result', id: 'b', value: 'é😀' }]);
  ws.receive({ type: 'call', id: 'c1' });
  ws.receive('{not json');
  ws.onmessage({ data: new ArrayBuffer(4) });
  assert.deepEqual(got, [{ type: 'call', id: 'c1' }]);
  assert.deepEqual(logs.map(([level]) => level), ['warning', 'warning']);
  ws.close();
  assert.equal(loop.state(), 'closed');
  assert.equal(loop.postText(JSON.stringify({ type: 'result', id: 'c' })), false);
});

test('a new offer replaces the open link; the old one closing later changes nothing', () => {
  const { loop } = link();
  loop.open(1, TOKEN);
  const [old] = FakeWS.made;
  old.accept();
  loop.open(2, TOKEN);
  const [, current] = FakeWS.made;
  assert.equal(old.readyState, FakeWS.CLOSED);
  current.accept();
  old.onclose?.({ code: 1006 });
  assert.equal(loop.state(), 'open');
  assert.ok(current.url.includes(':2/'));
});

test('the link carries calls and cancels only: anything else from it is refused and logged', () => {
  const { loop, got, logs } = link();
  loop.open(40123, TOKEN);
  const [ws] = FakeWS.made;
  ws.accept();
  for (const type of ['docs', 'browser_call', 'entry_link', 'host_hello', 'chunk']) ws.receive({ type, id: 'x' });
  ws.receive([1, 2]);
  ws.receive('null');
  ws.receive({ type: 'cancel', id: 'c9' });
  assert.deepEqual(got, [{ type: 'cancel', id: 'c9' }]);
  assert.equal(logs.length, 7);
  assert.ok(logs.every(([level, msg]) => level === 'warning' && msg.includes('test link: it carries calls only')));
});
