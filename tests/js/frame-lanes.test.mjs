// The frame lane: LanePairs (lib/frame-lanes.js) alone, then the worker's side of it
// (background/frame-ports.js, site-calls.js) on a fake chrome.* with Node's real MessageChannel.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { setImmediate as settle } from 'node:timers/promises';
import { LANE_NONCE, LanePairs } from '../../extension/lib/frame-lanes.js';
import { sleep, startWorker, tick, tool } from './fake-chrome.mjs';

const N1 = 'a'.repeat(32);
const N2 = 'b'.repeat(32);

/** A port whose close() is recorded. */
function fakePort() {
  return { closed: false, close() { this.closed = true; } };
}

function pairs(now = () => 0) {
  const paired = [];
  const p = new LanePairs({ now, paired: (port, who) => paired.push([port, who]) });
  return { p, paired };
}

test('a lane is a claim, then the port with its nonce', () => {
  const { p, paired } = pairs();
  assert.equal(p.claim(N1, 'frame-1'), true);
  assert.deepEqual(p.waiting, { claimed: 1, refused: 0 });
  const a = fakePort();
  assert.equal(p.offer({ lane: N1 }, [a]), true);
  assert.deepEqual(paired, [[a, 'frame-1']]);
  assert.deepEqual(p.waiting, { claimed: 0, refused: 0 });
  assert.ok(!a.closed);
  // The claim is used up: the same nonce again pairs with nothing.
  const again = fakePort();
  assert.equal(p.offer({ lane: N1 }, [again]), false);
  assert.ok(again.closed);
});

test('a port whose nonce nobody claimed is closed at once, so a page parks nothing', () => {
  const { p, paired } = pairs();
  const early = fakePort();
  assert.equal(p.offer({ lane: N2 }, [early]), false);
  assert.ok(early.closed);
  p.claim(N2, 'late claim');
  assert.deepEqual(paired, []);
  assert.deepEqual(p.waiting, { claimed: 1, refused: 1 }); // the claim waits; its port was the one closed
});

test('malformed offers are refused and their ports closed; malformed claims are refused', () => {
  const { p, paired } = pairs();
  p.claim(N1, 'f');
  for (const [data, n] of [[{ lane: 'A'.repeat(32) }, 1], [{ lane: N1.slice(1) }, 1], [{}, 1], [null, 1],
    [{ lane: 7 }, 1], [{ lane: N1 }, 0], [{ lane: N1 }, 2]]) {
    const ports = Array.from({ length: n }, fakePort);
    assert.equal(p.offer(data, ports), false, JSON.stringify([data, n]));
    assert.ok(ports.every((x) => x.closed));
  }
  assert.equal(p.offer({ lane: N1 }, undefined), false);
  for (const bad of [undefined, 5, 'z'.repeat(32), N1 + '0', { toString: () => N2 }]) assert.equal(p.claim(bad, 'f'), false);
  assert.equal(p.claim(N1, 'twice'), false);
  assert.deepEqual(paired, []);
  assert.ok(LANE_NONCE.test(N1));
});

test('a claim older than ten seconds pairs with nothing', () => {
  let t = 0;
  const { p, paired } = pairs(() => t);
  p.claim(N1, 'stale');
  t = 10_001;
  const late = fakePort();
  assert.equal(p.offer({ lane: N1 }, [late]), false);
  assert.ok(late.closed);
  assert.deepEqual(paired, []);
  assert.deepEqual(p.waiting, { claimed: 0, refused: 1 });
});

test('claims are capped at 32, the oldest dropped first', () => {
  let t = 0;
  const { p, paired } = pairs(() => t);
  for (let i = 0; i < 100; i++) {
    t = i;
    p.claim(i.toString(16).padStart(32, '0'), `f${i}`);
  }
  assert.equal(p.waiting.claimed, 32);
  assert.equal(p.offer({ lane: (67).toString(16).padStart(32, '0') }, [fakePort()]), false);
  assert.equal(p.offer({ lane: (68).toString(16).padStart(32, '0') }, [fakePort()]), true);
  assert.deepEqual(paired.map(([, who]) => who), ['f68']);
});

// ---- the worker's side ------------------------------------------------------------------------

/** Tab 1 on a.com with tool x, its lane up: returns the frame's port and its end of the channel. */
async function withLane(t) {
  const w = startWorker(t);
  const port = w.connectFrame(1, 0, 'http://a.com/');
  w.sendTools(port, [tool('x')]);
  await tick();
  w.fromHost();
  const chan = new MessageChannel();
  t.after(() => chan.port1.close());
  const got = [];
  chan.port1.on('message', (m) => got.push(m));
  port.receive({ type: 'lane', nonce: N1 });
  w.worker.offerLane({ data: { lane: N1 }, ports: [chan.port2] });
  await settle();
  return { w, port, lane: chan.port1, got };
}

