// The side panel's side of the service worker: its ports, the relay of its messages to and from
// the host, the operation log (every call the worker routes, from any caller), and the
// Inspector's calls, run straight to the page (no host needed). routes.js decides which message
// comes here; each function below does what one route asks, cheaply when no panel is open.

import { callId, CALLER_INSPECTOR, CALLER_SERVER, isCallOf } from '../lib/call-ids.js';
import { callerOf, OpLog, SERVER_SITE, serverCaller } from '../lib/oplog.js';
import { DEFAULT_MAX_BYTES, PANEL_PORT_NAME } from '../lib/protocol.js';
import { localReply } from './reply.js';
import { takeRecord } from './skill-recorder.js';

export { PANEL_PORT_NAME };
const INSPECT_TIMEOUT_MS = 60_000;

/**
 * @param {{
 *   chrome: typeof globalThis.chrome,
 *   sendToHost: (msg: any) => boolean,
 *   status: () => any,
 *   runCall: (msg: import('../lib/protocol.js').CallMsg, reply: import('./reply.js').Reply) => void,
 * }} worker
 *   sendToHost: the worker's way to the host (false when there is no host);
 *   status: the worker's status (connection, hint, registry);
 *   runCall: routes a call to the page as if the host had sent it; its result comes to `reply`
 */
