// "Save as skill" drafts (extension/lib/skills/draft.js): recorded browser calls on one tab ->
// a skill document; the host's model (`webmcp-sidecar skills validate`) accepts what it makes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDraft, callsFromLog, DraftError, defaultSkillName, matchFor, paramName } from '../../extension/lib/skills/draft.js';

const SHOP = 'http://127.0.0.1:8123/skills/shop.html';
const qty = { selector: 'input[name="qty-green"]', desc: 'spinbutton "Quantity"', role: 'spinbutton' };
const add = { selector: '[data-testid="add-green"]', desc: 'button "Add to cart"', role: 'button' };
const cart = { selector: '#cart-items', desc: 'list', role: 'list' };

/** The shop run of tests/e2e/test_save_skill.py, as the worker records it. */
const shopRun = () => [
  { n: 1, tool: 'navigate', args: { url: SHOP }, tabId: 7, url: 'about:blank', urlAfter: SHOP },
  { n: 2, tool: 'snapshot', args: {}, tabId: 7, url: SHOP, urlAfter: SHOP },
  { n: 3, tool: 'type', args: { ref: 'e5', text: '2' }, tabId: 7, url: SHOP, urlAfter: SHOP, target: qty },
  { n: 4, tool: 'click', args: { ref: 'e6' }, tabId: 7, url: SHOP, urlAfter: SHOP, target: add },
  { n: 5, tool: 'page_text', args: { ref: 'e2' }, tabId: 7, url: SHOP, urlAfter: SHOP, target: cart },
];

const python = new URL('../../.venv/bin/python', import.meta.url).pathname;
/** The host's verdict on a skill document (null when this checkout has no venv). */
function hostSays(skill) {
  if (!existsSync(python)) return null;
  const dir = mkdtempSync(join(tmpdir(), 'draft-'));
  const file = join(dir, `${skill.name}.skill.json`);
  writeFileSync(file, JSON.stringify(skill));
  try {
    return execFileSync(python, ['-m', 'webmcp_sidecar', 'skills', 'validate', file], { encoding: 'utf8' }).trim();
  } catch (e) {
    return `${e.stdout}${e.stderr}`.trim();
  }
}

test('the shop run: a parameter for the typed text, the click, the last read as extract and return', () => {
  const d = buildDraft(shopRun(), { name: 'tea-shop', toolName: 'add_green', params: { 2: 'quantity' } });
  assert.deepEqual(d.skill, {
    name: 'tea-shop',
    version: '0.1.0',
    description: 'Recorded on 127.0.0.1:8123/skills/shop.html.',
    match: ['http://127.0.0.1/skills/*'],
    health: { selectors: ['input[name="qty-green"]', '[data-testid="add-green"]'] },
    tools: [{
      name: 'add_green',
      description: 'Repeats a run recorded on 127.0.0.1:8123/skills/shop.html: fill, click, read.',
      inputSchema: {
        type: 'object',
        properties: { quantity: { type: 'string', description: 'Typed into spinbutton "Quantity".' } },
        required: ['quantity'],
      },
      steps: [
        { action: 'fill', selector: 'input[name="qty-green"]', value: '{{quantity}}' },
        { action: 'click', selector: '[data-testid="add-green"]' },
        { action: 'extract', as: 'result', selector: '#cart-items' },
        { action: 'return', value: '{{result}}' },
      ],
    }],
  });
  assert.deepEqual(d.calls, [3, 4, 5]);
  assert.deepEqual(d.params, [{ name: 'quantity', field: 'spinbutton "Quantity"' }]);
  const verdict = hostSays(d.skill);
  if (verdict !== null) assert.match(verdict, /a valid skill/);
});

