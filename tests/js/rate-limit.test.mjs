import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimit } from '../../extension/lib/rate-limit.js';

test('a burst goes at once, then one per interval, per key', () => {
  const r = new RateLimit({ burst: 4, intervalMs: 500 });
  for (let i = 0; i < 4; i++) assert.equal(r.take('a', 0), true);
  assert.equal(r.take('a', 0), false);
  assert.equal(r.take('b', 0), true); // another site has its own bucket
  assert.equal(r.waitMs(0), 500);
  assert.equal(r.take('a', 499), false);
  assert.equal(r.waitMs(499), 1);
  assert.equal(r.take('a', 500), true);
  assert.equal(r.waitMs(500), null);
  assert.equal(r.take('a', 600), false);
  assert.equal(r.waitMs(600), 400);
  // Quiet for a while: the burst is back.
  for (let i = 0; i < 4; i++) assert.equal(r.take('a', 10_000), true);
});

test('a refused key that is not asked again once its time came is forgotten', () => {
  const r = new RateLimit({ burst: 1, intervalMs: 100 });
  r.take('a', 0);
  assert.equal(r.take('a', 0), false);
  assert.equal(r.waitMs(50), 50);
  assert.equal(r.waitMs(100), null); // nothing more was asked for 'a': no timer forever
  r.take('b', 0);
  r.take('b', 0);
  r.forget('b');
  assert.equal(r.waitMs(0), null);
  assert.equal(r.take('b', 0), true);
});

test('an event may cost several tokens, at most the whole bucket', () => {
  const r = new RateLimit({ burst: 64, intervalMs: 25 });
  for (let i = 0; i < 60; i++) assert.equal(r.take('small', 0), true); // small updates flow
  assert.equal(r.take('big', 0, 64), true); // a full-size update empties its bucket…
  assert.equal(r.take('big', 0), false); // …so even a small one waits for a token
  assert.equal(r.waitMs(0), 25);
  assert.equal(r.take('big', 1000, 1000), false); // capped at the burst: it waits for a full bucket
  assert.equal(r.waitMs(1000), 25 * 64 - 1000);
  assert.equal(r.take('big', 1600, 1000), true);
  assert.equal(r.take('x', 0, 0), true); // a cost under one is one
  assert.equal(r.take('x', 0, Number.NaN), true);
});
