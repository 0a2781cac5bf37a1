// The worker's side of the side panel's Chat sites view (background/chat-sites.js): the sites and
// their settings (`chat_sites_state`), a site's tools (`chat_sites_tools`), changes
// (`chat_sites_set`) reaching the site's open toolbars; extension pages only (routes.js, the
// worker's one check of senders, in front of it); and which calls run
// without a click (read-only ones when the site allows it, any one tool the user allowed).
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { ChatSites, autoRuns } = await import('../../extension/background/chat-sites.js');
const { createRoutes } = await import('../../extension/background/routes.js');

const ID = 'fafdbggbcpipbkecmkjnkpdagfobdohc';
const PANEL = { id: ID, url: `chrome-extension://${ID}/sidepanel/index.html` };
const ADAPTER = { name: 'replica', title: 'Replica', hostnames: ['127.0.0.1:8123', '*.chat.test'], verified: false,
  request: { url: '/api/chat', method: 'POST', message_path: 'messages[-1].content' },
  response: { kind: 'sse', text_paths: ['x'] }, selectors: { input: '#i', last_answer: '.a' } };

function setup() {
  const stored = {};
  const injected = [];
  const sent = [];
  const ev = () => ({ addListener() {} });
  const chrome = {
    runtime: { id: ID, getURL: (p) => `chrome-extension://${ID}/${p}` },
    tabs: { onUpdated: ev(), query: async () => [{ id: 4, url: 'http://127.0.0.1:8123/' }, { id: 5, url: 'https://x.test/' }] },
    storage: { local: { get: async () => ({}), set: async (o) => Object.assign(stored, o) } },
    scripting: { executeScript: async (o) => { injected.push(o); return []; } },
  };
  const registry = { snapshot: () => ({
    'a.test': [{ name: 'add', description: 'Add', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'buy', description: 'Buy', annotations: { readOnlyHint: true, destructiveHint: true } }],
  }) };
  const cs = new ChatSites({ chrome: /** @type {any} */ (chrome), registry: /** @type {any} */ (registry), runCall() {},
    send: (m) => {
      sent.push(m);
      if (m.op === 'tools') queueMicrotask(() => cs.serverResult({ id: m.id, ok: true, tools: { everything: [{ name: 'echo', annotations: {} }] } }));
      return true;
    },
    logCall() {}, logEnd() {}, log() {} });
  // As the side panel asks: through the worker's routes (chrome.runtime.onMessage).
  const routes = createRoutes(/** @type {any} */ ({ chrome, chatSites: cs, log() {} }));
  const ask = (msg, sender = PANEL) => new Promise((resolve, reject) => {
    const kept = routes.onRuntimeMessage(msg, /** @type {any} */ (sender), resolve);
    if (!kept) reject(new Error('refused'));
  });
  return { cs, stored, injected, sent, ask };
}

test('the sites of each adapter: its hostnames, open tabs, and sites with settings', async () => {
  const { cs, ask } = setup();
  await cs.update([ADAPTER]);
  const r = /** @type {any} */ (await ask({ type: 'chat_sites_state' }));
  assert.deepEqual(r.sites.map((s) => [s.site, s.adapter, s.open, s.enabled]),
    [['127.0.0.1:8123', 'replica', true, false], ['chat.test', 'replica', false, false]]);
});

