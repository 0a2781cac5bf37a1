// A call that comes while its site's tab is loading a new page (the previous call's last step
// navigated) waits, bounded, for the site's tools instead of failing with "no tool named …";
// on a tab at rest a missing tool is answered at once; a skills look that a new load cuts short
// does not take the skill's tools away; and a skill healthy on the tab's last page keeps its
// tools while its health is checked again, a call to one running on the verdict
// (background/tool-waits.js, skills.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settleMs, PAGE_TOOLS_GRACE_MS } from '../../extension/background/tool-waits.js';
import { sleep, startWorker, tick, tool } from './fake-chrome.mjs';

/** Until `fn()` is truthy (real events drive it; the bound only stops a broken test). */
async function until(fn, what) {
  for (let i = 0; i < 500; i++) {
    const v = fn();
    if (v) return v;
    await sleep(10);
  }
  throw new Error(`never: ${what}`);
}

/** Tab 1 shows `url`; its loads are driven by the test. */
function tab1(w, url) {
  const state = { url, status: 'complete' };
  w.chrome.tabs.get = async (id) => {
    if (id !== 1) throw new Error(`No tab with id: ${id}.`);
    return { id: 1, windowId: 1, url: state.url, status: state.status };
  };
  w.chrome.tabs.query = async () => [{ id: 1, windowId: 1, url: state.url, status: state.status }];
  const load = (next) => {
    state.url = next;
    state.status = 'loading';
    w.chrome.tabs.onUpdated.fire(1, { status: 'loading', url: next }, { id: 1, windowId: 1, url: next, status: 'loading' });
  };
  const loaded = () => {
    state.status = 'complete';
    w.chrome.tabs.onUpdated.fire(1, { status: 'complete' }, { id: 1, windowId: 1, url: state.url, status: 'complete' });
  };
  return { load, loaded };
}

test('settleMs: a loading tab or a skills look waits for an event; a recent load for what is left of its grace', () => {
  const now = 100_000;
  const loads = new Map([[1, { loading: true, loadedAt: 0 }], [2, { loading: false, loadedAt: now - 1_000 }], [3, { loading: false, loadedAt: now - 60_000 }]]);
  const of = (id) => loads.get(id);
  assert.equal(settleMs([1], of, () => false, now), Infinity);
  assert.equal(settleMs([3], of, (id) => id === 3, now), Infinity);
  assert.equal(settleMs([2, 3], of, () => false, now), PAGE_TOOLS_GRACE_MS - 1_000);
  assert.equal(settleMs([3], of, () => false, now), 0);
  assert.equal(settleMs([4], of, () => false, now), 0, 'a tab whose loads were never seen is at rest');
  assert.equal(settleMs([], of, () => false, now), 0);
});

test('a call that comes while the tab loads the next page waits for its tools, then goes to the new page', async (t) => {
  const w = startWorker(t);
  const { load, loaded } = tab1(w, 'http://a.com/one');
  const first = w.connectFrame(1, 0, 'http://a.com/one');
  w.sendTools(first, [tool('x')]);
  await tick();
  w.fromHost();

  load('http://a.com/two');
  first.drop();
  w.call('c1', 'a.com', 'x');
  await tick();
  assert.deepEqual(w.fromHost().filter((m) => m.type === 'result'), [], 'no "no such tool" while the page loads');
  loaded();
  const second = w.connectFrame(1, 0, 'http://a.com/two');
  w.sendTools(second, [tool('x')]);
  const [fwd] = await until(() => second.sent.length && second.take(), 'the call reaches the new page');
  assert.equal(fwd.id, 'c1');
  assert.ok(fwd.timeout_ms <= 5000 && fwd.timeout_ms > 0, 'the wait counts against the call\'s timeout');
  second.receive({ type: 'result', id: 'c1', ok: true, value: '"done"' });
  assert.deepEqual(w.fromHost().filter((m) => m.type === 'result'), [{ type: 'result', id: 'c1', ok: true, value: '"done"', tab_id: 1 }]);
});

test('a page that loads without the tool: the call gets "no tool named" once the page had its grace', async (t) => {
  const w = startWorker(t);
  const { load, loaded } = tab1(w, 'http://a.com/one');
  const first = w.connectFrame(1, 0, 'http://a.com/one');
  w.sendTools(first, [tool('x')]);
  await tick();
  load('http://a.com/two');
  first.drop();
  w.call('c2', 'a.com', 'x');
  loaded();
  const second = w.connectFrame(1, 0, 'http://a.com/two');
  w.sendTools(second, [tool('y')]);
  const res = await until(() => w.fromHost().find((m) => m.type === 'result'), 'an answer');
  assert.equal(res.error.code, 'not_found');
  assert.equal(res.error.message, 'a.com has no tool named "x" right now. Its tools: y.');
});

test('a missing tool on a tab at rest is answered at once; a waiting call can be cancelled', async (t) => {
  const w = startWorker(t);
  const { load } = tab1(w, 'http://a.com/one');
  const first = w.connectFrame(1, 0, 'http://a.com/one');
  w.sendTools(first, [tool('x')]);
  await tick();
  w.fromHost();
  w.call('n1', 'a.com', 'zzz');
  assert.equal(w.fromHost()[0].error.code, 'not_found', 'answered in the same turn: no wait');

  load('http://a.com/two');
  first.drop();
  w.call('c3', 'a.com', 'x');
  await tick();
  w.host({ type: 'cancel', id: 'c3' });
  await tick();
  const results = w.fromHost().filter((m) => m.type === 'result');
  assert.deepEqual(results.map((m) => [m.id, m.error?.code]), [['c3', 'cancelled']]);
});

