// The side panel's Skills view: its pure model (lib/skills/view-model.js) and the worker's
// answers to it (background/skills-panel.js), on fakes of Skills and the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  draftTools, exportFileName, newSkillText, offsetOf, parseProblem, problemText, skillRows,
} from '../../extension/lib/skills/view-model.js';
import { createSkillsPanel, parseDraft } from '../../extension/background/skills-panel.js';
import { createRoutes } from '../../extension/background/routes.js';

const shop = {
  name: 'demo-shop', version: '1.0.0', description: 'Tea', match: ['http://127.0.0.1/skills/shop.html*'],
  enabled: true, disabled_tools: ['checkout'], tools: ['list_products', 'add_to_cart', 'checkout', 'search'], path: '/x', error: null,
};

test('rows join the host list with the tab: live, hidden by the page, taken by another skill, off', () => {
  const here = {
    status: [{ skill: 'demo-shop', matched: true, healthy: true, tools: ['list_products', 'add_to_cart'] }],
    hidden: ['add_to_cart'],
  };
  const [row] = skillRows([shop], here);
  assert.deepEqual(row.here, { healthy: true });
  assert.deepEqual(row.tools.map((t) => [t.name, t.enabled, t.state]), [
    ['list_products', true, 'live'],
    ['add_to_cart', true, 'hidden'],
    ['checkout', false, 'off'],
    ['search', true, 'taken'],
  ]);
});

test('a skill that fails its health check, one that does not match, one disabled, one broken', () => {
  const here = { status: [{ skill: 'demo-shop', matched: true, healthy: false, reason: 'missing #cart', tools: [] }], hidden: [] };
  const rows = skillRows([
    shop,
    { name: 'other', tools: ['a'], match: ['https://x.test/*'], enabled: true },
    { name: 'off', tools: ['b'], enabled: false, disabled_tools: [] },
    { name: 'broken', tools: [], enabled: true, error: 'line 3: bad' },
  ], here);
  assert.deepEqual(rows[0].here, { healthy: false, reason: 'missing #cart' });
  assert.equal(rows[0].tools[0].state, 'unhealthy');
  assert.equal(rows[1].here, null);
  assert.equal(rows[1].tools[0].state, 'idle');
  assert.deepEqual([rows[2].enabled, rows[2].tools[0].enabled, rows[2].tools[0].state], [false, true, 'off']);
  assert.equal(rows[3].error, 'line 3: bad');
});

test('a disabled skill is never shown as matching, even if the tab still lists it', () => {
  const here = { status: [{ skill: 'off', matched: true, healthy: true, tools: ['b'] }] };
  const [row] = skillRows([{ name: 'off', tools: ['b'], enabled: false }], here);
  assert.equal(row.here, null);
  assert.equal(row.tools[0].state, 'off');
});

test('rows survive junk from either side', () => {
  assert.deepEqual(skillRows(null, null), []);
  const rows = skillRows([null, 7, { name: 3 }, { name: 'ok', tools: 'x', match: [1, 'a'] }], { status: 'x', hidden: {} });
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0].tools, []);
  assert.deepEqual(rows[0].match, ['a']);
});

test("the host's problems split into line, column, field and message", () => {
  const p = parseProblem("skill.json:20:7: tools[1].name: String should match pattern '^[A-Za-z0-9_.\\-]{1,128}$'");
  assert.deepEqual(p, { line: 20, column: 7, field: 'tools[1].name', message: "String should match pattern '^[A-Za-z0-9_.\\-]{1,128}$'" });
  assert.equal(problemText(p), "line 20, column 7 · tools[1].name: String should match pattern '^[A-Za-z0-9_.\\-]{1,128}$'");
  assert.deepEqual(parseProblem('skill.json:1:10: not valid JSON: Expecting value'),
    { line: 1, column: 10, field: null, message: 'not valid JSON: Expecting value' });
  assert.deepEqual(parseProblem('the file is too big'), { line: null, column: null, field: null, message: 'the file is too big' });
  assert.equal(problemText(parseProblem('the file is too big')), 'the file is too big');
});

test('offsetOf puts the cursor on a line and column, clamped to the line', () => {
  const text = '{\n  "name": 1,\n}';
  assert.equal(offsetOf(text, 1, 1), 0);
  assert.equal(text.slice(offsetOf(text, 2, 3)), '"name": 1,\n}');
  assert.equal(offsetOf(text, 2, 99), text.indexOf(',') + 1);
  assert.equal(offsetOf(text, 9, 1), text.length);
});

test("draftTools reads the editor's tools and schemas, or says why not", () => {
  const d = draftTools(JSON.stringify({ name: 's', tools: [{ name: 'a', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, { name: 'b' }, { x: 1 }] }));
  assert.equal(d.ok, true);
  assert.deepEqual(d.ok && d.tools.map((t) => [t.name, Object.keys(t.inputSchema.properties)]), [['a', ['q']], ['b', []]]);
  const bad = draftTools('{"name": ');
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.error : '', /not valid JSON/);
  assert.equal(draftTools('[1]').ok, false);
});

test('export file names and a new skill for the tab', () => {
  assert.equal(exportFileName('demo-shop'), 'demo-shop.skill.json');
  assert.equal(exportFileName('../x y'), '___x_y.skill.json');
  const doc = JSON.parse(newSkillText('http://127.0.0.1:8080/skills/shop.html'));
  assert.deepEqual(doc.match, ['http://127.0.0.1/*']);
  assert.deepEqual(JSON.parse(newSkillText('chrome://newtab')).match, ['https://example.com/*']);
});

