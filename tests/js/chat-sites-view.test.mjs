// The side panel's Chat sites view: its rows (adapters with the worker's sites, verified or not),
// the tools grouped by where they come from, and a new adapter's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { adapterRows, toolGroups, newAdapterText } = await import('../../extension/sidepanel/chat-sites-view.js');

const ADAPTERS = [
  { name: 'deepseek', title: 'DeepSeek', version: '0.1.0', origin: 'shipped', enabled: true, verified: null,
    hostnames: ['chat.deepseek.com'], source: 'a public client', path: '/x/deepseek.chat.json' },
  { name: 'replica', title: 'Replica', version: '1.0.0', origin: 'user', enabled: true,
    verified: { host: '127.0.0.1:8123', at: 1, digest: 'd' }, hostnames: ['127.0.0.1:8123'], path: '/y' },
  { name: 'broken', origin: 'user (replaces shipped)', enabled: false, error: 'line 3: bad', path: '/z' },
];

test('rows: verified or not, removable unless shipped, each with its own sites', () => {
  const sites = [{ site: 'chat.deepseek.com', adapter: 'deepseek', enabled: false }, { site: '127.0.0.1:8123', adapter: 'replica', enabled: true }];
  const rows = adapterRows(ADAPTERS, sites);
  assert.deepEqual(rows.map((r) => [r.name, r.verified, r.verifiedOn, r.removable, r.sites.map((s) => s.site)]), [
    ['deepseek', false, null, false, ['chat.deepseek.com']],
    ['replica', true, '127.0.0.1:8123', true, ['127.0.0.1:8123']],
    ['broken', false, null, true, []],
  ]);
  assert.equal(rows[2].title, 'broken'); // no title: its name
  assert.equal(rows[2].enabled, false);
  assert.equal(rows[2].error, 'line 3: bad');
  assert.deepEqual(rows[2].hostnames, []);
});

test('rows: the last good round trip, where and when; none before the first', () => {
  const rows = adapterRows([{ ...ADAPTERS[1], verified: { host: 'chat.example.org', at: '2026-11-27T21:05:09+00:00' } }, ADAPTERS[0]], []);
  assert.equal(rows[0].lastRoundTrip, 'chat.example.org, 2026-11-27 21:05:09 UTC');
  assert.equal(rows[1].lastRoundTrip, null);
});

test('tools: local servers first, then open sites, grouped by where', () => {
  const tools = [
    { key: 'site:a.test/add', kind: 'site', where: 'a.test', tool: 'add' },
    { key: 'mcp:everything/add', kind: 'mcp', where: 'everything', tool: 'add' },
    { key: 'site:a.test/sub', kind: 'site', where: 'a.test', tool: 'sub' },
    { key: 'mcp:everything/echo', kind: 'mcp', where: 'everything', tool: 'echo' },
  ];
  assert.deepEqual(toolGroups(tools).map((g) => [g.label, g.tools.map((t) => t.key)]), [
    ['Local MCP server everything', ['mcp:everything/add', 'mcp:everything/echo']],
    ['Open site a.test', ['site:a.test/add', 'site:a.test/sub']],
  ]);
  assert.deepEqual(toolGroups([]), []);
});

test('a new adapter names the tab\'s host, and is a whole adapter', () => {
  const doc = JSON.parse(newAdapterText('https://chat.example.org:8443/c/1'));
  assert.deepEqual(doc.hostnames, ['chat.example.org:8443']);
  for (const k of ['name', 'title', 'version', 'source', 'request', 'response', 'selectors']) assert.ok(k in doc, k);
  assert.deepEqual(JSON.parse(newAdapterText('chrome://newtab/')).hostnames, ['chat.example.com']);
  assert.deepEqual(JSON.parse(newAdapterText(null)).hostnames, ['chat.example.com']);
});
