// The service worker, put together: the domain registry, the native link to the host, the
// frames' ports, site calls, the side panel and the browser tools, joined by routes.js, plus
// the browser events they follow. service-worker.js makes one at start; tests make one each,
// on a fake chrome.*.

import { browserLabel } from '../lib/browser.js';
import { PROTOCOL_VERSION } from '../lib/protocol.js';
import { Registry } from '../lib/registry.js';
import { installBrowserTools } from './browser-tools.js';
import { FramePorts } from './frame-ports.js';
import { EntryLinks } from './entry-links.js';
import { NativeLink } from './native-link.js';
import { installOpenTabs } from './open-tabs.js';
import { installPageStubs } from './page-stubs.js';
import { openUrl } from './open-url.js';
import { createPageInstall } from './page-install.js';
import { ChatSites } from './chat-sites.js';
import { createPanelBridge } from './panel-bridge.js';
import { createRoutes } from './routes.js';
import { SiteCalls } from './site-calls.js';
import { SiteUpdates } from './site-updates.js';
import { Skills } from './skills.js';
import { createSkillsPanel } from './skills-panel.js';
import { TabFocus } from './tab-focus.js';
import { settleMs, ToolWaits } from './tool-waits.js';

const RECONNECT_ALARM = 'webmcp-reconnect';
const CONNECT_PING_ID = 'connect';
const noop = () => {};

/**
 * Makes the worker: registers its listeners and connects to the host.
 * browser-tools.js (and the modules it uses) read the global `chrome`: a test sets
 * `globalThis.chrome` to the same fake it passes here.
 * @param {{chrome?: typeof globalThis.chrome, navigator?: {userAgent: string, userAgentData?: any}}} [env]
 */
