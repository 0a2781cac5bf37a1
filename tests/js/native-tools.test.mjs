// The relay's native-mode reader (page/isolated/native-tools.js), run in a vm with the isolated
// files before it: a getTools() that throws or never answers must not stop later reads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';

import { ISOLATED_FILES as ISOLATED } from '../../extension/lib/page-files.js';
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A reader over a fake `document.modelContext` whose getTools() answers with `answers` in turn. */
function reader(t, answers, onList) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const world = vm.createContext({ location: { origin: 'https://a.test' }, addEventListener() {}, setTimeout, clearTimeout });
  world.globalThis = world;
  for (const f of ISOLATED.slice(0, ISOLATED.indexOf('page/isolated/native-tools.js') + 1)) {
    vm.runInContext(readFileSync(path.join(REPO, 'extension', f), 'utf8'), world, { filename: f });
  }
  const ns = vm.runInContext('webmcpSidecar', world);
  const mc = { getTools: () => answers.shift()() };
  const lists = [];
  const nt = ns.nativeTools.create({
    mc, native: true, exposingOrigins: () => [],
    validateList: (list) => ({ tools: list.map((x) => ({ name: x.name })), dropped: null }),
    onList: onList ?? ((map) => lists.push([...map.keys()])),
  });
  return { nt, lists };
}

const tool = (name) => ({ name, description: 'd', execute() {} });

test('a getTools() that never answers is given up on, publishes nothing, and later reads run', async (t) => {
  const { nt, lists } = reader(t, [() => new Promise(() => {}), async () => [tool('b')]]);
  const first = nt.refresh();
  await Promise.resolve();
  t.mock.timers.tick(5000);
  await first;
  assert.deepEqual(lists, []); // not an empty list in place of the page's tools
  await nt.refresh();
  assert.deepEqual(lists, [['b']]);
});

test('a change during an unanswered read is read once that read is given up on', async (t) => {
  const { nt, lists } = reader(t, [() => new Promise(() => {}), async () => [tool('a'), tool('b')]]);
  const first = nt.refresh();
  nt.refresh(); // a toolchange while the first read hangs
  await Promise.resolve();
  t.mock.timers.tick(5000);
  await first;
  assert.deepEqual(lists, [['a', 'b']]);
});

test('a read whose listener throws does not stop the next one', async (t) => {
  let n = 0;
  const seen = [];
  const { nt } = reader(t, [async () => [tool('a')], async () => [tool('c')]], (map) => {
    seen.push([...map.keys()]);
    if (++n === 1) throw new Error('port gone');
  });
  await nt.refresh();
  await nt.refresh();
  assert.deepEqual(seen, [['a'], ['c']]);
});