test('a paired lane says lane_ready, carries calls and cancels, and brings the results back', async (t) => {
  const { w, port, lane, got } = await withLane(t);
  assert.deepEqual(got, [{ type: 'lane_ready' }]);
  assert.equal(w.worker.frameLanes.size, 1);
  w.call('c1', 'a.com', 'x', { a: 1 });
  await settle();
  assert.deepEqual(port.take(), []); // not on the runtime port
  assert.deepEqual(got[1], { type: 'call', id: 'c1', tool: 'x', args: { a: 1 }, timeout_ms: 5000, max_bytes: 1 << 20 });
  lane.postMessage({ type: 'result', id: 'c1', ok: true, value: '"one"' });
  await settle();
  assert.deepEqual(w.fromHost(), [{ type: 'result', id: 'c1', ok: true, value: '"one"', tab_id: 1 }]);

  w.call('c2', 'a.com', 'x', {});
  w.host({ type: 'cancel', id: 'c2' });
  await settle();
  assert.deepEqual(got.slice(2).map((m) => [m.type, m.id]), [['call', 'c2'], ['cancel', 'c2']]);
  // The page's answer to the cancel comes on the lane too.
  lane.postMessage({ type: 'result', id: 'c2', ok: false, error: { code: 'cancelled', message: 'cancelled' } });
  await settle();
  assert.deepEqual(w.fromHost().map((m) => [m.id, m.ok, m.error?.code]), [['c2', false, 'cancelled']]);
});

test('the lane carries only results: a tools report on it changes nothing', async (t) => {
  const { w, lane } = await withLane(t);
  lane.postMessage({ type: 'tools', url: 'http://a.com/', native: false, tools: [tool('x'), tool('evil')] });
  lane.postMessage({ type: 'result', id: 'never-called', ok: true, value: '"x"' });
  lane.postMessage('not an object');
  await settle();
  await tick();
  assert.deepEqual(w.fromHost(), []);
  assert.deepEqual(w.status().sites['a.com'].map((x) => x.name), ['x']);
});

test('a second lane for the same port is refused; a lane for a port that is gone too', async (t) => {
  const { w, port } = await withLane(t);
  const extra = new MessageChannel();
  t.after(() => extra.port1.close());
  port.receive({ type: 'lane', nonce: N2 }); // a port with a lane claims nothing more
  w.worker.offerLane({ data: { lane: N2 }, ports: [extra.port2] });
  await settle();
  assert.equal(w.worker.frameLanes.size, 1);
  assert.deepEqual(w.worker.lanesWaiting(), { claimed: 0, refused: 1 });

  const other = w.connectFrame(2, 0, 'http://a.com/two');
  other.drop();
  const late = new MessageChannel();
  t.after(() => late.port1.close());
  other.receive({ type: 'lane', nonce: 'c'.repeat(32) }); // after its disconnect: ignored
  w.worker.offerLane({ data: { lane: 'c'.repeat(32) }, ports: [late.port2] });
  await settle();
  assert.equal(w.worker.frameLanes.size, 1);
});

test('with lanes off calls take the port; a port that drops closes its lane and fails its calls', async (t) => {
  const { w, port, got } = await withLane(t);
  w.worker.setLanes(false);
  w.call('p1', 'a.com', 'x', {});
  await settle();
  assert.deepEqual(port.take().map((m) => [m.type, m.id]), [['call', 'p1']]);
  assert.equal(got.length, 1); // only lane_ready
  w.worker.setLanes(true);
  w.call('l1', 'a.com', 'x', {});
  await settle();
  assert.deepEqual(got.slice(1).map((m) => [m.type, m.id]), [['call', 'l1']]);
  port.drop();
  await settle();
  assert.equal(w.worker.frameLanes.size, 0);
  await sleep(150); // calls on a lane are decided a moment later: their answers may still be on it
  assert.deepEqual(w.fromHost().map((m) => [m.id, m.error?.code]).sort(), [['l1', 'tab_closed'], ['p1', 'tab_closed']]);
});

test('an answer on the lane that comes after its port closed still answers the call', async (t) => {
  const { w, port, lane } = await withLane(t);
  w.call('l2', 'a.com', 'x', {});
  await settle();
  // The page answered, then left: the port's disconnect overtakes the answer on the lane.
  port.drop();
  lane.postMessage({ type: 'result', id: 'l2', ok: true, value: '"late"' });
  await sleep(150);
  assert.deepEqual(w.fromHost(), [{ type: 'result', id: 'l2', ok: true, value: '"late"', tab_id: 1 }]);
});
