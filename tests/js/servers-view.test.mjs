// The Servers view's logic: rows and plain words, progress text, and which servers each
// conversation uses (kept in storage, moved to a new conversation's id when it gets one).
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { serverRows, stateWords, progressText, Choices, chatServers, NEW_CONVERSATION, inspectorServers } = await import('../../extension/sidepanel/servers-view.js');
const { KnownTools } = await import('../../extension/sidepanel/known-tools.js');
const { whereOf } = await import('../../extension/sidepanel/log-view.js');

const SERVERS = [
  { name: 'files', kind: 'stdio', enabled: true, state: 'running', tools: 2, disabled_tools: ['write_file'] },
  { name: 'db', kind: 'http', enabled: true, state: 'failed', tools: 0, last_error: 'cannot connect (refused)' },
  { name: 'old', kind: 'stdio', enabled: false, state: 'stopped', tools: 0 },
];

test('rows: tools on then off, problems in plain words', () => {
  const rows = serverRows(SERVERS, { files: [{ name: 'read_file', annotations: { readOnlyHint: true } }, { name: 'list' }] });
  assert.deepEqual(rows[0].tools, [
    { name: 'read_file', enabled: true, readOnly: true }, { name: 'list', enabled: true, readOnly: false },
    { name: 'write_file', enabled: false, readOnly: false }]);
  assert.equal(rows[0].problem, '');
  assert.equal(rows[1].problem, 'cannot connect (refused)');
  assert.equal(rows[1].words, 'failed: cannot connect (refused)');
  assert.equal(rows[2].words, 'off');
  assert.equal(stateWords({ state: 'stopped', enabled: true }), 'not started (starts when used)');
});

test('progress text', () => {
  assert.equal(progressText({ progress: 1, total: 4, message: 'copying' }), 'copying · 1 of 4 (25%)');
  assert.equal(progressText({ progress: 7 }), '7');
  assert.equal(progressText({ progress: 9, total: 3 }), '9 of 3 (100%)');
});

class Mem {
  items = new Map();
  getItem(k) { return this.items.get(k) ?? null; }
  setItem(k, v) { this.items.set(k, v); }
}

test('each conversation keeps its choice of servers; a new one hands its choice to its id', () => {
  const store = new Mem();
  const c = new Choices(store);
  assert.equal(c.get('conv1'), null); // the default: every enabled server
  c.set('conv1', ['files']);
  c.set(null, ['db', 'db']);
  assert.deepEqual(c.get(NEW_CONVERSATION), ['db']);
  c.adopt('conv2');
  assert.deepEqual(c.get('conv2'), ['db']);
  assert.equal(c.get(null), null);
  const again = new Choices(store); // the panel reopened
  assert.deepEqual(again.get('conv1'), ['files']);
  again.set('conv1', null);
  assert.equal(new Choices(store).get('conv1'), null);
  assert.equal(new Choices({ getItem: () => '{broken', setItem() {} }).get('x'), null);
});

test('what panel_chat carries: only enabled servers of the choice, nothing for the default', () => {
  const c = new Choices(null);
  assert.equal(chatServers(c, 'x', SERVERS), null);
  c.set('x', ['db', 'old', 'gone']);
  assert.deepEqual(chatServers(c, 'x', SERVERS), ['db']);
  c.set('x', []);
  assert.deepEqual(chatServers(c, 'x', SERVERS), []); // none in play
});

test('old choices go first once there are too many', () => {
  const c = new Choices(null);
  for (let i = 0; i < 205; i++) c.set(`c${i}`, ['a']);
  assert.equal(c.map.size, 200);
  assert.equal(c.get('c0'), null);
  assert.deepEqual(c.get('c204'), ['a']);
});

test('the Inspector\'s servers: running ones with their tools, the others with the tools they had last (switched-off ones left out)', () => {
  const store = new Mem();
  const known = new KnownTools(store);
  known.remember({ files: [{ name: 'read_file' }, { name: 'write_file' }], db: [{ name: 'query' }] });
  const again = new KnownTools(store); // a fresh panel
  assert.deepEqual(Object.keys(again.tools).sort(), ['db', 'files']);
  const servers = [
    { name: 'files', enabled: true, state: 'stopped', disabled_tools: ['write_file'] },
    { name: 'db', enabled: true, state: 'running' },
    { name: 'new', enabled: true, state: 'stopped' },
    { name: 'old', enabled: false, state: 'stopped' },
  ];
  const rows = inspectorServers(servers, { db: [{ name: 'query' }, { name: 'schema' }] }, again.tools);
  assert.deepEqual(rows.map((r) => [r.name, r.running, r.stale, r.tools.map((t) => t.name), r.words]), [
    ['files', false, true, ['read_file'], 'not started (starts when used)'],
    ['db', true, false, ['query', 'schema'], 'running'],
    ['new', false, false, [], 'not started (starts when used)'],
  ]);
  again.keepOnly(['files']);
  assert.deepEqual(Object.keys(new KnownTools(store).tools), ['files'], 'a server no longer configured is forgotten');
});

test('a Log row says where its call went: a local server by name, the browser, a site', () => {
  assert.deepEqual(whereOf('mcp:everything'), { text: 'everything (local MCP server)', title: 'your local MCP server everything' });
  assert.deepEqual(whereOf('browser'), { text: 'the browser', title: 'a browser tool' });
  assert.deepEqual(whereOf('127.0.0.1:8001'), { text: '127.0.0.1:8001', title: 'the site 127.0.0.1:8001' });
});
