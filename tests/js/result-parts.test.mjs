// A long result travels from the content script to the worker in pieces (`result_part`s, then
// the `result` with the rest): the content script's cut (page/isolated/tool-checks.js
// `textPieces`, used by calls.js), the worker's join (lib/result-parts.js), and the worker's routes for them,
// against a content script that sends them wrong.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';
import { addPart, joinParts } from '../../extension/lib/result-parts.js';
import { startWorker, tick, tool } from './fake-chrome.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The isolated world's limits and tool-checks.js (the cut calls.js uses), run in a vm. */
function isolated() {
  const world = vm.createContext({});
  for (const f of ['generated-limits.js', 'tool-checks.js']) {
    vm.runInContext(readFileSync(path.join(REPO, 'extension/page/isolated', f), 'utf8'), world, { filename: f });
  }
  return vm.runInContext('webmcpSidecar', world);
}

test('pieces: at most `size` units each, joined back exactly, never a surrogate pair cut in two', () => {
  const { toolChecks: o, protocol } = isolated();
  assert.equal(protocol.RESULT_PART_CHARS, 64 * 1024);
  assert.deepEqual([...o.textPieces('abcdefg', 3)], ['abc', 'def', 'g']);
  assert.deepEqual([...o.textPieces('abcdef', 3)], ['abc', 'def']);
  assert.deepEqual([...o.textPieces('', 3)], ['']);
  // '😀' is two units: a cut that would fall between them moves back by one.
  assert.deepEqual([...o.textPieces('ab😀cd', 3)], ['ab', '😀c', 'd']);
  const text = '😀a'.repeat(50_000); // 150,000 units: the first cut at 65,536 falls inside a pair
  const parts = [...o.textPieces(text, protocol.RESULT_PART_CHARS)];
  assert.equal(parts.join(''), text);
  assert.ok(parts.length === 3 && parts.every((p) => p.length <= protocol.RESULT_PART_CHARS));
  assert.equal(parts[0].length, 65_535);
  for (const p of parts) assert.ok(p.isWellFormed(), 'every piece is well-formed UTF-16');
});

test('joinParts: in order and within the cap the value comes back whole; `parts` is not passed on', () => {
  let parts;
  for (const [seq, data] of ['ab', 'cd'].entries()) parts = addPart(parts, { id: 'c1', seq, data }, 100);
  assert.deepEqual(joinParts(parts, { type: 'result', id: 'c1', ok: true, value: 'e', parts: 2 }, 100),
    { type: 'result', id: 'c1', ok: true, value: 'abcde' });
  // No parts: the result as it came, untouched.
  const whole = { type: 'result', id: 'c2', ok: true, value: 'x' };
  assert.equal(joinParts(undefined, whole, 100), whole);
});

test('joinParts: parts out of order, missing, of the wrong type or over the cap spoil the result', () => {
  const result = (parts, extra = {}) => ({ type: 'result', id: 'c1', ok: true, value: 'z', parts, ...extra });
  const code = (msg) => msg.ok === false && msg.error.code;
  let p = addPart(undefined, { id: 'c1', seq: 1, data: 'a' }, 100); // seq 0 never came
  assert.equal(code(joinParts(p, result(1), 100)), 'page_error');
  assert.deepEqual(p.list, []);
  p = addPart(undefined, { id: 'c1', seq: 0, data: 7 }, 100);
  assert.equal(code(joinParts(p, result(1), 100)), 'page_error');
  p = addPart(undefined, { id: 'c1', seq: 0, data: 'a' }, 100);
  assert.equal(code(joinParts(p, result(2), 100)), 'page_error', 'the result counts more parts than came');
  assert.equal(code(joinParts(undefined, result(3), 100)), 'page_error', 'parts announced, none came');
  assert.equal(code(joinParts(p, result(1, { value: 5 }), 100)), 'page_error');
  // Over the cap: nothing more is kept, and the answer says too_large.
  p = addPart(undefined, { id: 'c1', seq: 0, data: 'x'.repeat(60) }, 100);
  p = addPart(p, { id: 'c1', seq: 1, data: 'x'.repeat(60) }, 100);
  assert.deepEqual([p.bad, p.list], ['large', []]);
  p = addPart(p, { id: 'c1', seq: 2, data: 'x' }, 100);
  assert.deepEqual(p.list, []);
  const big = joinParts(p, result(3), 100);
  assert.equal(code(big), 'too_large');
  assert.match(big.error.message, /larger than the 100 bytes/);
  // The last piece pushes it over.
  p = addPart(undefined, { id: 'c1', seq: 0, data: 'x'.repeat(90) }, 100);
  assert.equal(code(joinParts(p, result(1, { value: 'y'.repeat(20) }), 100)), 'too_large');
  // A failure after some parts is the failure.
  const failed = { type: 'result', id: 'c1', ok: false, error: { code: 'page_error', message: 'It broke.' }, parts: 1 };
  assert.deepEqual(joinParts(p, failed, 100), { type: 'result', id: 'c1', ok: false, error: { code: 'page_error', message: 'It broke.' } });
});

test('the worker joins the parts of its call, from the frame it called only, and sends the host one result', async (t) => {
  const w = startWorker(t);
  const a = w.connectFrame(1, 0, 'http://a.com/');
  const other = w.connectFrame(2, 0, 'http://a.com/b');
  w.sendTools(a, [tool('x')]);
  w.sendTools(other, [tool('y')]);
  await tick();
  w.fromHost();
  w.call('c1', 'a.com', 'x');
  assert.equal(a.take()[0].id, 'c1');
  a.receive({ type: 'result_part', id: 'c1', seq: 0, data: 'ab' });
  other.receive({ type: 'result_part', id: 'c1', seq: 1, data: 'SPOOF' }); // not the frame called
  a.receive({ type: 'result_part', id: 'c9', seq: 0, data: 'no such call' });
  a.receive({ type: 'result_part', id: 'c1', seq: 1, data: 'cd' });
  assert.deepEqual(w.fromHost(), [], 'parts alone send nothing');
  a.receive({ type: 'result', id: 'c1', ok: true, value: 'e', parts: 2 });
  assert.deepEqual(w.fromHost(), [{ type: 'result', id: 'c1', ok: true, value: 'abcde', tab_id: 1 }]);

  // Out of order: one error result, and the call is over.
  w.call('c2', 'a.com', 'x');
  a.take();
  a.receive({ type: 'result_part', id: 'c2', seq: 1, data: 'b' });
  a.receive({ type: 'result', id: 'c2', ok: true, value: 'c', parts: 1 });
  const [bad] = w.fromHost();
  assert.deepEqual([bad.ok, bad.error.code, bad.tab_id], [false, 'page_error', 1]);
  a.receive({ type: 'result', id: 'c2', ok: true, value: 'again' });
  assert.deepEqual(w.fromHost(), []);

  // Over the call's max_bytes: too_large.
  w.call('c3', 'a.com', 'x', {}, { max_bytes: 10 });
  a.take();
  a.receive({ type: 'result_part', id: 'c3', seq: 0, data: 'x'.repeat(8) });
  a.receive({ type: 'result_part', id: 'c3', seq: 1, data: 'x'.repeat(8) });
  a.receive({ type: 'result', id: 'c3', ok: true, value: 'x', parts: 2 });
  assert.equal(w.fromHost()[0].error.code, 'too_large');
  assert.equal(w.status().pendingCalls, 0);
});