export function createWorker({ chrome = globalThis.chrome, navigator = globalThis.navigator } = {}) {
  const registry = new Registry();
  /** To the host: every part sends through routes.js. */
  const send = (msg) => routes.toHost(msg);
  /** @param {'debug'|'info'|'warning'|'error'} level @param {string} message */
  const log = (level, message) => send({ type: 'log', level, message: message.slice(0, 4000) });

  // An MCP entry's calls on its own link are routed as the host's are, with the link as their
  // way back (routes.js); a link that closes stops the calls whose way back it is.
  const entries = new EntryLinks({
    onMessage: (raw, reply) => routes.fromEntry(raw, reply), dropped: (reply) => siteCalls.dropReply(reply), log,
  });
  const link = new NativeLink({
    chrome, log, entries, onMessage: (raw) => routes.fromHost(raw), onOpen: greet, onDown: () => siteCalls.dropAll(),
  });
  const updates = new SiteUpdates({ registry, send, log, linked: () => link.port !== null });
  /** The registry changed: the host hears of it, and calls waiting for a tool look again. */
  const changed = () => {
    updates.schedule();
    waits.wake();
  };
  const frames = new FramePorts({
    chrome, registry, changed, portGone: (port, tabId) => siteCalls.portGone(port, tabId),
  });
  const focus = new TabFocus(chrome);
  const skillsRef = { run: (msg, route, done) => skills.run(msg, route, done), cancel: (id) => skills.cancel(id) };
  // A call for a tool its site's tab is about to offer (a page loading, its skills being
  // checked) waits for it: tool-waits.js.
  const waits = new ToolWaits({
    route: (site, name) => registry.route(site, name),
    settleMs: (site) => settleMs(registry.tabIdsOf(site), (tabId) => browserTools?.loads.tabs.get(tabId),
      (tabId) => skills?.looking(tabId) ?? false, Date.now()),
  });
  // Page loads come from the browser tools (below); a form that navigates is followed with them.
  const siteCalls = new SiteCalls({
    chrome, registry, frames, focus, log, skills: skillsRef, loads: () => browserTools?.loads, waits,
    answer: (msg, reply) => routes.answer(msg, reply),
  });
  const panel = createPanelBridge({ chrome, sendToHost: send, status, runCall: (m, reply) => siteCalls.call(m, reply) });

  /** The first messages on a new port: who we are, the whole registry, a ping. */
  function greet() {
    send({
      type: 'hello',
      extension_version: chrome.runtime.getManifest().version,
      browser: browserLabel(navigator.userAgent, navigator.userAgentData?.brands),
      protocol: PROTOCOL_VERSION,
      // Firefox tells the host only our add-on id: the origin (moz-extension://<uuid>/, per
      // profile) the host admits on the links comes from here.
      origin: chrome.runtime.getURL(''),
    });
    const sites = registry.takeSnapshot();
    const notices = registry.notices();
    send(Object.keys(notices).length ? { type: 'registry', sites, notices } : { type: 'registry', sites });
    // The pong tells us quickly that the host is really there (Chrome opens the port even
    // when the host cannot start, and only then disconnects it).
    send({ type: 'ping', id: CONNECT_PING_ID });
  }

  /** For the side panel and tests. */
  function status() {
    return {
      ...link.state(),
      sites: registry.snapshot(),
      siteInfo: Object.fromEntries(registry.sites().map((site) => [site, registry.siteInfo(site)])),
      pendingCalls: siteCalls.pending.size,
    };
  }

  // --- browser events --------------------------------------------------------------------------
  chrome.tabs.onRemoved.addListener((tabId) => {
    registry.removeTab(tabId);
    frames.tabRemoved(tabId);
    siteCalls.tabClosed(tabId);
    skills.tabClosed(tabId);
    changed();
  });
  chrome.tabs.onReplaced.addListener((_addedTabId, removedTabId) => {
    registry.removeTab(removedTabId);
    changed();
  });
  chrome.tabs.onUpdated.addListener((tabId, changeInfo, tab) => {
    if (!changeInfo.url) return;
    if (registry.tabNavigated(tabId, changeInfo.url, tab?.windowId)) frames.afterSiteChange(tabId);
    changed();
  });
  chrome.tabs.onAttached.addListener((tabId, info) => registry.tabMoved(tabId, info.newWindowId));
  chrome.tabs.onActivated.addListener((info) => focus.tabActivated(info));
  chrome.windows.onFocusChanged.addListener((windowId) => focus.windowFocused(windowId));
  chrome.windows.onRemoved.addListener((windowId) => focus.windowRemoved(windowId));

  // Browser tools (CDP, sessions' tab groups), after the listeners above: a closed tab's site
  // calls are answered before its session's tabs change.
  const browserTools = installBrowserTools({ send, log });
  // Skills use the browser tools' debugger (trusted input) and page loads (navigation).
  const skills = new Skills({
    chrome, registry, loads: browserTools.loads, debuggers: browserTools.debuggers, focus, log,
    changed, settled: () => waits.wake(),
  });
  browserTools.loads.listen(() => waits.wake());

  // AI chat websites: their calls run like the Inspector's, logged with the chat site as caller.
  const chatSites = new ChatSites({
    chrome, registry, send, log, runCall: (m, reply) => siteCalls.call(m, reply),
    logCall: (id, caller, site, tool, args) => panel.logCall(id, caller, site, tool, args),
    logEnd: (id, outcome) => panel.logEnd(id, outcome),
  });

  // The page code past the stubs, into the frames that use WebMCP (page-install.js).
  const pageInstall = createPageInstall({ chrome, log });

  // --- messages: routes.js ---------------------------------------------------------------------
  const routes = createRoutes({
    chrome, link, siteCalls, frames, panel, browserTools, log, status, skills, chatSites,
    skillsPanel: createSkillsPanel({ chrome, skills, registry }),
    pageInstall,
    openUrl: (id, url) => openUrl(chrome, send, id, url),
  });
  chrome.runtime.onConnect.addListener(routes.onConnect);
  chrome.runtime.onMessage.addListener(routes.onRuntimeMessage);

  // --- start -----------------------------------------------------------------------------------
  // The MAIN world's stub for this browser's mode. The host connects once some stub is
  // registered (at once but after an install): a browser MCP clients see connected gives the
  // pages it opens WebMCP.
  const pageStubs = installPageStubs({ chrome, log });
  const connect = () => {
    if (pageStubs.isRegistered()) link.connect();
    else pageStubs.registered.then(() => link.connect(), noop);
  };
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === RECONNECT_ALARM) connect();
  });
  chrome.runtime.onStartup.addListener(connect);
  chrome.runtime.onInstalled.addListener(connect);
  chrome.alarms.get(RECONNECT_ALARM).then((alarm) => {
    // Wakes a worker that was stopped while it had no port (timers die with it).
    if (!alarm) chrome.alarms.create(RECONNECT_ALARM, { periodInMinutes: 1 });
  }, noop);
  connect();
  // Tabs open from before an install, update or reload get our page scripts now, not on reload.
  const openTabs = installOpenTabs({ chrome, log, stubs: pageStubs.ready });

  return {
    registry, status, connect, browserTools, routes, panel, openTabs, pageStubs, skills, chatSites,
    /** Installs of the page code past the stubs (page-install.js): admitted and refused so far. */
    pageInstalls: () => pageInstall.counts(),
    framePorts: frames.ports,
    /** The worker's `message` event (service-worker.js): a frame lane's port (frame-ports.js). */
    offerLane: (/** @type {MessageEvent} */ ev) => frames.offerLane(ev),
    frameLanes: frames.lanes,
    lanesWaiting: () => frames.pairs.waiting,
    /** @param {boolean} on */
    setLanes: (on) => { frames.lanesOn = on; },
    pending: siteCalls.pending,
    entryLinks: entries,
    nativeLink: link,
    /** No more reconnects or timers of its own (tests drop a worker this way; Chrome just ends it). */
    stop() {
      link.stop();
      updates.stop();
      siteCalls.stop();
    },
  };
}
