// Every message the service worker receives and the module that handles it, by where it comes
// from; and the one way out to the host. Read this file to follow a message; the table in
// docs/PROTOCOL.md ("Routes in the service worker") is made from describe() and
// tests/js/service-worker-routes.test.mjs keeps it true.
//
// Each table maps a message type to [the module that handles it, the handler]. Host requests
// the worker answers itself are checked and normalised by lib/messages.js first (`checked`);
// browser-tools.js checks its own. The operation log (panel-bridge.js) is hooked in here and
// nowhere else: it sees every call on its way in, before anything may refuse it, and every
// result on its way out.
//
// A call carries its way back (reply.js): the host's messages come with `hostReply`, an MCP
// entry's link's with that link's (fromEntry), and a call's result leaves by it (answer).

import { checkHostMessage, errorResult } from '../lib/messages.js';
import { isOurPage, ourFrame } from '../lib/senders.js';
import { PAGE_PORT_NAME } from '../lib/protocol.js';
import { CHAT_PORT_NAME } from './chat-sites.js';
import { PANEL_PORT_NAME } from './panel-bridge.js';

const noop = () => {};
/** The calls the operation log records. */
const LOGGED_CALLS = new Set(['call', 'browser_call']);
/** Host messages that ask for work (none is routed while the host speaks another protocol). */
const REQUESTS = new Set(['call', 'browser_call', 'open_url', 'cancel', 'session', 'session_end']);

/**
 * @template {Function} F
 * @typedef {Map<string, [string, F|null]>} Table type -> [handling module, handler];
 *   a null handler: the module listens for itself
 */
/** @template {Function} F @param {Record<string, [string, F|null]>} routes @returns {Table<F>} */
const table = (routes) => new Map(Object.entries(routes));

/** @typedef {import('./reply.js').Reply} Reply */

/**
 * @param {{
 *   chrome: typeof globalThis.chrome,
 *   link: import('./native-link.js').NativeLink,
 *   siteCalls: import('./site-calls.js').SiteCalls,
 *   frames: import('./frame-ports.js').FramePorts,
 *   panel: ReturnType<typeof import('./panel-bridge.js').createPanelBridge>,
 *   browserTools: {
 *     onHostMessage: (raw: any) => boolean,
 *     onPanelRequest: (msg: any, sender: chrome.runtime.MessageSender, respond: (r: any) => void) => boolean,
 *   },
 *   openUrl: (id: string, url: string) => Promise<void>,
 *   skills: import('./skills.js').Skills,
 *   skillsPanel: ReturnType<typeof import('./skills-panel.js').createSkillsPanel>,
 *   chatSites?: import('./chat-sites.js').ChatSites,
 *   pageInstall?: ReturnType<typeof import('./page-install.js').createPageInstall>,
 *   status: () => any,
 *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
 * }} w the worker's parts (worker.js)
 */