test('tools, then a change: stored, the open toolbar told, the hook injected', async () => {
  const { cs, ask, stored, injected } = setup();
  await cs.update([ADAPTER]);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(injected.filter((o) => o.world === 'MAIN').length, 0);
  const posted = [];
  const port = { sender: { tab: { id: 4 }, frameId: 0, url: 'http://127.0.0.1:8123/' }, postMessage: (m) => posted.push(m) };
  cs.ports.add(/** @type {any} */ (port));
  const tools = /** @type {any} */ (await ask({ type: 'chat_sites_tools', site: '127.0.0.1:8123' }));
  assert.deepEqual(tools.tools.map((t) => [t.key, t.kind, t.readOnly, t.chosen]), [
    ['site:a.test/add', 'site', true, false], ['site:a.test/buy', 'site', false, false], ['mcp:everything/echo', 'mcp', false, false]]);
  const set = /** @type {any} */ (await ask({ type: 'chat_sites_set', site: '127.0.0.1:8123', enabled: true,
    chosen: ['site:a.test/add', 'site:a.test/buy', 7], allowed: ['site:a.test/buy'], autoRun: true }));
  assert.deepEqual([set.enabled, set.chosen, set.allowed, set.autoRun, set.autoSend],
    [true, ['site:a.test/add', 'site:a.test/buy'], ['site:a.test/buy'], true, false]);
  assert.deepEqual(stored['chatSites.prefs']['127.0.0.1:8123'].allowed, ['site:a.test/buy']);
  // The toolbar went into the open tab when the adapters came; the hook only now, tools being on.
  assert.deepEqual(injected.filter((o) => o.world === 'MAIN').map((o) => [o.target.tabId, o.files]), [[4, ['page/chat/hook.js']]]);
  await new Promise((r) => setTimeout(r, 10));
  const state = posted.at(-1);
  assert.equal(state.type, 'state');
  // `add` says it only reads, but that is a web page's word: it waits for a click; `buy` is allowed.
  assert.deepEqual(state.tools.filter((t) => t.chosen).map((t) => [t.tool, t.autoRun]), [['add', false], ['buy', true]]);
  assert.ok(state.block.includes('buy'));
});

test('extension pages only, and only sites an adapter names', async () => {
  const { cs, ask } = setup();
  await cs.update([ADAPTER]);
  await assert.rejects(ask({ type: 'chat_sites_state' }, { id: ID, url: 'http://127.0.0.1:8123/', tab: { id: 4 } }));
  assert.ok(await ask({ type: 'chat_sites_state' }, { ...PANEL, tab: { id: 9 } })); // the panel opened in a tab
  await assert.rejects(ask({ type: 'chat_sites_state' }, { id: 'another', url: 'chrome-extension://another/x.html' }));
  const r = /** @type {any} */ (await ask({ type: 'chat_sites_set', site: 'evil.test', enabled: true }));
  assert.match(r.error, /No enabled chat-site adapter names evil.test/);
  assert.deepEqual(cs.prefs, {});
});

test('an https chat site settings never reach a plain-http page of its host (a network attacker)', async () => {
  const { cs, injected } = setup();
  const adapter = { ...ADAPTER, hostnames: ['chat.example'] };
  await cs.update([adapter]);
  cs.prefs = { 'chat.example': { enabled: true, chosen: ['site:a.test/add'], autoRun: true, autoSend: true, allowed: [] } };
  injected.length = 0;
  // The http page gets no toolbar, no hook, no state, and cannot run or change anything.
  await cs.offer(7, 'http://chat.example/');
  assert.deepEqual(injected, []);
  const posted = [];
  const port = { sender: { tab: { id: 7 }, frameId: 0, url: 'http://chat.example/', id: ID }, postMessage: (m) => posted.push(m) };
  await cs.fromPage(port, { type: 'hello' });
  await cs.fromPage(port, { type: 'set', autoRun: true, enabled: true });
  await cs.fromPage(port, { type: 'run', req: 1, name: 'add', arguments: {} });
  assert.deepEqual(posted, []);
  assert.deepEqual(Object.keys(cs.prefs), ['chat.example']);
  // The https page of that host has them.
  await cs.offer(8, 'https://chat.example/');
  assert.deepEqual(injected.map((o) => [o.target.tabId, o.world ?? 'ISOLATED']), [[8, 'ISOLATED'], [8, 'MAIN']]);
  const good = { sender: { tab: { id: 8 }, frameId: 0, url: 'https://chat.example/', id: ID }, postMessage: (m) => posted.push(m) };
  await cs.fromPage(good, { type: 'hello' });
  assert.equal(posted.at(-1)?.type, 'state');
  assert.equal(posted.at(-1)?.enabled, true);
});

