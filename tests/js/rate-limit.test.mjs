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
