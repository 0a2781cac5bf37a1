import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff } from '../../extension/lib/backoff.js';

test('doubles from 250 ms up to 30 s without jitter', () => {
  const b = new Backoff({ jitter: 0 });
  const delays = Array.from({ length: 10 }, () => b.next());
  assert.deepEqual(delays, [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test('jitter stays within ±20% and never exceeds the cap', () => {
  for (const r of [0, 0.5, 0.999999]) {
    const b = new Backoff({ random: () => r });
    const first = b.next();
    assert.ok(first >= 200 && first <= 300, `${first}`);
    for (let i = 0; i < 40; i++) assert.ok(b.next() <= 30000);
  }
  const low = new Backoff({ random: () => 0 });
  for (let i = 0; i < 20; i++) low.next();
  assert.equal(low.next(), 24000);
});

test('jitter actually varies the delays', () => {
  const b = new Backoff();
  const seen = new Set();
  for (let i = 0; i < 20; i++) {
    b.reset();
    seen.add(b.next());
  }
  assert.ok(seen.size > 1);
});

test('reset starts over', () => {
  const b = new Backoff({ jitter: 0 });
  b.next();
  b.next();
  b.next();
  b.reset();
  assert.equal(b.next(), 250);
});

test('many failures do not overflow', () => {
  const b = new Backoff({ jitter: 0 });
  for (let i = 0; i < 10000; i++) b.next();
  assert.equal(b.next(), 30000);
});
