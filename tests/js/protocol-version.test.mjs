// The handshake's protocol check on the worker's side, and the generated protocol tables the
// worker uses (lib/generated/protocol.js, made by `python -m webmcp_sidecar.gen_js`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Port, startWorker } from './fake-chrome.mjs';
import { BROWSER_TOOLS, PANEL_PORT_NAME, PROTOCOL_VERSION, versionMismatch } from '../../extension/lib/protocol.js';
import { TOOLS } from '../../extension/background/browser-tools.js';

const OTHER = PROTOCOL_VERSION + 1;
const TEXT = `The extension (protocol ${PROTOCOL_VERSION}) and the host (protocol ${OTHER}) don't match: ` +
  'update/reinstall the host with `webmcp-sidecar install` or update the extension.';

test('a host of another protocol: the panel says so plainly and no call is routed', (t) => {
  const w = startWorker(t);
  assert.equal(versionMismatch(PROTOCOL_VERSION, OTHER), TEXT);
  const id = w.chrome.runtime.id;
  const panel = new Port(w.chrome, PANEL_PORT_NAME, { id, url: `chrome-extension://${id}/sidepanel/index.html` });
  w.chrome.runtime.onConnect.fire(panel);
  w.host({ type: 'host_hello', protocol: OTHER, host_version: '9.0.0' });
  // The open side panel is told at once (its header and chat show the text).
  assert.deepEqual(panel.sent.filter((m) => m.type === 'status').map((m) => [m.state, m.hint]), [['mismatch', TEXT]]);
  const status = w.status();
  assert.equal(status.state, 'mismatch');
  assert.equal(status.connected, false);
  assert.equal(status.hint, TEXT);
  assert.deepEqual(w.fromHost(), [{ type: 'log', level: 'error', message: TEXT }]);

  w.call('c1.1', 'a.test', 'search');
  w.host({ type: 'browser_call', id: 'c1.2', session: 'c1', tool: 'tabs', args: {} });
  w.host({ type: 'open_url', id: 'c1.3', url: 'https://a.test/' });
  const answers = w.fromHost();
  assert.deepEqual(answers.map((m) => [m.type, m.id, m.ok, m.error?.code, m.error?.message]), [
    ['result', 'c1.1', false, 'bad_request', TEXT],
    ['result', 'c1.2', false, 'bad_request', TEXT],
    ['result', 'c1.3', false, 'bad_request', TEXT],
  ]);
  assert.equal(w.worker.pending.size, 0);
});

test('a host of the same protocol changes nothing, and is asked for the skills and chat-site adapters', (t) => {
  const w = startWorker(t);
  w.host({ type: 'host_hello', protocol: PROTOCOL_VERSION, host_version: '0.1.0' });
  assert.equal(w.status().state, 'connected');
  assert.equal(w.status().hint, null);
  assert.deepEqual(w.fromHost(), [{ type: 'doc_get', kind: 'skills' }, { type: 'doc_get', kind: 'chat_sites' }]);
});

test('a host_hello without a protocol is logged back, not believed', (t) => {
  const w = startWorker(t);
  w.host({ type: 'host_hello', protocol: 'two' });
  assert.equal(w.status().state, 'connected');
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.message]), [
    ['log', 'ignored a host message: malformed host_hello message: no protocol'],
  ]);
});

test('the worker runs exactly the browser tools the host defines', () => {
  assert.deepEqual(Object.keys(TOOLS).sort(), Object.keys(BROWSER_TOOLS).sort());
  assert.ok(Object.isFrozen(BROWSER_TOOLS.snapshot.inputSchema.properties.max_chars));
});
