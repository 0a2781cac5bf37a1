// The content script's calls (page/isolated/calls.js), run in a vm with the isolated files it
// needs, polyfill mode: what goes to the page, what goes to the worker, one answer per call.
// The real thing in Chromium is tests/e2e/page_harness/test_page_harness.py.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';

import { ISOLATED_FILES as ISOLATED } from '../../extension/lib/page-files.js';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The isolated files up to calls.js, in manifest order, and a polyfill `calls` made on them. */
function polyfillCalls(t, tools = ['add', 'big']) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const listeners = [];
  const world = vm.createContext({
    location: { origin: 'https://a.test' },
    addEventListener: (type, fn) => listeners.push([type, fn]),
    setTimeout,
    clearTimeout,
  });
  world.globalThis = world;
  for (const f of ISOLATED.slice(0, ISOLATED.indexOf('page/isolated/calls.js') + 1)) {
    vm.runInContext(readFileSync(path.join(REPO, 'extension', f), 'utf8'), world, { filename: f });
  }
  const ns = vm.runInContext('webmcpSidecar', world);
  const toWorker = [];
  const toPage = [];
  const calls = ns.calls.create({
    native: false, mc: null,
    send: (m) => toWorker.push(JSON.parse(JSON.stringify(m))),
    toPage: (m) => toPage.push(JSON.parse(JSON.stringify(m))),
    hasTool: (name) => tools.includes(name),
    nativeTool: () => null, nativeTools: null,
  });
  const take = (list) => list.splice(0);
  return { calls, ns, worker: () => take(toWorker), page: () => take(toPage) };
}

test('calls.js comes right before relay.js, after what it uses', () => {
  assert.deepEqual(ISOLATED.slice(-2), ['page/isolated/calls.js', 'page/isolated/relay.js']);
  for (const dep of ['outcomes.js', 'leaving.js', 'validate.js']) {
    assert.ok(ISOLATED.indexOf(`page/isolated/${dep}`) < ISOLATED.indexOf('page/isolated/calls.js'), dep);
  }
});

test('a call reaches the page under a local id, and its answer reaches the worker once', async (t) => {
  const { calls, worker, page } = polyfillCalls(t);
  await calls.start({ type: 'call', id: 'c1.7', tool: 'add', args: { a: 1 }, timeout_ms: 5000, max_bytes: 100 });
  assert.deepEqual(page(), [{ type: 'call', id: '1', name: 'add', args: { a: 1 } }]);
  calls.pageResult({ type: 'result', id: '1', ok: true, value: '{"sum":3}' });
  calls.pageResult({ type: 'result', id: '1', ok: true, value: '"again"' });
  assert.deepEqual(worker(), [{ type: 'result', id: 'c1.7', ok: true, value: '{"sum":3}' }]);
  // The same worker id again is not run a second time.
  await calls.start({ type: 'call', id: 'c1.7', tool: 'add', args: {} });
  assert.deepEqual([page(), worker()], [[], []]);
});

test('a long result goes to the worker in parts, then the result with the rest', async (t) => {
  const { calls, worker, ns } = polyfillCalls(t);
  const size = ns.protocol.RESULT_PART_CHARS;
  await calls.start({ type: 'call', id: 'c2', tool: 'big', args: {}, max_bytes: 1 << 20 });
  const text = '😀a'.repeat(size); // 3 units each: cuts land inside pairs
  calls.pageResult({ type: 'result', id: '1', ok: true, value: text });
  const sent = worker();
  const parts = sent.filter((m) => m.type === 'result_part');
  const [result] = sent.filter((m) => m.type === 'result');
  assert.equal(sent.at(-1), result, 'the result comes last');
  // 196,608 units, the first cut moved back out of a pair: three full-ish parts and the rest.
  assert.deepEqual(parts.map((p) => [p.id, p.seq]), [['c2', 0], ['c2', 1], ['c2', 2]]);
  assert.equal(result.parts, 3);
  assert.equal(parts[0].data.length, size - 1);
  assert.equal(parts.map((p) => p.data).join('') + result.value, text);
  assert.ok(parts.every((p) => p.data.length <= size && p.data.isWellFormed()));
  // Up to one part's length: no parts.
  await calls.start({ type: 'call', id: 'c3', tool: 'big', args: {}, max_bytes: 1 << 20 });
  calls.pageResult({ type: 'result', id: '2', ok: true, value: 'x'.repeat(size) });
  assert.deepEqual(worker().map((m) => [m.type, m.parts, m.value.length]), [['result', undefined, size]]);
});

test('over max_bytes, bad arguments, unknown tools, timeouts and cancels answer once, in plain words', async (t) => {
  const { calls, worker, page } = polyfillCalls(t);
  await calls.start({ type: 'call', id: 'big', tool: 'big', args: {}, max_bytes: 10 });
  calls.pageResult({ type: 'result', id: '1', ok: true, value: 'x'.repeat(11) });
  assert.deepEqual(worker().map((m) => [m.type, m.error.code]), [['result', 'too_large']]);

  await calls.start({ type: 'call', id: 'args', tool: 'add', args: [1, 2] });
  await calls.start({ type: 'call', id: 'none', tool: 'nope', args: {} });
  assert.deepEqual(worker().map((m) => [m.id, m.error.code]), [['args', 'invalid_args'], ['none', 'not_found']]);

  await calls.start({ type: 'call', id: 'slow', tool: 'add', args: {}, timeout_ms: 1500 });
  page();
  t.mock.timers.tick(1500);
  assert.deepEqual(worker().map((m) => [m.id, m.error.code, m.error.message]),
    [['slow', 'timeout', 'The page did not answer within 1.5 s.']]);
  assert.deepEqual(page(), [{ type: 'cancel', id: '2' }], 'the page is told to stop');

  await calls.start({ type: 'call', id: 'stop', tool: 'add', args: {} });
  page();
  calls.cancel('stop');
  calls.cancel('stop');
  assert.deepEqual(page(), [{ type: 'cancel', id: '3' }]);
  assert.deepEqual(worker().map((m) => [m.id, m.error.code]), [['stop', 'cancelled']]);
  calls.pageResult({ type: 'result', id: '3', ok: true, value: '"late"' });
  assert.deepEqual(worker(), [], 'a late answer is dropped');
});

test('a call is answered by its own reply (the frame lane it came on), parts and all; others by the port', async (t) => {
  const { calls, worker, ns } = polyfillCalls(t);
  const onLane = [];
  const lane = (m) => onLane.push(JSON.parse(JSON.stringify(m)));
  const size = ns.protocol.RESULT_PART_CHARS;
  await calls.start({ type: 'call', id: 'l1', tool: 'big', args: {}, max_bytes: 1 << 20 }, lane);
  await calls.start({ type: 'call', id: 'p1', tool: 'add', args: {} });
  await calls.start({ type: 'call', id: 'l2', tool: 'add', args: {} }, lane);
  calls.pageResult({ type: 'result', id: '2', ok: true, value: '"port"' });
  calls.pageResult({ type: 'result', id: '1', ok: true, value: 'x'.repeat(size + 1) });
  calls.cancel('l2');
  assert.deepEqual(worker().map((m) => [m.type, m.id]), [['result', 'p1']]);
  assert.deepEqual(onLane.map((m) => [m.type, m.id]), [['result_part', 'l1'], ['result', 'l1'], ['result', 'l2']]);
  assert.equal(onLane[2].error.code, 'cancelled');
});
