// lib/skills/runner.js with a fake io: steps resolved and run in order, extracted values kept
// across a navigation, `return`, optional steps, off-site navigation refused, errors named by step.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSkillTool, StepError, onSite, urlGlob, stepLabel } from '../../extension/lib/skills/runner.js';

/** A fake tab: records each step; `answers` by action; navigations counted by `loads`. */
function fakeIo({ answers = {}, fail = {} } = {}) {
  const io = {
    log: [],
    loads: 0,
    url: 'http://shop.test/search',
    mark: () => ({ loads: io.loads }),
    async step(step, index) {
      io.log.push(['step', index, step]);
      if (fail[step.action]) throw Object.assign(new Error(fail[step.action]), { code: 'page_error' });
      return answers[step.action] ?? { ok: true };
    },
    async trusted(step, answer) { io.log.push(['trusted', step.action, answer]); },
    async navigate(url) { io.log.push(['navigate', url]); io.url = url; io.loads++; },
    async waitUrl(testUrl, since) {
      io.log.push(['waitUrl', since]);
      return since ? io.loads > since.loads : testUrl(io.url);
    },
    async settle(answer, mark) {
      io.log.push(['settle', mark.loads]);
      if (answer?.navigating) { io.loads++; io.url = 'http://shop.test/results'; }
    },
  };
  return io;
}

const ctx = { site: 'shop.test', pageUrl: 'http://shop.test/search' };

test('steps run in order with their templates resolved; return builds the result', async () => {
  const io = fakeIo({ answers: { extract: { ok: true, value: [{ title: 'Tea' }] }, click: { ok: true, navigating: true } } });
  const tool = {
    steps: [
      { action: 'fill', selector: '#q', value: '{{query}}' },
      { action: 'click', selector: 'button' },
      { action: 'wait_for', navigation: true },
      { action: 'extract', as: 'items', list: '.r', fields: { title: { selector: '.t' } } },
      { action: 'return', value: { query: 'q={{query}}', items: '{{items}}', n: 3 } },
    ],
  };
  const value = await runSkillTool(tool, { query: 'green tea' }, io, ctx);
  assert.deepEqual(value, { query: 'q=green tea', items: [{ title: 'Tea' }], n: 3 });
  assert.deepEqual(io.log[0], ['step', 0, { action: 'fill', selector: '#q', value: 'green tea' }]);
  // The click's navigation is what `wait_for navigation` waited for (a load since the click).
  assert.deepEqual(io.log.filter((x) => x[0] === 'waitUrl'), [['waitUrl', { loads: 0 }]]);
});

test('an argument left out stands for its schema default', async () => {
  const io = fakeIo();
  const tool = {
    inputSchema: { type: 'object', properties: { lang: { type: 'string', default: 'any' }, q: { type: 'string' } } },
    steps: [{ action: 'select', selector: '#lang', value: '{{lang}}' }, { action: 'fill', selector: '#q', value: '[{{q}}]' }],
  };
  await runSkillTool(tool, { q: 'x' }, io, ctx);
  assert.equal(io.log[0][2].value, 'any');
  await runSkillTool(tool, { lang: 'fr' }, io, ctx);
  assert.deepEqual(io.log.filter((x) => x[0] === 'step').map((x) => x[2].value), ['any', '[x]', 'fr', '[]']);
});

test('without return, the result is every extracted value', async () => {
  const io = fakeIo({ answers: { extract: { ok: true, value: '3' } } });
  const value = await runSkillTool({ steps: [{ action: 'extract', as: 'count', selector: '#n' }] }, {}, io, ctx);
  assert.deepEqual(value, { count: '3' });
});