export function createRoutes(w) {
  const { chrome, link, siteCalls, frames, panel, browserTools, log } = w;

  /** The host's way back: the native port (native-link.js; a long result in chunks). @type {Reply} */
  const hostReply = { via: 'host', post: (msg) => link.send(msg) };

  /**
   * A host request the worker answers itself: checked first; a bad one is answered (the way it
   * came) or logged.
   * @param {(msg: any, fromChunks: boolean, reply: Reply) => void} handler
   * @returns {(raw: any, fromChunks: boolean, reply: Reply) => void}
   */
  const checked = (handler) => (raw, fromChunks, reply) => {
    const c = checkHostMessage(raw);
    if (c.ok) return handler(c.msg, fromChunks, reply);
    if (c.id !== undefined) answer(errorResult(c.id, 'bad_request', c.error), reply);
    else log('warning', `ignored a host message: ${c.error}`);
  };
  /** Types no table knows: lib/messages.js says what is wrong with them. */
  const unknown = checked(noop);
  const cancelSiteCall = checked((m) => siteCalls.cancel(m.id));
  const toPanels = (raw) => panel.relay(raw);
  /**
   * "Is this sender ours", asked here and nowhere else in the worker (lib/senders.js): a runtime
   * message only our own pages may send (the side panel, the popup) is dropped unanswered from
   * anyone else (a content script, so a page), before its module sees it.
   * @param {(msg: any, sender: chrome.runtime.MessageSender, respond: (r: any) => void) => boolean} handler
   */
  const ourPages = (handler) => (msg, sender, respond) => (isOurPage(sender, chrome.runtime) ? handler(msg, sender, respond) : false);
  const panelRequest = ourPages((msg, sender, respond) => browserTools.onPanelRequest(msg, sender, respond));
  const chatSitesPanel = ourPages((msg, sender, respond) => w.chatSites?.panelRequest(msg, sender, respond) ?? false);

  /**
   * The kinds of the user's documents the worker uses (documents/kinds.py `feeds_worker`): kind
   * -> its module's handler of the enabled documents (already checked: a list of objects). A
   * new kind is a row here, not a message type.
   * @type {Map<string, (docs: any[]) => void>}
   */
  const FEEDS = new Map([
    // Skills, matched against the tabs (their calls come as `call`).
    ['skills', (docs) => w.skills.update(docs)],
    // AI chat websites' adapters: tabs open on their sites get the toolbar.
    ['chat_sites', (docs) => void w.chatSites?.update(docs)],
  ]);

  /**
   * Host -> extension (the native port; a chunked message is routed once joined). An MCP entry's
   * link brings `call` and `cancel` only (loopback-link.js), routed here with its reply.
   */
  const HOST = table({
    // Site tools (the pages' own, through their content scripts); the result goes back by `reply`.
    call: ['site-calls.js', checked((m, _fromChunks, reply) => siteCalls.call(m, reply))],
    cancel: ['browser-tools.js, else site-calls.js', (raw, fromChunks, reply) => browserTools.onHostMessage(raw) || cancelSiteCall(raw, fromChunks, reply)],
    open_url: ['open-url.js', checked((m) => void w.openUrl(m.id, m.url))],
    // The user's documents the worker uses (skills, chat-site adapters), to their module by kind.
    docs: ['skills.js, chat-sites.js', checked((m) => {
      const feed = FEEDS.get(m.kind);
      if (feed) feed(m.docs);
      else log('warning', `ignored the host's documents of a kind the worker does not use: ${m.kind}`);
    })],
    // Browser tools and MCP sessions' tabs.
    browser_call: ['browser-tools.js', (raw) => void browserTools.onHostMessage(raw)],
    session: ['panel-bridge.js, browser-tools.js', (raw) => {
      panel.sessionStarted(raw); // names the session's calls in the operation log
      browserTools.onHostMessage(raw);
    }],
    session_end: ['panel-bridge.js, browser-tools.js', (raw) => {
      panel.sessionEnded(raw);
      browserTools.onHostMessage(raw);
    }],
    // The side panel's agent, for the panels only.
    agent_state: ['panel-bridge.js', toPanels],
    agent_keys: ['panel-bridge.js', toPanels],
    agent_conversation: ['panel-bridge.js', toPanels],
    agent_event: ['panel-bridge.js', toPanels],
    agent_error: ['panel-bridge.js', toPanels],
    agent_servers: ['panel-bridge.js', toPanels],
    // The user's documents (skills, chat-site adapters): the host's answers to the panels' `panel_doc`.
    doc_answer: ['panel-bridge.js', toPanels],
    // AI chat websites: local servers' answers for their calls (the adapters come as `docs`).
    chat_server_result: ['chat-sites.js', (raw) => w.chatSites?.serverResult(raw)],
    // Local MCP servers' calls (the host runs them): the operation log only.
    agent_server_call: ['panel-bridge.js', (raw) => panel.serverCall(raw)],
    // The link itself.
    host_hello: ['native-link.js, panel-bridge.js', checked((m) => {
      link.hostHello(m); // another protocol: no call is routed (routeHost), the panels say why
      panel.statusChanged();
      // The host answers each with that kind's documents (`docs`; native_host/doc_link.py).
      if (!link.mismatch) { // a worker that (re)connected has none: ask for every kind it uses
        for (const kind of FEEDS.keys()) toHost({ type: 'doc_get', kind });
      }
    })],
    // An MCP entry's offer of its own link (the host passes it on; entry-links.js).
    entry_link: ['entry-links.js', checked((m) => link.entries?.open(m.conn, m.port, m.token))],
    ping: ['routes.js', checked((m) => void toHost({ type: 'pong', id: m.id }))],
    pong: ['routes.js', checked(noop)], // any message marks the link connected (native-link.js)
    chunk: ['native-link.js', checked((m, fromChunks) => {
      if (fromChunks) return log('warning', 'ignored a chunk inside a chunked message');
      const inner = link.join(m);
      if (inner !== undefined) routeHost(inner, true, hostReply);
    })],
  });

  /** Content script -> worker (port `webmcp-page`, one per frame). */
  const PAGE = table({
    tools: ['frame-ports.js', (frame, msg) => frames.report(frame, msg)],
    lane: ['frame-ports.js', (frame, msg) => frames.claimLane(frame, msg)],
    result: ['site-calls.js', (frame, msg) => siteCalls.answered(frame, msg)],
    result_part: ['site-calls.js', (frame, msg) => siteCalls.part(frame, msg)],
  });

  /** Side panel -> worker (port `webmcp-panel`). `panel_*` stands for every `panel_` type. */
  const PANEL = table({
    hello: ['panel-bridge.js', (port) => panel.hello(port)],
    status: ['panel-bridge.js', (port) => panel.sendStatus(port)],
    oplog_clear: ['panel-bridge.js', () => panel.clearLog()],
    inspect_call: ['panel-bridge.js, site-calls.js', (port, msg) => panel.inspect(port, msg)],
    'panel_*': ['panel-bridge.js, to the host', (port, msg) => panel.toHost(port, msg)],
  });

  /**
   * chrome.runtime.onConnect, by port name (other names are left alone). Each name is for one
   * kind of sender (lib/senders.js); a port from anyone else is closed here.
   */
  const PORTS = table({
    // Our content scripts, one per frame of a tab.
    [PAGE_PORT_NAME]: ['frame-ports.js', (port) => {
      const at = ourFrame(port.sender, chrome.runtime);
      if (!at) return port.disconnect();
      frames.connect(port, at, fromPage);
    }],
    // Our own pages only (the side panel, in its pane or a tab): never a content script.
    [PANEL_PORT_NAME]: ['panel-bridge.js', (port) => {
      if (!isOurPage(port.sender, chrome.runtime)) return port.disconnect();
      panel.connect(port, fromPanel);
    }],
    // A chat page's toolbar: our content script in a tab's top frame.
    [CHAT_PORT_NAME]: ['chat-sites.js', (port) => {
      const at = ourFrame(port.sender, chrome.runtime);
      if (at?.frameId !== 0) return port.disconnect();
      w.chatSites?.connect(port);
    }],
  });

  /** chrome.runtime.onMessage from extension pages (and the pages' stubs), answered with sendResponse. */
  const RUNTIME = table({
    // A frame's isolated-world stub (our content script in a web page's frame): its frame uses
    // WebMCP, inject the rest.
    page_install: ['page-install.js', (msg, sender, respond) => {
      const at = ourFrame(sender, chrome.runtime);
      return at ? w.pageInstall?.request(msg, sender, at, respond) ?? false : false;
    }],
    // Extension pages only from here on (ourPages): pages must not learn what else is open.
    status: ['worker.js', ourPages((msg, sender, respond) => {
      respond(w.status());
      return false;
    })],
    // The side panel's Sessions view.
    sessions: ['browser-tools.js', panelRequest],
    session_focus: ['browser-tools.js', panelRequest],
    session_close_tabs: ['browser-tools.js', panelRequest],
    // The side panel's Skills view.
    skills_status: ['skills-panel.js', ourPages((msg, sender, respond) => w.skillsPanel.status(msg, sender, respond))],
    skills_try: ['skills-panel.js', ourPages((msg, sender, respond) => w.skillsPanel.try(msg, sender, respond))],
    // The side panel's Chat sites view: per-site prefs and tools.
    chat_sites_state: ['chat-sites.js', chatSitesPanel],
    chat_sites_tools: ['chat-sites.js', chatSitesPanel],
    chat_sites_set: ['chat-sites.js', chatSitesPanel],
  });

  /** @param {any} raw @param {boolean} fromChunks @param {Reply} reply the way its result goes */
  function routeHost(raw, fromChunks, reply) {
    const type = raw?.type;
    if (link.mismatch && REQUESTS.has(type)) { // a host of another protocol: say so, route nothing
      if (typeof raw.id === 'string' && raw.id) answer(errorResult(raw.id, 'bad_request', link.mismatch), reply);
      return;
    }
    if (LOGGED_CALLS.has(type)) panel.callStarted(raw); // the operation log: every call, as it comes in
    const handler = HOST.get(type)?.[1] ?? unknown;
    handler(raw, fromChunks, reply);
  }

  /** Every message from the host. */
  function fromHost(raw) {
    routeSafely(raw, hostReply);
  }

  /**
   * A call or cancel from an MCP entry's link (entry-links.js), routed as the host's; its result
   * goes back by `reply`.
   * @param {any} raw @param {Reply} reply
   */
  function fromEntry(raw, reply) {
    routeSafely(raw, reply);
  }

  /** @param {any} raw @param {Reply} reply */
  function routeSafely(raw, reply) {
    try {
      routeHost(raw, false, reply);
    } catch (e) {
      log('error', `extension failed on a ${String(raw?.type)} message: ${e?.stack ?? e}`);
    }
  }

  /**
   * A call's `result`, back the way its call came (its reply); the host's when that way has
   * closed (an entry's link that dropped: the host passes it on). False when it went nowhere.
   * @param {any} msg @param {Reply} [reply] the host's when the call came from it
   */
  function answer(msg, reply = hostReply) {
    panel.callFinished(msg); // the operation log: every result, whoever called
    return reply.post(msg) || (reply !== hostReply && hostReply.post(msg));
  }

  /**
   * Every message to the host leaves through here; false when there is no host. A `result` is
   * one whose call came from the host (a browser call, `open_url`).
   * @param {any} msg
   */
  function toHost(msg) {
    if (msg.type === 'result') return answer(msg);
    if (msg.type === 'site_tools' || msg.type === 'registry') panel.registryChanged();
    return link.send(msg);
  }

  /** @param {import('./frame-ports.js').Frame} frame @param {any} msg */
  function fromPage(frame, msg) {
    if (!msg || typeof msg !== 'object') return;
    PAGE.get(msg.type)?.[1]?.(frame, msg);
  }

  /** @param {chrome.runtime.Port} port @param {any} msg */
  function fromPanel(port, msg) {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    PANEL.get(msg.type.startsWith('panel_') ? 'panel_*' : msg.type)?.[1]?.(port, msg);
  }

  /** @param {chrome.runtime.Port} port */
  function onConnect(port) {
    PORTS.get(port.name)?.[1]?.(port);
  }

  /** @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} respond */
  function onRuntimeMessage(msg, sender, respond) {
    const handler = RUNTIME.get(msg?.type)?.[1];
    return handler ? handler(msg, sender, respond) : false;
  }

  /** Which module handles what: {from: {type: module}}, for docs/PROTOCOL.md. */
  function describe() {
    const names = (t) => Object.fromEntries([...t].map(([type, [by]]) => [type, by]));
    return {
      host: names(HOST), page: names(PAGE), panel: names(PANEL), ports: names(PORTS), runtime: names(RUNTIME),
    };
  }

  return { fromHost, fromEntry, toHost, answer, hostReply, fromPage, fromPanel, onConnect, onRuntimeMessage, describe };
}
