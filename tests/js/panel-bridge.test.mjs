// The panel bridge against a fake chrome: relay, operation log, Inspector calls, who may connect.
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
    this.closed = false;
  }
  postMessage(m) { if (this.closed) throw new Error('closed'); this.sent.push(JSON.parse(JSON.stringify(m))); }
  disconnect() { this.closed = true; }
  take() { const s = this.sent; this.sent = []; return s; }
}

globalThis.chrome = { runtime: { id: 'ext', getURL: (p) => `chrome-extension://ext/${p}`, onConnect: new Event(), lastError: undefined } };
const { createPanelBridge, PANEL_PORT_NAME } = await import('../../extension/background/panel-bridge.js');
const { createRoutes } = await import('../../extension/background/routes.js');

const toHostSent = [];
const ran = [];
let hostUp = true;
const status = () => ({ connected: hostUp, state: hostUp ? 'connected' : 'disconnected', hint: hostUp ? null : 'Run webmcp-sidecar doctor', sites: {} });
const bridge = createPanelBridge({ chrome, sendToHost: (m) => routes.toHost(m), status, runCall: (m, reply) => ran.push([m, reply]) });
// The worker's routes, with stand-ins for the parts the panel does not use.
const routes = createRoutes({
  chrome, panel: bridge, status, log: () => {},
  link: /** @type {any} */ ({ send: (m) => { if (!hostUp) return false; toHostSent.push(m); return true; } }),
  siteCalls: /** @type {any} */ ({ call: () => {} }), frames: /** @type {any} */ ({}), browserTools: { onHostMessage: () => false },
  openUrl: async () => {},
});
chrome.runtime.onConnect.addListener(routes.onConnect);
const connect = (url) => {
  const port = new Port(PANEL_PORT_NAME, url);
  chrome.runtime.onConnect.fire(port);
  return port;
};
const panel = connect('chrome-extension://ext/sidepanel/index.html');
const tick = () => new Promise((r) => setTimeout(r, 0));

test('only our own pages may open the panel port', () => {
  const page = connect('https://evil.test/');
  assert.equal(page.closed, true);
  assert.equal(panel.closed, false);
});

test('hello gets status and the log; panel_* go to the host; agent_* come back', () => {
  panel.onMessage.fire({ type: 'hello' });
  assert.deepEqual(panel.take().map((m) => m.type), ['status', 'oplog_all']);
  panel.onMessage.fire({ type: 'panel_chat', text: 'hi', site: 'a.test' });
  assert.deepEqual(toHostSent.at(-1), { type: 'panel_chat', text: 'hi', site: 'a.test' });
  const ev = { type: 'agent_event', conversation_id: 'c', turn_id: 't', event: { kind: 'text', text: 'yo' } };
  const sentBefore = toHostSent.length;
  routes.fromHost(ev); // for the panels only
  assert.deepEqual(panel.take(), [ev]);
  assert.equal(toHostSent.length, sentBefore);
});

test('no host: a request is answered with the hint; a hello is not', () => {
  hostUp = false;
  panel.onMessage.fire({ type: 'panel_hello' });
  assert.deepEqual(panel.take(), []);
  panel.onMessage.fire({ type: 'panel_key', provider: 'deepseek', key: 'sk-x' });
  assert.deepEqual(panel.take(), [{ type: 'agent_error', about: 'request', message: 'Run webmcp-sidecar doctor' }]);
  hostUp = true;
});

test('every call is logged with its caller and outcome', () => {
  routes.fromHost({ type: 'session', session: 'c2', client: 'Cursor' });
  panel.take();
  routes.fromHost({ type: 'call', id: 'c2.1', site: 'a.test', tool: 'add', args: { a: 1 } });
  routes.fromHost({ type: 'call', id: 'h.1', site: 'a.test', tool: 'mul', args: {} });
  const results = [{ type: 'result', id: 'c2.1', ok: true, value: '2' }, { type: 'result', id: 'h.1', ok: false, error: { code: 'timeout', message: 'slow' } }];
  for (const r of results) routes.toHost(r);
  assert.deepEqual(toHostSent.slice(-2), results); // still go to the host
  const entries = panel.take().filter((m) => m.type === 'oplog').map((m) => m.entry);
  assert.deepEqual(entries.map((e) => [e.id, e.who.label, e.state]), [
    ['c2.1', 'MCP: Cursor', 'running'], ['h.1', 'Side panel agent', 'running'],
    ['c2.1', 'MCP: Cursor', 'ok'], ['h.1', 'Side panel agent', 'error'],
  ]);
});

test("Inspector calls run in the worker and their results stay in the extension", async () => {
  panel.onMessage.fire({ type: 'inspect_call', req: 7, site: 'A.test', tool: 'add', args: { a: 2 } });
  const [[call, reply]] = ran.splice(0);
  assert.deepEqual([call.type, call.site, call.tool, call.args], ['call', 'a.test', 'add', { a: 2 }]);
  assert.match(call.id, /^p\.\d+$/);
  assert.equal(reply.via, 'inspector'); // its way back is the panel that asked
  panel.take();
  const sentBefore = toHostSent.length;
  assert.equal(routes.answer({ type: 'result', id: call.id, ok: true, value: '4' }, reply), true);
  assert.equal(toHostSent.length, sentBefore); // not to the host
  const out = panel.take();
  const res = out.find((m) => m.type === 'inspect_result');
  assert.deepEqual([res.req, res.result.value], [7, '4']);
  assert.equal(typeof res.ms, 'number', 'with the duration the log measured');
  assert.equal(out.find((m) => m.type === 'oplog').entry.who.kind, 'inspector');
  // Registry changes refresh the panel's status.
  routes.toHost({ type: 'site_tools', site: 'a.test', tools: [] });
  await tick();
  assert.equal(panel.take().at(-1).type, 'status');
});
