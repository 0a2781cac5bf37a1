// The side panel's side of the service worker: relays panel <-> host messages, keeps the
// operation log (every call the worker routes, from any caller), and runs the Inspector's
// calls straight to the page (no host needed). The worker calls fromHost()/toHost() on every
// message it receives from / sends to the host; both are cheap when no panel is open.

import { callerOf, OpLog } from '../lib/oplog.js';
import { DEFAULT_MAX_BYTES } from '../lib/protocol.js';

export const PANEL_PORT_NAME = 'webmcp-panel';
/** Host -> panel message types (host/webmcp_sidecar/agent/protocol.py). */
const AGENT_TYPES = new Set(['agent_state', 'agent_keys', 'agent_conversation', 'agent_event', 'agent_error']);
const INSPECT_TIMEOUT_MS = 60_000;

/**
 * @param {{
 *   sendToHost: (msg: any) => boolean,
 *   status: () => any,
 *   runCall: (msg: import('../lib/protocol.js').CallMsg) => void,
 * }} worker
 *   sendToHost: the worker's send (false when there is no host);
 *   status: the worker's status (connection, hint, registry);
 *   runCall: routes a call to the page as if the host had sent it; its result comes back
 *   through toHost()
 */
export function installPanelBridge({ sendToHost, status, runCall }) {
  /** @type {Set<chrome.runtime.Port>} */
  const panels = new Set();
  const oplog = new OpLog();
  /** MCP sessions (entry connection id -> client name), from the host's `session` messages. */
  const sessions = new Map();
  /** Inspector calls in flight: call id -> the panel port and its request number. */
  const inspecting = new Map();
  let inspectSeq = 0;

  const post = (port, msg) => {
    try {
      port.postMessage(msg);
    } catch {
      panels.delete(port); // closed under us
    }
  };
  const broadcast = (msg) => { for (const port of panels) post(port, msg); };
  const fullStatus = () => ({ type: 'status', ...status(), mcpClients: [...sessions.values()] });

  /** Every message from the host. True: it was for the panel (the worker ignores it). */
  function fromHost(raw) {
    const type = raw?.type;
    if (type === 'call' || type === 'browser_call') {
      if (typeof raw.id === 'string') {
        const site = type === 'call' ? raw.site : 'browser';
        const entry = oplog.start(raw.id, callerOf(raw.id, sessions), site, raw.tool, raw.args,
          Date.now(), performance.now());
        if (panels.size) broadcast({ type: 'oplog', entry });
      }
      return false;
    }
    if (AGENT_TYPES.has(type)) {
      broadcast(raw);
      return true;
    }
    if (type === 'session' && typeof raw.session === 'string') {
      sessions.set(raw.session, String(raw.client ?? 'MCP client'));
      if (panels.size) broadcast(fullStatus());
    } else if (type === 'session_end') {
      sessions.delete(raw.session);
      if (panels.size) broadcast(fullStatus());
    }
    return false;
  }

  /** Every message the worker sends to the host. True: it was an Inspector result (kept here). */
  function toHost(msg) {
    if (msg.type === 'result') {
      const entry = oplog.finish(msg.id, msg, performance.now());
      if (entry && panels.size) broadcast({ type: 'oplog', entry });
      const asker = inspecting.get(msg.id);
      if (!asker) return false;
      inspecting.delete(msg.id);
      post(asker.port, { type: 'inspect_result', req: asker.req, result: msg, ms: entry?.ms ?? null });
      return true;
    }
    if ((msg.type === 'site_tools' || msg.type === 'registry') && panels.size) {
      queueMicrotask(() => broadcast(fullStatus())); // after the registry took the change
    }
    return false;
  }

  function onPanelMessage(port, msg) {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    if (msg.type.startsWith('panel_')) {
      // A hello that finds no host needs no error: the panel says hello again when it connects.
      if (!sendToHost(msg) && msg.type !== 'panel_hello') {
        post(port, {
          type: 'agent_error', about: 'request',
          message: status().hint ?? 'The host is not connected yet; wait a moment and try again.',
        });
      }
      return;
    }
    switch (msg.type) {
      case 'hello':
        post(port, fullStatus());
        post(port, { type: 'oplog_all', entries: oplog.list });
        return;
      case 'status':
        return post(port, fullStatus());
      case 'oplog_clear':
        oplog.clear();
        return broadcast({ type: 'oplog_all', entries: [] });
      case 'inspect_call': {
        const id = `p.${++inspectSeq}`;
        inspecting.set(id, { port, req: msg.req });
        const args = msg.args && typeof msg.args === 'object' && !Array.isArray(msg.args) ? msg.args : {};
        const entry = oplog.start(id, callerOf(id, sessions), msg.site, msg.tool, args, Date.now(), performance.now());
        broadcast({ type: 'oplog', entry });
        runCall({
          type: 'call', id, site: String(msg.site ?? '').toLowerCase(), tool: String(msg.tool ?? ''), args,
          timeout_ms: INSPECT_TIMEOUT_MS, max_bytes: DEFAULT_MAX_BYTES,
        });
        return;
      }
      default:
    }
  }

  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== PANEL_PORT_NAME) return;
    // Our own pages only (the side panel, or it opened in a tab): never a content script.
    const origin = `chrome-extension://${chrome.runtime.id}/`;
    if (port.sender?.id !== chrome.runtime.id || !String(port.sender?.url ?? '').startsWith(origin)) {
      port.disconnect();
      return;
    }
    panels.add(port);
    port.onMessage.addListener((msg) => onPanelMessage(port, msg));
    port.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      panels.delete(port);
      for (const [id, asker] of inspecting) if (asker.port === port) inspecting.delete(id);
    });
  });

  // The toolbar button opens the side panel (Chrome 116+).
  chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: true })?.catch?.(() => {});

  return { fromHost, toHost, oplog, sessions };
}
