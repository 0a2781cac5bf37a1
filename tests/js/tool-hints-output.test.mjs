// The spec's hints (consequentialHint, untrustedContentHint) and a tool's outputSchema survive the
// cleaning of page data, in the content script (page/isolated/validate.js) and lib/tools.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';
import { normalizeTool, normalizeTools } from '../../extension/lib/tools.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILES = ['page/isolated/generated-limits.js', 'page/isolated/tool-checks.js', 'page/isolated/validate.js'];
const plain = (v) => JSON.parse(JSON.stringify(v));

function validate(list, native = false) {
  const world = vm.createContext({ location: { origin: 'https://a.test' } });
  for (const f of FILES) vm.runInContext(readFileSync(path.join(REPO, 'extension', f), 'utf8'), world, { filename: f });
  return plain(vm.runInContext('webmcpSidecar', world).frameTools.validate(list, native));
}

const OUT = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
let deep = {};
for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };

test('lib/tools.js keeps consequentialHint (a boolean) and the outputSchema', () => {
  const t = normalizeTool({
    name: 't', outputSchema: OUT,
    annotations: { consequentialHint: true, untrustedContentHint: false, destructiveHint: true, readOnlyHint: 'yes' },
  }, 'polyfill');
  assert.equal(typeof t, 'object');
  assert.deepEqual(t.outputSchema, OUT);
  // A known hint that is not a boolean is left out (the host types them bool|None).
  assert.deepEqual(t.annotations, { consequentialHint: true, untrustedContentHint: false, destructiveHint: true });
  assert.equal(normalizeTool({ name: 't', annotations: { consequentialHint: 'true' } }, 'polyfill').annotations.consequentialHint, undefined);
});

test('lib/tools.js drops a tool whose outputSchema is over the limits, and ignores one that is not an object', () => {
  assert.equal(normalizeTool({ name: 't', outputSchema: deep }, 'polyfill'), 'deep');
  assert.equal(normalizeTool({ name: 't', outputSchema: { s: 'x'.repeat(70_000) } }, 'polyfill'), 'big');
  assert.equal('outputSchema' in normalizeTool({ name: 't', outputSchema: [OUT] }, 'polyfill'), false);
  const { tools, dropped } = normalizeTools([{ name: 'a', outputSchema: deep }, { name: 'b', outputSchema: OUT }], false);
  assert.deepEqual([...tools.keys()], ['b']);
  assert.equal(dropped.count.deep, 1);
});

test('the content script keeps the spec hints and the outputSchema, within the limits', () => {
  const { tools, dropped } = validate([
    { name: 'a', outputSchema: OUT, annotations: { consequentialHint: true, untrustedContentHint: true } },
    { name: 'b', outputSchema: deep },
    { name: 'c', outputSchema: 'not an object' },
  ]);
  assert.deepEqual(tools.map((t) => t.name), ['a', 'c']);
  assert.deepEqual(tools[0].outputSchema, OUT);
  assert.deepEqual(tools[0].annotations, { consequentialHint: true, untrustedContentHint: true });
  assert.equal('outputSchema' in tools[1], false);
  assert.deepEqual(dropped.count, { deep: 1 });
});