export function createPanelBridge({ chrome, sendToHost, status, runCall }) {
  /** @type {Set<chrome.runtime.Port>} */
  const panels = new Set();
  const oplog = new OpLog();
  /** MCP sessions (entry connection id -> client name), from the host's `session` messages. */
  const sessions = new Map();
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

  // The toolbar button opens the side panel (Chrome 116+), or Firefox's sidebar (the same page,
  // manifest `sidebar_action`), which only a user's action may open.
  if (chrome.sidePanel) {
    chrome.sidePanel.setPanelBehavior?.({ openPanelOnActionClick: true })?.catch?.(() => {});
  } else {
    const sidebar = /** @type {any} */ (chrome).sidebarAction;
    if (sidebar) chrome.action?.onClicked?.addListener(() => { sidebar.toggle?.()?.catch?.(() => {}); });
  }

  return {
    oplog,
    sessions,

    /**
     * A port named `webmcp-panel`: our own pages only (the side panel, or it opened in a tab),
     * never a content script. Its messages go to `route`.
     * @param {chrome.runtime.Port} port @param {(port: chrome.runtime.Port, msg: any) => void} route
     */
    connect(port, route) {
      panels.add(port);
      port.onMessage.addListener((msg) => route(port, msg));
      port.onDisconnect.addListener(() => {
        void chrome.runtime.lastError;
        panels.delete(port); // an Inspector call of it still running answers nobody
      });
    },

    // --- panel -> worker ---

    /** `hello`: the status and the whole log. */
    hello(port) {
      post(port, fullStatus());
      post(port, { type: 'oplog_all', entries: oplog.list });
    },
    sendStatus(port) {
      post(port, fullStatus());
    },
    clearLog() {
      oplog.clear();
      broadcast({ type: 'oplog_all', entries: [] });
    },
    /**
     * `inspect_call {req, site, tool, args}`: run as call `p.N`, answered `inspect_result` to
     * the panel that asked (its reply), never to the host.
     */
    inspect(port, msg) {
      const id = callId(CALLER_INSPECTOR, ++inspectSeq);
      const args = msg.args && typeof msg.args === 'object' && !Array.isArray(msg.args) ? msg.args : {};
      const entry = oplog.start(id, callerOf(id, sessions), msg.site, msg.tool, args, Date.now(), performance.now());
      broadcast({ type: 'oplog', entry });
      runCall({
        type: 'call', id, site: String(msg.site ?? '').toLowerCase(), tool: String(msg.tool ?? ''), args,
        timeout_ms: INSPECT_TIMEOUT_MS, max_bytes: DEFAULT_MAX_BYTES,
      }, localReply('inspector', (result) => {
        // After the log closed the entry (routes.js `answer`): its duration is the call's.
        post(port, { type: 'inspect_result', req: msg.req, result, ms: entry.ms ?? null });
      }));
    },
    /** `panel_*`: to the host as is. */
    toHost(port, msg) {
      // A hello that finds no host needs no error: the panel says hello again when it connects.
      if (!sendToHost(msg) && msg.type !== 'panel_hello') {
        post(port, {
          type: 'agent_error', about: 'request',
          message: status().hint ?? 'The host is not connected yet; wait a moment and try again.',
        });
      }
    },

    // --- host -> panel ---

    /** `agent_*`: for the panels only. */
    relay(msg) {
      broadcast(msg);
    },
    /** An MCP session began (`session`): its client names its calls in the log. */
    sessionStarted(raw) {
      if (typeof raw.session !== 'string') return;
      sessions.set(raw.session, String(raw.client ?? 'MCP client'));
      if (panels.size) broadcast(fullStatus());
    },
    sessionEnded(raw) {
      sessions.delete(raw.session);
      if (panels.size) broadcast(fullStatus());
    },

    // --- the operation log ---

    /** A `call` or `browser_call` from the host, before anything may refuse it. */
    callStarted(raw) {
      if (typeof raw.id !== 'string') return;
      const site = raw.type === 'call' ? raw.site : 'browser';
      const entry = oplog.start(raw.id, callerOf(raw.id, sessions), site, raw.tool, raw.args,
        Date.now(), performance.now());
      if (panels.size) broadcast({ type: 'oplog', entry });
    },
    /** A `result` on its way out (any caller's); the log entry it closed, if any. */
    callFinished(msg) {
      // A browser call's record (page, element selector) comes along for "Save as skill".
      const entry = oplog.finish(msg.id, msg, performance.now(), takeRecord(msg.id));
      if (entry && panels.size) broadcast({ type: 'oplog', entry });
      return entry;
    },

    /**
     * `agent_server_call`: a call of one of the user's local MCP servers, run by the host for
     * the agent or the Inspector; its `start` opens a log entry (site `mcp:<server>`), its `end`
     * closes it. The host's ids are `s.N`; anything else is not ours to log.
     */
    serverCall(raw) {
      if (!isCallOf(raw?.id, CALLER_SERVER) || typeof raw.server !== 'string') return;
      let entry;
      if (raw.phase === 'start') {
        entry = oplog.start(raw.id, serverCaller(raw.caller), `${SERVER_SITE}${raw.server}`, raw.tool, raw.args ?? {},
          Date.now(), performance.now());
      } else if (raw.phase === 'end') {
        const value = typeof raw.value === 'string' ? raw.value : null;
        entry = oplog.finish(raw.id, { ok: raw.ok === true, value, error: raw.error ?? null }, performance.now(), null,
          typeof raw.ms === 'number' ? raw.ms : null);
      }
      if (entry && panels.size) broadcast({ type: 'oplog', entry });
    },

    /**
     * A call made for someone the ids do not name (an AI chat site: chat-sites.js): its entry,
     * with that caller. A site call's `result` closes it (callFinished); a local server's
     * outcome comes to logEnd.
     * @param {string} id @param {import('../lib/oplog.js').Caller} caller
     * @param {string} site @param {string} tool @param {any} args
     */
    logCall(id, caller, site, tool, args) {
      const entry = oplog.start(id, caller, site, tool, args, Date.now(), performance.now());
      if (panels.size) broadcast({ type: 'oplog', entry });
    },
    /** @param {string} id @param {{ok: boolean, value?: string|null, error?: any}} outcome */
    logEnd(id, outcome) {
      const entry = oplog.finish(id, { ok: outcome.ok, value: outcome.value ?? null, error: outcome.error ?? null }, performance.now(), null);
      if (entry && panels.size) broadcast({ type: 'oplog', entry });
    },

    /** The registry went to the host (`registry`, `site_tools`): the panels' status shows it. */
    /** The link's state changed (e.g. the host speaks another protocol): the panels show it. */
    statusChanged() {
      if (panels.size) broadcast(fullStatus());
    },
    registryChanged() {
      if (panels.size) queueMicrotask(() => broadcast(fullStatus())); // after the registry took the change
    },
  };
}