const SKILL = {
  name: 'demo', version: '1.0.0', description: 'demo', match: ['http://a.com/*'], exclude: [],
  health: { selectors: ['#ok'] },
  tools: [{ name: 'go', description: 'goes', inputSchema: { type: 'object', properties: {} }, steps: [{ action: 'navigate', url: '/next' }] }],
};

test('a health check that a new load cuts short leaves the skill tools in place until the next look', async (t) => {
  const w = startWorker(t);
  const { load, loaded } = tab1(w, 'http://a.com/one');
  /** The page's answers to the health check, one promise each, resolved by the test. */
  const checks = [];
  w.chrome.scripting = {
    executeScript: () => new Promise((resolve, reject) => checks.push({ resolve, reject })),
  };
  w.chrome.runtime.getManifest = () => ({ version: '0.1.0' });
  const healthy = () => checks.shift().resolve([{ frameId: 0, result: { healthy: true } }]);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL] });
  await until(() => checks.length, 'a health check');
  healthy();
  await until(() => w.worker.registry.siteTools('a.com').length, 'the skill tools');
  assert.equal(w.worker.skills.looking(1), false);

  // The page loads again (the tool's last step navigated); the look at it meets the next load.
  load('http://a.com/two');
  loaded();
  await until(() => checks.length, 'the second health check');
  assert.equal(w.worker.skills.looking(1), true);
  load('http://a.com/two');
  checks.shift().reject(new Error('Frame with ID 0 was removed.'));
  await tick();
  assert.deepEqual(w.worker.registry.siteTools('a.com').map((x) => x.name), ['go'], 'the tools stay while the next page loads');
  loaded();
  await until(() => checks.length, 'the third health check');
  healthy();
  await until(() => !w.worker.skills.looking(1), 'the look ends');
  assert.deepEqual(w.worker.registry.siteTools('a.com').map((x) => x.name), ['go']);
});

test('a skill healthy on the last page keeps its tools while the next page is checked again; a call runs on the verdict', async (t) => {
  const w = startWorker(t);
  const { load, loaded } = tab1(w, 'http://a.com/one');
  const checks = [];
  w.chrome.scripting = { executeScript: () => new Promise((resolve) => checks.push(resolve)) };
  const answer = (healthy) => checks.shift()([{ frameId: 0, result: healthy ? { healthy: true } : { healthy: false, missing: ['#ok'] } }]);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL] });
  await until(() => checks.length, 'a health check');
  answer(true);
  await until(() => w.worker.registry.siteTools('a.com').length, 'the skill tools');

  load('http://a.com/two');
  loaded();
  await until(() => checks.length, 'the check of the new page');
  answer(false); // not rendered yet: checked again in 0.7 s
  await tick();
  assert.deepEqual(w.worker.registry.siteTools('a.com').map((x) => x.name), ['go'], 'the tools stay meanwhile');
  assert.equal(w.worker.skills.looking(1), true);
  w.call('s1', 'a.com', 'go');
  await tick();
  const navigations = () => w.calls.tabsUpdate.filter(([, props]) => props.url);
  assert.deepEqual(navigations(), [], 'the call waits for the verdict');
  await until(() => checks.length, 'the second check');
  answer(true);
  await until(() => navigations().length, 'the call runs');
  assert.deepEqual(navigations(), [[1, { url: 'http://a.com/next' }]]);
  load('http://a.com/next');
  loaded();
  const res = await until(() => w.fromHost().find((m) => m.type === 'result'), 'the result');
  assert.equal(res.ok, true, JSON.stringify(res));
});

test('a skill that fails every check on the new page loses its tools; a call says why', async (t) => {
  const w = startWorker(t);
  const { load, loaded } = tab1(w, 'http://a.com/one');
  const checks = [];
  w.chrome.scripting = { executeScript: () => new Promise((resolve) => checks.push(resolve)) };
  const answer = (healthy) => checks.shift()([{ frameId: 0, result: healthy ? { healthy: true } : { healthy: false, missing: ['#ok'] } }]);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL] });
  await until(() => checks.length, 'a health check');
  answer(true);
  await until(() => w.worker.registry.siteTools('a.com').length, 'the skill tools');
  load('http://a.com/two');
  loaded();
  for (let i = 0; i < 3; i++) {
    await until(() => checks.length, `check ${i + 1}`);
    if (i === 0) w.call('s2', 'a.com', 'go');
    answer(false);
  }
  const res = await until(() => w.fromHost().find((m) => m.type === 'result'), 'the result');
  assert.equal(res.error.code, 'not_found');
  assert.equal(res.error.message, 'a.com has no skill tool named "go" right now: skill demo does not fit this page (missing #ok).');
  await until(() => !w.worker.registry.siteTools('a.com').length, 'the tools go');
  assert.equal(w.worker.skills.looking(1), false);
});