test('navigate resolves against the page, percent-encodes arguments and stays on the site', async () => {
  const io = fakeIo();
  await runSkillTool({ steps: [{ action: 'navigate', url: '/find?q={{q}}' }] }, { q: 'a b&c' }, io, ctx);
  assert.deepEqual(io.log[0], ['navigate', 'http://shop.test/find?q=a%20b%26c']);
  await assert.rejects(runSkillTool({ steps: [{ action: 'navigate', url: 'https://evil.test/' }] }, {}, fakeIo(), ctx),
    (e) => e instanceof StepError && e.code === 'bad_request' && /step 1 \(navigate .*not on shop\.test/.test(e.message));
  await assert.rejects(runSkillTool({ steps: [{ action: 'navigate', url: 'javascript:alert(1)' }] }, {}, fakeIo(), ctx),
    (e) => e instanceof StepError && /not on shop\.test/.test(e.message));
});

test('a failing step names itself; an optional one is skipped', async () => {
  const io = fakeIo({ fail: { click: 'no element matches' } });
  await assert.rejects(runSkillTool({ steps: [{ action: 'click', selector: '#go' }] }, {}, io, ctx),
    (e) => e instanceof StepError && e.message === 'step 1 (click "#go"): no element matches');
  const io2 = fakeIo({ fail: { click: 'no element matches' }, answers: { extract: { ok: true, value: 'x' } } });
  const v = await runSkillTool({ steps: [{ action: 'click', selector: '#go', optional: true }, { action: 'extract', as: 'a', selector: 'h1' }] }, {}, io2, ctx);
  assert.deepEqual(v, { a: 'x' });
});

test('a trusted step hands the page\'s answer to real input', async () => {
  const io = fakeIo({ answers: { click: { trusted: true, point: { x: 5, y: 6 } } } });
  await runSkillTool({ steps: [{ action: 'click', selector: '#buy', trusted: true }] }, {}, io, ctx);
  assert.deepEqual(io.log[1], ['trusted', 'click', { trusted: true, point: { x: 5, y: 6 } }]);
});

test('wait_for url times out with a plain message; a cancelled call stops before the next step', async () => {
  await assert.rejects(runSkillTool({ steps: [{ action: 'wait_for', url: '*/done*', timeout_ms: 10 }] }, {}, fakeIo(), ctx),
    (e) => e.code === 'timeout' && /the tab's URL did not match "\*\/done\*" within 10 ms/.test(e.message));
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(runSkillTool({ steps: [{ action: 'click', selector: 'a' }] }, {}, fakeIo(), { ...ctx, signal: ac.signal }),
    (e) => e.code === 'cancelled');
});

test('helpers: onSite, urlGlob, stepLabel', () => {
  assert.equal(onSite('http://shop.test/x', 'shop.test'), true);
  assert.equal(onSite('http://shop.test:81/x', 'shop.test'), false);
  assert.equal(onSite('file:///etc/passwd', 'shop.test'), false);
  assert.equal(urlGlob('*/results.html?q=*')('http://a.test/results.html?q=tea'), true);
  assert.equal(urlGlob('*/results.html')('http://a.test/results.html?q=tea'), false);
  assert.equal(urlGlob('http://a.test/(x)')('http://a.test/(x)'), true);
  assert.equal(stepLabel({ action: 'press', key: 'Enter' }, 2), 'step 3 (press "Enter")');
});

test('runs of page steps go to the page together, split where a step needs a value extracted in the run', async () => {
  const io = fakeIo();
  const batches = [];
  io.steps = async (steps, start) => {
    batches.push([start, steps.map((s) => s.action)]);
    return steps.map((s) => (s.action === 'extract' ? { ok: true, value: `v${start}` } : { ok: true }));
  };
  const tool = {
    steps: [
      { action: 'fill', selector: '#a', value: '{{x}}' },
      { action: 'click', selector: '#go' },
      { action: 'extract', as: 'sum', selector: '#sum' },
      { action: 'fill', selector: '#b', value: '{{sum}}' }, // needs `sum`: a new run
      { action: 'extract', as: 'again', selector: '#b' },
      { action: 'navigate', url: '/next' }, // the worker's
      { action: 'extract', as: 'last', selector: 'h1' }, // alone: a single step
      { action: 'return', value: { sum: '{{sum}}', again: '{{again}}', last: '{{last}}' } },
    ],
  };
  const value = await runSkillTool(tool, { x: 1 }, io, ctx);
  assert.deepEqual(batches, [[0, ['fill', 'click', 'extract']], [3, ['fill', 'extract']]]);
  assert.deepEqual(value, { sum: 'v0', again: 'v3', last: '' }); // io.step answered no value
});

test('a run that began a navigation ends early; the rest goes on after the new page loads', async () => {
  const io = fakeIo();
  const batches = [];
  io.steps = async (steps, start) => {
    batches.push(start);
    return start === 0 ? [{ ok: true }, { ok: true, navigating: true }] : steps.map(() => ({ ok: true, value: 'r' }));
  };
  const tool = { steps: [
    { action: 'fill', selector: '#q', value: 'x' }, { action: 'click', selector: '#go' },
    { action: 'wait_for', selector: '.r' }, { action: 'extract', as: 'r', selector: '.r' },
  ] };
  const value = await runSkillTool(tool, {}, io, ctx);
  assert.deepEqual(batches, [0, 2]);
  assert.ok(io.log.some((x) => x[0] === 'settle'));
  assert.deepEqual(value, { r: 'r' });
});