test('parameters are named from the field when the caller does not name them, and hidden text still becomes one', () => {
  const run = shopRun();
  run[2].args.text = '[hidden]'; // what the operation log keeps of browser_type
  run.splice(3, 0, { n: 9, tool: 'type', args: { ref: 'e9', text: 'x', submit: true }, tabId: 7, url: SHOP, urlAfter: SHOP,
    target: { selector: 'input[name="q"]', desc: 'textbox', role: 'textbox' } });
  run.splice(4, 0, { n: 10, tool: 'type', args: { ref: 'e10', text: 'y', clear: false }, tabId: 7, url: SHOP, urlAfter: SHOP,
    target: { selector: '#note', desc: 'textbox "Quantity"', role: 'textbox' } });
  const d = buildDraft(run, { name: 'tea-shop', toolName: 'add' });
  const tool = d.skill.tools[0];
  assert.deepEqual(tool.inputSchema.required, ['quantity', 'q', 'quantity_2']);
  assert.deepEqual(tool.steps.slice(0, 4), [
    { action: 'fill', selector: 'input[name="qty-green"]', value: '{{quantity}}' },
    { action: 'fill', selector: 'input[name="q"]', value: '{{q}}' },
    { action: 'press', key: 'Enter', selector: 'input[name="q"]' },
    { action: 'type', selector: '#note', text: '{{quantity_2}}', clear: false },
  ]);
  // Health stops at the first thing that changed the page (the submit).
  assert.deepEqual(d.skill.health.selectors, ['input[name="qty-green"]', 'input[name="q"]']);
  const verdict = hostSays(d.skill);
  if (verdict !== null) assert.match(verdict, /a valid skill/);
});

test('the same text typed twice is one parameter; a chosen option is one only when named', () => {
  const sel = { selector: 'select[name="lang"]', desc: 'combobox "Language"', role: 'combobox' };
  const run = [
    { tool: 'type', args: { ref: 'e1', text: 'tea' }, tabId: 1, url: SHOP, target: { selector: '#a', desc: 'textbox "Search"' } },
    { tool: 'type', args: { ref: 'e2', text: 'tea' }, tabId: 1, url: SHOP, target: { selector: '#b', desc: 'textbox "Again"' } },
    { tool: 'select_option', args: { ref: 'e3', values: ['fr'] }, tabId: 1, url: SHOP, target: sel },
    { tool: 'select_option', args: { ref: 'e3', values: ['de', 'en'] }, tabId: 1, url: SHOP, target: sel },
  ];
  const d = buildDraft(run, { name: 's', toolName: 't', params: { de: 'lang' } });
  assert.deepEqual(d.skill.tools[0].steps, [
    { action: 'fill', selector: '#a', value: '{{search}}' },
    { action: 'fill', selector: '#b', value: '{{search}}' },
    { action: 'select', selector: 'select[name="lang"]', value: 'fr' },
    { action: 'select', selector: 'select[name="lang"]', values: ['{{lang}}', 'en'] },
  ]);
  assert.deepEqual(d.skill.tools[0].inputSchema.required, ['search', 'lang']);
});

test('navigation: the first page is where the run began; later loads on the site become navigate steps', () => {
  const results = 'http://127.0.0.1:8123/skills/results.html?q=x';
  const run = [
    { tool: 'navigate', args: { url: 'http://127.0.0.1:8123/skills/index.html' }, tabId: 3, url: 'about:blank', urlAfter: 'http://127.0.0.1:8123/skills/index.html' },
    { tool: 'navigate', args: { url: SHOP }, tabId: 3, url: 'http://127.0.0.1:8123/skills/index.html', urlAfter: SHOP },
    { tool: 'click', args: { ref: 'e1' }, tabId: 3, url: SHOP, urlAfter: results, target: { selector: '#go', role: 'button' } },
    { tool: 'wait_for', args: { navigation: true }, tabId: 3, url: results, urlAfter: results },
    { tool: 'wait_for', args: { text: 'results', timeout_s: 2 }, tabId: 3, url: results, urlAfter: results },
    { tool: 'navigate', args: { url: SHOP }, tabId: 3, url: results, urlAfter: `${SHOP}?again=1` },
    { tool: 'click', args: { ref: 'e2' }, tabId: 3, url: SHOP, urlAfter: SHOP, target: { selector: '#cb', role: 'checkbox', checked: false } },
    { tool: 'wait_for', args: { navigation: true }, tabId: 3, url: SHOP, urlAfter: SHOP },
    { tool: 'page_text', args: {}, tabId: 3, url: SHOP, urlAfter: SHOP },
    { tool: 'navigate', args: { url: 'https://example.com/' }, tabId: 3, url: SHOP, urlAfter: 'https://example.com/' },
    { tool: 'click', args: { ref: 'e3' }, tabId: 3, url: 'https://example.com/', target: { selector: 'a' } },
  ];
  const d = buildDraft(run, { name: 'nav', toolName: 'go', description: 'Search, come back' });
  assert.deepEqual(d.skill.match, ['http://127.0.0.1/skills/*']);
  assert.equal(d.skill.description, 'Search, come back');
  assert.deepEqual(d.skill.health, { selectors: ['#go'] });
  assert.deepEqual(d.skill.tools[0].steps, [
    { action: 'click', selector: '#go' },
    // no wait for navigation: the click navigated, and the runner waits for that itself
    { action: 'wait_for', text: 'results', timeout_ms: 2000 },
    { action: 'navigate', url: '/skills/shop.html?again=1' },
    { action: 'check', selector: '#cb', checked: false },
    { action: 'wait_for', navigation: true },
    { action: 'extract', as: 'result', selector: 'body' },
    { action: 'return', value: '{{result}}' },
  ]);
  assert.ok(d.notes.some((n) => n.includes('another site')), d.notes.join('\n'));
  const verdict = hostSays(d.skill);
  if (verdict !== null) assert.match(verdict, /a valid skill/);
});

