// The limits on what a page may put into the chain: one set of numbers and checks
// (page/isolated/generated-limits.js, generated from the same source as lib/generated/protocol.js
// that lib/limits.js re-exports; tool-checks.js, which the content script loads and lib/tools.js
// imports), applied by the content script (page/isolated/validate.js)
// and again by lib/tools.js.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';
import * as limits from '../../extension/lib/limits.js';
import { jsonOverLimits, normalizeTool, normalizeTools, toolBytes, utf8Length } from '../../extension/lib/tools.js';
import * as tools from '../../extension/lib/tools.js';

import { ISOLATED_FILES } from '../../extension/lib/page-files.js';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');


/** A vm value as a value of this realm (deepStrictEqual compares prototypes). */
const plain = (v) => JSON.parse(JSON.stringify(v));

/** The isolated world's files up to (not with) the relay, run in a vm: its `webmcpSidecar`. */
function isolatedWorld() {
  const world = vm.createContext({ location: { origin: 'https://a.test' } });
  for (const f of ISOLATED_FILES.filter((x) => !x.endsWith('/relay.js'))) {
    vm.runInContext(readFileSync(path.join(REPO, 'extension', f), 'utf8'), world, { filename: f });
  }
  return vm.runInContext('webmcpSidecar', world);
}

test('the content script loads the limits and checks of lib/ themselves, first', () => {
  assert.deepEqual(ISOLATED_FILES.slice(0, 2), ['page/isolated/generated-limits.js', 'page/isolated/tool-checks.js']);
  assert.equal(ISOLATED_FILES.at(-1), 'page/isolated/relay.js');
  const ns = isolatedWorld();
  for (const [name, value] of Object.entries(limits)) assert.equal(ns.limits[name], value, name);
  assert.equal(Object.keys(ns.limits).length, Object.keys(limits).length);
  assert.equal(tools.MAX_TOOLS_PER_FRAME, limits.MAX_TOOLS_PER_FRAME);
});

test("tool-checks.js works as the content script's classic script too", () => {
  const ns = isolatedWorld();
  assert.equal(ns.toolChecks.utf8Length('x网😀é'), Buffer.byteLength('x网😀é'));
  assert.deepEqual(plain(ns.toolChecks.checkJson({ a: [1] }, 2, 100)), { json: '{"a":[1]}' });
  assert.equal(ns.toolChecks.checkJson({ a: [1] }, 1, 100).why, 'deep');
  assert.equal(ns.toolChecks.canonicalJson({ b: 1, a: 2 }), '{"a":2,"b":1}');
  assert.equal(ns.toolChecks.canonicalJson(JSON.parse('{"__proto__":{"x":1}}')), '{"__proto__":{"x":1}}'); // a key, not a prototype
});

test('the agreed numbers (the host uses the same)', () => {
  assert.equal(limits.MAX_SCHEMA_DEPTH, 32);
  assert.equal(limits.MAX_SCHEMA_BYTES, 64 * 1024);
  assert.equal(limits.MAX_TOOLS_PER_SITE, 256);
  assert.equal(limits.MAX_TOOLS_PER_FRAME, 256);
  assert.equal(limits.MAX_SITE_BYTES, 1024 * 1024);
});

const nest = (levels, leaf = {}) => {
  let v = leaf;
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
};

test('jsonOverLimits: depth counts objects and arrays, the value itself is level 1', () => {
  assert.equal(jsonOverLimits(nest(32)), null);
  assert.equal(jsonOverLimits(nest(33)), 'deep');
  assert.equal(jsonOverLimits(nest(31, [])), null);
  assert.equal(jsonOverLimits(nest(32, [1])), null);
  assert.equal(jsonOverLimits(nest(32, [[]])), 'deep');
  assert.equal(jsonOverLimits(nest(100_000)), 'deep'); // no recursion: a very deep value is fine to look at
  assert.equal(jsonOverLimits({ a: 'x'.repeat(64 * 1024 - 8) }), null); // {"a":"…"} is 8 bytes more
  assert.equal(jsonOverLimits({ a: 'x'.repeat(64 * 1024 - 7) }), 'big');
  assert.equal(jsonOverLimits({ a: '网'.repeat(22_000) }), 'big'); // 66 000 bytes of UTF-8
  assert.equal(jsonOverLimits({ a: new Array(70_000).fill(0) }), 'big'); // stops counting early
});

test('a tool whose schema or annotations are too deep or too big is dropped whole', () => {
  const ok = normalizeTool({ name: 'ok', inputSchema: nest(32) }, 'native');
  assert.equal(typeof ok, 'object');
  assert.equal(normalizeTool({ name: 'd', inputSchema: nest(500) }, 'native'), 'deep');
  assert.equal(normalizeTool({ name: 'b', inputSchema: { s: 'x'.repeat(70_000) } }, 'native'), 'big');
  assert.equal(normalizeTool({ name: 'a', annotations: { x: nest(40) } }, 'native'), 'deep');
  assert.equal(normalizeTool({ name: 'bad name' }, 'native'), 'name');
  const t = normalizeTool({ name: 't', title: 't'.repeat(1000), description: 'd'.repeat(20_000) }, 'native');
  assert.equal(t.title.length, 256);
  assert.equal(t.description.length, 8192);
});

test('normalizeTools keeps 256 of a frame, and says what it left out', () => {
  const list = [{ name: 'deep', inputSchema: nest(500) }, { name: 'bad name' }, null];
  for (let i = 0; i < 10_000; i++) list.push({ name: `t${i}`, description: '' });
  const { tools: kept, dropped } = normalizeTools(list, false);
  assert.equal(kept.size, 256);
  assert.ok(kept.has('t0') && kept.has('t255') && !kept.has('t256'));
  assert.deepEqual(dropped.count, { deep: 1, name: 2, count: 9744 });
  assert.deepEqual(dropped.some.slice(0, 4), [
    { name: 'deep', why: 'deep' }, { name: 'bad name', why: 'name' }, { name: '', why: 'name' }, { name: 't256', why: 'count' },
  ]);
  assert.equal(dropped.some.length, 16);
});

test("the content script's frame check keeps the same 256 and drops the same tools", () => {
  const list = [{ name: 'deep', inputSchema: nest(500) }, { name: 'bad name' }, null];
  for (let i = 0; i < 10_000; i++) list.push({ name: `t${i}`, description: '' });
  const { tools: kept, dropped } = isolatedWorld().frameTools.validate(list, false);
  assert.equal(kept.length, 256);
  assert.equal(kept[0].name, 't0');
  assert.equal(kept.at(-1).name, 't255');
  assert.deepEqual(plain(dropped.count), { deep: 1, name: 2, count: 9744 });
  assert.deepEqual(normalizeTools(list, false).dropped.count, plain(dropped.count));
  const big = isolatedWorld().frameTools.validate([{ name: 'b', inputSchema: { s: 'x'.repeat(70_000) } }, { name: 'ok', source: 'declarative' }], false);
  assert.deepEqual(plain(big.tools), [{ name: 'ok', description: '', source: 'declarative' }]);
  assert.deepEqual(plain(big.dropped.some), [{ name: 'b', why: 'big' }]);
});

test('utf8Length and toolBytes count UTF-8 bytes of compact JSON', () => {
  for (const s of ['', 'abc', 'é', '网', '😀', 'a\ud800b', '\udc00', 'x网😀é']) {
    assert.equal(utf8Length(s), Buffer.byteLength(s), JSON.stringify(s));
  }
  const t = { name: 'x', description: '网', source: 'native' };
  assert.equal(toolBytes(t), Buffer.byteLength(JSON.stringify(t)));
});