test('auto-run never takes a web page word that its own tool only reads; a skill or a server it does', async () => {
  const { cs, ask } = setup(); // a.test's `add` says readOnlyHint: true (a page's tool)
  const skills = { snapshot: () => ({ 'a.test': [{ name: 'wipe', annotations: { readOnlyHint: true } }],
    'b.test': [{ name: 'list', source: 'skill', annotations: { readOnlyHint: true } }] }) };
  cs.w.registry = /** @type {any} */ (skills);
  await cs.update([ADAPTER]);
  await ask({ type: 'chat_sites_set', site: '127.0.0.1:8123', enabled: true, autoRun: true,
    chosen: ['site:a.test/wipe', 'site:b.test/list', 'mcp:everything/echo'] });
  const posted = [];
  const port = { sender: { tab: { id: 4 }, frameId: 0, url: 'http://127.0.0.1:8123/', id: ID }, postMessage: (m) => posted.push(m) };
  await cs.postState(port);
  const runs = Object.fromEntries(posted.at(-1).tools.map((t) => [t.key, t.autoRun]));
  assert.deepEqual(runs, { 'site:a.test/wipe': false, 'site:b.test/list': true, 'mcp:everything/echo': false });
  const tools = /** @type {any} */ (await ask({ type: 'chat_sites_tools', site: '127.0.0.1:8123' }));
  assert.deepEqual(tools.tools.map((t) => [t.key, t.readOnly, t.trusted]),
    [['site:a.test/wipe', true, false], ['site:b.test/list', true, true], ['mcp:everything/echo', false, true]]);
});

test('auto-run: read-only tools when the site allows it; any other only when allowed one by one', () => {
  const p = { enabled: true, chosen: [], autoRun: true, autoSend: false, allowed: ['site:a/buy'] };
  const ro = /** @type {any} */ ({ key: 'site:a/add', readOnly: true, trusted: true });
  const rw = /** @type {any} */ ({ key: 'site:a/del', readOnly: false, trusted: true });
  const allowed = /** @type {any} */ ({ key: 'site:a/buy', readOnly: false, trusted: false });
  assert.deepEqual([autoRuns(p, ro), autoRuns(p, rw), autoRuns(p, allowed)], [true, false, true]);
  assert.deepEqual([autoRuns({ ...p, autoRun: false }, ro), autoRuns({ ...p, autoRun: false, allowed: [] }, allowed)], [false, false]);
});

test('a site with two apps: the page gets both adapters, a round trip verifies the one whose request it was, a stale report shows in the view', async () => {
  const { cs, ask, sent } = setup();
  const OLD = { ...ADAPTER, name: 'replica-old', request: { ...ADAPTER.request, url: '/old/chat' } };
  await cs.update([ADAPTER, OLD]);
  const posted = [];
  const port = { sender: { tab: { id: 4 }, frameId: 0, url: 'http://127.0.0.1:8123/', id: ID }, postMessage: (m) => posted.push(m) };
  cs.ports.add(/** @type {any} */ (port));
  await cs.fromPage(port, { type: 'hello' });
  const state = posted.find((m) => m.type === 'state');
  assert.equal(state.adapter.name, 'replica');
  assert.deepEqual(state.alternates.map((a) => [a.name, a.request.url]), [['replica-old', '/old/chat']]);

  await cs.fromPage(port, { type: 'stale', reason: 'no request to /api/chat was seen' });
  let view = /** @type {any} */ (await ask({ type: 'chat_sites_state' }));
  const row = view.sites.find((s) => s.site === '127.0.0.1:8123' && s.adapter === 'replica');
  assert.equal(row.stale.reason, 'no request to /api/chat was seen');

  // The page names the adapter that read the round trip; one not naming this site is not taken.
  await cs.fromPage(port, { type: 'round_trip', name: 'replica-old' });
  await cs.fromPage(port, { type: 'round_trip', name: 'deepseek' }); // not this site's: credited to the site's first
  await cs.fromPage(port, { type: 'round_trip', name: 'replica-old' }); // again within the minute: not sent again
  assert.deepEqual(sent.filter((m) => m.type === 'chat_site_verified').map((m) => [m.name, m.host]),
    [['replica-old', '127.0.0.1:8123'], ['replica', '127.0.0.1:8123']]);
  view = /** @type {any} */ (await ask({ type: 'chat_sites_state' }));
  assert.equal(view.sites.find((s) => s.site === '127.0.0.1:8123' && s.adapter === 'replica').stale, null); // a good round trip clears it
});