test('only the tab of the run, successful calls, and steps a skill can take; notes say what was left out', () => {
  const run = [
    ...shopRun(),
    { tool: 'click', args: { ref: 'e8' }, tabId: 99, url: 'http://other/', target: { selector: '#x' } },
    { tool: 'click', args: { ref: 'e9' }, tabId: 7, ok: false, url: SHOP },
    { tool: 'hover', args: { ref: 'e9' }, tabId: 7, url: SHOP, target: { selector: '#menu' } },
    { tool: 'press_key', args: { key: 'Control+A' }, tabId: 7, url: SHOP },
    { tool: 'press_key', args: { key: 'Escape' }, tabId: 7, url: SHOP },
    { tool: 'click', args: { ref: 'e4' }, tabId: 7, url: SHOP, target: null },
    { tool: 'click', args: { ref: 'e4' }, tabId: 7, url: SHOP, target: { selector: '[title="{{x}}"]' } },
    { tool: 'screenshot', args: {}, tabId: 7, url: SHOP },
  ];
  const d = buildDraft(run, { name: 'tea-shop', toolName: 'add', tabId: 7 });
  assert.deepEqual(d.skill.tools[0].steps.map((s) => s.action), ['fill', 'click', 'extract', 'press', 'return']);
  const notes = d.notes.join('\n');
  for (const want of ['other tabs', 'failed', 'hover', 'combination', 'shadow tree', 'template']) assert.ok(notes.includes(want), `${want}: ${notes}`);
});

test('an explicit extract replaces the last read', () => {
  const d = buildDraft(shopRun(), {
    name: 'tea-shop', toolName: 'add', params: { 2: 'n' },
    extract: { list: '#cart-items li', fields: { line: {} }, limit: 5 },
  });
  assert.deepEqual(d.skill.tools[0].steps.slice(2), [
    { action: 'extract', as: 'result', list: '#cart-items li', fields: { line: {} }, limit: 5 },
    { action: 'return', value: '{{result}}' },
  ]);
  const verdict = hostSays(d.skill);
  if (verdict !== null) assert.match(verdict, /a valid skill/);
});

