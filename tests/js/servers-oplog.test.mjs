// Local MCP servers' calls in the operation log: the host's `agent_server_call` start/end go
// through the worker's routes to the panel bridge, which logs them with their caller (agent or
// Inspector), masks secrets, and keeps the host's own duration; `agent_servers` reach the panels.
import { test } from 'node:test';
import assert from 'node:assert/strict';

class Event {
  listeners = [];
  addListener(fn) { this.listeners.push(fn); }
  fire(...args) { for (const fn of this.listeners) fn(...args); }
}
class Port {
  constructor(name, url) {
    this.name = name;
    this.sender = { id: 'ext', url };
    this.onMessage = new Event();
    this.onDisconnect = new Event();
    this.sent = [];
  }
  postMessage(m) { this.sent.push(JSON.parse(JSON.stringify(m))); }
  disconnect() {}
  take() { const s = this.sent; this.sent = []; return s; }
}

globalThis.chrome = { runtime: { id: 'ext', getURL: (p) => `chrome-extension://ext/${p}`, onConnect: new Event(), lastError: undefined } };
const { createPanelBridge, PANEL_PORT_NAME } = await import('../../extension/background/panel-bridge.js');
const { createRoutes } = await import('../../extension/background/routes.js');
const { OpLog, serverCaller, filterEntries, exportJson } = await import('../../extension/lib/oplog.js');

const status = () => ({ connected: true, state: 'connected', sites: {} });
const bridge = createPanelBridge({ chrome, sendToHost: () => true, status, runCall: () => {} });
const routes = createRoutes({
  chrome, panel: bridge, status, log: () => {},
  link: /** @type {any} */ ({ send: () => true, mismatch: null }),
  siteCalls: /** @type {any} */ ({ call: () => {} }), frames: /** @type {any} */ ({}), browserTools: { onHostMessage: () => false },
  openUrl: async () => {}, skills: /** @type {any} */ ({}), skillsPanel: /** @type {any} */ ({}),
});
chrome.runtime.onConnect.addListener(routes.onConnect);

test('a server call is logged from start to end with its caller, whether a panel is open or not', () => {
  routes.fromHost({ type: 'agent_server_call', id: 's.1', phase: 'start', caller: 'agent', server: 'files',
    tool: 'read_file', args: { path: '/tmp/a.txt', api_key: 'sk-123' } });
  const [entry] = bridge.oplog.list;
  assert.equal(entry.site, 'mcp:files');
  assert.equal(entry.tool, 'read_file');
  assert.deepEqual(entry.who, { kind: 'agent', label: 'Side panel agent' });
  assert.equal(entry.state, 'running');
  assert.equal(entry.args.api_key, '[hidden]'); // secrets never stored, shown or exported
  routes.fromHost({ type: 'agent_server_call', id: 's.1', phase: 'end', caller: 'agent', server: 'files',
    tool: 'read_file', ok: true, value: '{"content":[{"type":"text","text":"hello"}]}', ms: 12.34 });
  assert.equal(entry.state, 'ok');
  assert.equal(entry.ms, 12.3); // the host's measure of the call
  assert.match(entry.value, /hello/);
  const exported = JSON.parse(exportJson([entry])).calls[0];
  assert.equal(exported.caller, 'Side panel agent');
  assert.equal(exported.site, 'mcp:files');
  assert.equal(exported.result.content[0].text, 'hello');
});

test('an Inspector call that fails is logged as the Inspector\'s, with the error, and panels hear of it', () => {
  const port = new Port(PANEL_PORT_NAME, 'chrome-extension://ext/sidepanel/index.html');
  chrome.runtime.onConnect.fire(port);
  routes.fromHost({ type: 'agent_server_call', id: 's.2', phase: 'start', caller: 'inspector', server: 'db', tool: 'query', args: {} });
  routes.fromHost({ type: 'agent_server_call', id: 's.2', phase: 'end', caller: 'inspector', server: 'db', tool: 'query',
    ok: false, error: { code: 'server_error', message: "The server 'db' stopped during the call." } });
  const logged = port.take().filter((m) => m.type === 'oplog').map((m) => m.entry);
  assert.equal(logged.length, 2);
  assert.equal(logged[1].state, 'error');
  assert.equal(logged[1].who.kind, 'inspector');
  assert.equal(logged[1].error.code, 'server_error');
  assert.deepEqual(filterEntries(bridge.oplog.list, { who: 'inspector' }).map((e) => e.id), ['s.2']);
  // agent_servers are for the panels, as they are.
  routes.fromHost({ type: 'agent_servers', servers: [] });
  assert.deepEqual(port.take(), [{ type: 'agent_servers', servers: [] }]);
});

test('what is not a server call of ours is not logged', () => {
  const before = bridge.oplog.list.length;
  for (const raw of [
    { type: 'agent_server_call', id: 'c1.5', phase: 'start', caller: 'agent', server: 'x', tool: 't' }, // not an s. id
    { type: 'agent_server_call', id: 's.9', phase: 'start', caller: 'agent', tool: 't' }, // no server
    { type: 'agent_server_call', id: 's.9', phase: 'end', caller: 'agent', server: 'x', tool: 't', ok: true }, // never started
    { type: 'agent_server_call', id: 's.9', phase: 'middle', caller: 'agent', server: 'x', tool: 't' },
  ]) routes.fromHost(raw);
  assert.equal(bridge.oplog.list.length, before);
});

test('serverCaller and OpLog.finish with a duration of the runner', () => {
  assert.deepEqual(serverCaller('inspector'), { kind: 'inspector', label: 'Inspector' });
  assert.deepEqual(serverCaller('anything'), { kind: 'agent', label: 'Side panel agent' });
  const log = new OpLog();
  log.start('s.1', serverCaller('agent'), 'mcp:a', 't', {}, 0, 100);
  assert.equal(log.finish('s.1', { ok: true, value: 'x' }, 150, null, -1).ms, 50); // a bad one: the log's own clock
});