// --- the worker's side -------------------------------------------------------------------------

function fakes() {
  const calls = [];
  const chrome = /** @type {any} */ ({
    runtime: { id: 'ext', getURL: (p) => `chrome-extension://ext/${p}` },
    tabs: { get: async (id) => (id === 5 ? { id, url: 'http://127.0.0.1:8080/skills/shop.html' } : Promise.reject(new Error('no tab'))) },
  });
  const skills = /** @type {any} */ ({
    evaluate: async (id) => void calls.push(['evaluate', id]),
    statusOf: (id) => [{ skill: 'demo-shop', matched: true, healthy: true, tools: [`t${id}`] }],
    tryDraft: async (...a) => {
      calls.push(['tryDraft', ...a]);
      return { matched: true, healthy: true, ok: true, value: 1 };
    },
  });
  const registry = /** @type {any} */ ({ hiddenSkillTools: (site) => (site === '127.0.0.1:8080' ? ['add_to_cart'] : []) });
  // As the side panel asks: through the worker's routes (chrome.runtime.onMessage), which let
  // only our own pages through.
  const skillsPanel = createSkillsPanel({ chrome, skills, registry });
  const routes = createRoutes(/** @type {any} */ ({ chrome, skillsPanel, log() {} }));
  const routed = (type) => (msg, sender, respond) => routes.onRuntimeMessage({ ...msg, type }, sender, respond);
  return { calls, panel: { status: routed('skills_status'), try: routed('skills_try') } };
}

/** @returns {Promise<any>} what the handler answered (sync or async) */
function ask(handler, msg, sender = { id: 'ext', url: 'chrome-extension://ext/sidepanel/index.html', tab: { id: 2 } }) {
  return new Promise((resolve) => {
    const async = handler(msg, sender, resolve);
    if (!async) setTimeout(() => resolve('(no answer)'), 0);
  });
}

test('skills_status: a fresh look at the tab, its statuses and the hidden tools of its site', async () => {
  const { calls, panel } = fakes();
  assert.deepEqual(await ask(panel.status, { tabId: 5, fresh: true }), {
    tabId: 5, site: '127.0.0.1:8080', status: [{ skill: 'demo-shop', matched: true, healthy: true, tools: ['t5'] }], hidden: ['add_to_cart'],
  });
  assert.deepEqual(calls, [['evaluate', 5]]);
  const cached = await ask(panel.status, { tabId: 5 });
  assert.equal(cached.site, '127.0.0.1:8080');
  assert.equal(calls.length, 1, 'no fresh look unless asked');
  assert.deepEqual((await ask(panel.status, { tabId: 9 })).hidden, [], 'a closed tab has no site');
  assert.deepEqual(await ask(panel.status, { tabId: 'x' }), { error: 'tabId must be a tab id' });
});

test('skills_try: parses the draft and runs it with the tool and arguments; bad drafts are refused', async () => {
  const { calls, panel } = fakes();
  const text = JSON.stringify({ name: 'd', match: ['http://127.0.0.1/*'], tools: [] });
  assert.deepEqual(await ask(panel.try, { tabId: 5, text, tool: 'add_to_cart', args: { sku: 'green' } }),
    { matched: true, healthy: true, ok: true, value: 1 });
  assert.deepEqual(calls[0].slice(0, 5), ['tryDraft', 5, JSON.parse(text), 'add_to_cart', { sku: 'green' }]);
  await ask(panel.try, { tabId: 5, text, tool: '', args: [1] });
  assert.deepEqual(calls[1].slice(3, 5), [null, {}], 'no tool: the health check only; arguments must be an object');
  assert.match((await ask(panel.try, { tabId: 5, text: '{' })).error, /not valid JSON/);
  assert.match((await ask(panel.try, { tabId: 5, text: 'x'.repeat(300 * 1024) })).error, /over 256 KiB/);
  assert.equal(calls.length, 2);
});

test('pages (and other extensions) get no answer at all', async () => {
  const { calls, panel } = fakes();
  // A content script: our extension's id, but the page's URL.
  const page = { id: 'ext', url: 'http://127.0.0.1/skills/shop.html', tab: /** @type {any} */ ({ id: 5 }) };
  assert.equal(await ask(panel.status, { tabId: 5, fresh: true }, page), '(no answer)');
  assert.equal(await ask(panel.try, { tabId: 5, text: '{}' }, page), '(no answer)');
  assert.equal(await ask(panel.status, { tabId: 5 }, { id: 'other', url: 'chrome-extension://other/x.html' }), '(no answer)');
  assert.equal(await ask(panel.status, { tabId: 5 }, { id: 'ext' }), '(no answer)', 'no URL: not known to be ours');
  assert.deepEqual(calls, []);
});

test('parseDraft takes text or an already parsed skill', () => {
  assert.deepEqual(parseDraft({ skill: { name: 'a' } }), { skill: { name: 'a' } });
  assert.deepEqual(parseDraft({}), { error: 'no skill to try (text or skill)' });
  assert.deepEqual(parseDraft({ text: '"x"' }), { error: 'no skill to try (text or skill)' });
});