test('bad options and runs with nothing to repeat are refused in plain words', () => {
  assert.throws(() => buildDraft(shopRun(), { name: 'Tea Shop', toolName: 'x' }), /skill's name/);
  assert.throws(() => buildDraft(shopRun(), { name: 'tea', toolName: 'has space' }), /tool's name/);
  assert.throws(() => buildDraft(shopRun(), { name: 'tea', toolName: 't', params: { 2: '9lives' } }), /parameter name/);
  assert.throws(() => buildDraft([], { name: 'tea', toolName: 't' }), DraftError);
  assert.throws(() => buildDraft(shopRun().slice(0, 2), { name: 'tea', toolName: 't' }), /nothing a skill can repeat/);
  assert.throws(() => buildDraft([{ tool: 'click', url: 'chrome://newtab/', target: { selector: 'a' } }], { name: 'tea', toolName: 't' }),
    /web pages/);
});

test('names: parameters from labels, skills from hosts, match patterns from pages', () => {
  assert.equal(paramName('Quantity'), 'quantity');
  assert.equal(paramName('E-mail address:'), 'e_mail_address');
  assert.equal(paramName('Café crème'), 'cafe_creme');
  assert.equal(paramName('2nd line'), '_2nd_line');
  assert.equal(paramName('日本'), 'text');
  assert.match(paramName('x'.repeat(200)), /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
  assert.equal(defaultSkillName('https://www.shop.example.com/a'), 'shop-example-com-recorded');
  assert.equal(defaultSkillName('nonsense'), 'recorded-skill');
  assert.equal(matchFor('https://shop.example.com:8443/a/b/c.html?x=1'), 'https://shop.example.com/a/b/*');
  assert.equal(matchFor('http://[::1]:8080/'), 'http://[::1]/*');
});

// Issue 26 item 9: a draft is meant to be shared, so it carries no token.
const RESET = 'http://127.0.0.1:8123/skills/reset.html?key=Zx81kPq9LmT2vR7sW4yB3nC6&lang=en';
const API_KEY = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
const GH = 'ghp_abcdefghijklmnopqrstu12345';
const SECRETS = ['Zx81kPq9LmT2vR7sW4yB3nC6', API_KEY, GH, 'd41d8cd98f00b204e9800998ecf8427e'];
const secretRun = () => [
  ...shopRun().slice(0, 4),
  { n: 6, tool: 'click', args: { ref: 'e7' }, tabId: 7, url: SHOP, urlAfter: RESET,
    target: { selector: 'a[href="reset.html?key=Zx81kPq9LmT2vR7sW4yB3nC6&lang=en"]', desc: 'link "Reset"', role: 'link' } },
  { n: 7, tool: 'navigate', args: { url: RESET }, tabId: 7, url: RESET, urlAfter: RESET },
  { n: 8, tool: 'wait_for', args: { text: `Your new API key: ${API_KEY}` }, tabId: 7, url: RESET, urlAfter: RESET },
  { n: 9, tool: 'wait_for', args: { text: GH }, tabId: 7, url: RESET, urlAfter: RESET },
  { n: 10, tool: 'navigate', args: {}, tabId: 7, url: RESET, urlAfter: 'http://127.0.0.1:8123/skills/done.html#access_token=d41d8cd98f00b204e9800998ecf8427e' },
  { n: 11, tool: 'click', args: { ref: 'e9' }, tabId: 7, url: RESET, urlAfter: RESET, target: { selector: '#done', desc: 'button "Done"', role: 'button' } },
];

test('secrets in later addresses become parameters, in waited-for text are cut out, and the draft says so', () => {
  const d = buildDraft(secretRun(), { name: 'tea-shop', toolName: 'reset', params: { 2: 'quantity' } });
  const text = JSON.stringify(d.skill);
  for (const s of SECRETS) assert.ok(!text.includes(s), `${s} is in the draft`);
  const steps = d.skill.tools[0].steps;
  assert.deepEqual(steps.slice(2), [
    { action: 'click', selector: 'a[href^="reset.html?"]' },
    { action: 'navigate', url: '/skills/reset.html?key={{key}}&lang=en' },
    { action: 'wait_for', text: 'Your new API key:' },
    { action: 'navigate', url: '/skills/done.html#access_token={{access_token}}' },
    { action: 'click', selector: '#done' },
  ]);
  assert.deepEqual(d.skill.tools[0].inputSchema.required, ['quantity', 'key', 'access_token']);
  assert.match(d.skill.tools[0].inputSchema.properties.key.description, /^Goes into the address \/skills\/reset\.html\?key=…&lang=en \(the recorded value looked secret/);
  assert.deepEqual(d.removed, [
    'the href of the element browser_click acted on (href="reset.html?key=…&lang=en"): the selector matches its clear start now',
    'the address /skills/reset.html?key=…&lang=en: its secret values are parameters now',
    'the text "Your new API key: sk-…" browser_wait_for waited for: the step waits for "Your new API key:" now',
    'the text "ghp…" browser_wait_for waited for: left out (nothing clear was left to wait for)',
    'the address /skills/done.html#access_token=…: its secret values are parameters now',
  ]);
  for (const r of d.removed) assert.ok(d.notes.includes(`Taken out as a secret: ${r}.`));
  for (const s of SECRETS) assert.ok(!JSON.stringify([d.notes, d.removed, d.params]).includes(s), `${s} is in what the draft says`);
  const said = hostSays(d.skill);
  if (said !== null) assert.match(said, /a valid skill/, said);
});

test('a token as a path segment or the whole fragment: a parameter, or dropped; a start page\'s token is not in the pattern', () => {
  const tok = 'Qw3rTy7uI9oP1aS5dF8gH2jK';
  const start = `http://127.0.0.1:8123/invite/${tok}/shop.html`;
  const d = buildDraft([
    { n: 1, tool: 'click', args: { ref: 'e1' }, tabId: 7, url: start, urlAfter: start, target: add },
    { n: 2, tool: 'navigate', args: {}, tabId: 7, url: start, urlAfter: `http://127.0.0.1:8123/join/${tok}/x.html` },
    { n: 3, tool: 'navigate', args: {}, tabId: 7, url: start, urlAfter: `http://127.0.0.1:8123/skills/shop.html#${tok}` },
  ], { name: 'invite', toolName: 't' });
  assert.ok(!JSON.stringify(d.skill).includes(tok));
  assert.deepEqual(d.skill.match, ['http://127.0.0.1/invite/*/*']);
  assert.deepEqual(d.skill.tools[0].steps.slice(1), [
    { action: 'navigate', url: '/join/{{token}}/x.html' },
    { action: 'navigate', url: '/skills/shop.html' },
  ]);
  assert.equal(d.removed.length, 2);
  assert.match(d.removed[1], /its fragment was dropped/);
});

test('what is not secret stays as it was', () => {
  const page = 'http://127.0.0.1:8123/skills/list.html?page=2&sort=price&id=550e8400-e29b-41d4-a716-446655440000';
  const d = buildDraft([
    ...shopRun().slice(0, 4),
    { n: 6, tool: 'navigate', args: { url: page }, tabId: 7, url: SHOP, urlAfter: page },
    { n: 7, tool: 'wait_for', args: { text: 'Order 12345 of mcp-server-time==2026.1.1 is ready' }, tabId: 7, url: page, urlAfter: page },
  ], { name: 'tea-shop', toolName: 't' });
  assert.deepEqual(d.removed, []);
  assert.deepEqual(d.skill.tools[0].steps.slice(2), [
    { action: 'navigate', url: '/skills/list.html?page=2&sort=price&id=550e8400-e29b-41d4-a716-446655440000' },
    { action: 'wait_for', text: 'Order 12345 of mcp-server-time==2026.1.1 is ready' },
  ]);
});

test('a read of a page that had a list on it: the draft extracts its rows (waited for), not the page\'s text', () => {
  const rows = { list: 'table.rows-and-columns > tbody > tr', fields: { name: { selector: ':scope > :nth-child(1)' }, stars: { selector: ':scope > :nth-child(2)' } } };
  const run = [
    { tool: 'type', args: { ref: 'e1', text: 'sqlite', submit: true }, tabId: 3, url: SHOP, urlAfter: `${SHOP}?q=sqlite`, target: { selector: 'input[name="q"]', desc: 'searchbox "Search"', role: 'searchbox' } },
    { tool: 'page_text', args: {}, tabId: 3, url: `${SHOP}?q=sqlite`, urlAfter: `${SHOP}?q=sqlite`, rows },
  ];
  const d = buildDraft(run, { name: 'rows', toolName: 'search', params: { sqlite: 'query' } });
  assert.deepEqual(d.skill.tools[0].steps, [
    { action: 'fill', selector: 'input[name="q"]', value: '{{query}}' },
    { action: 'press', key: 'Enter', selector: 'input[name="q"]' },
    { action: 'wait_for', selector: 'table.rows-and-columns > tbody > tr' },
    { action: 'extract', as: 'result', list: 'table.rows-and-columns > tbody > tr', fields: rows.fields, limit: 50 },
    { action: 'return', value: '{{result}}' },
  ]);
  // The same from the operation log (Log view's "Save as skill").
  const fromLog = callsFromLog([{ site: 'browser', tool: 'page_text', args: {}, state: 'ok', rec: { tabId: 3, url: SHOP, urlAfter: SHOP, rows } }]);
  assert.deepEqual(fromLog[0].rows, rows);
  const verdict = hostSays(d.skill);
  if (verdict !== null) assert.match(verdict, /a valid skill/);
});
