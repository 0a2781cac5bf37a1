// The service worker: holds the domain registry, keeps the native port to the host open,
// and routes the host's calls to the frames of the tabs that have the tools.
// Pure logic lives in ../lib/; this file is the chrome.* wiring around it.

import { Backoff } from '../lib/backoff.js';
import { browserLabel } from '../lib/browser.js';
import { frameBytesBound, jsonStringBytesBound, Reassembler, splitIntoChunks } from '../lib/chunks.js';
import {
  CANCELLED_MESSAGE, TAB_CLOSED_MESSAGE, checkHostMessage, errorResult, frameResultToHost,
  noTabMessage, notFoundMessage, timeoutMessage,
} from '../lib/messages.js';
import { explainNativeError } from '../lib/native-errors.js';
import {
  BROWSER_TO_HOST_SPLIT, HOST_NAME, PAGE_PORT_NAME, PROTOCOL_VERSION, TIMEOUT_GRACE_MS,
} from '../lib/protocol.js';
import { SITE_UPDATE_BURST, SITE_UPDATE_INTERVAL_MS } from '../lib/limits.js';
import { RateLimit } from '../lib/rate-limit.js';
import { Registry } from '../lib/registry.js';
import { isHttps, siteOf } from '../lib/site.js';
import { installPanelBridge } from './panel-bridge.js';
import { installBrowserTools } from './browser-tools.js';

/** A port open this long counts as working even if the host said nothing, and resets the backoff. */
const STABLE_MS = 5_000;
/** How long a site's tools survive its tab reloading before the host hears they are gone. */
const RELOAD_GRACE_MS = 1_000;
/** How long a cancelled call waits for the page to confirm before we answer for it. */
const CANCEL_GRACE_MS = 1_000;
const RECONNECT_ALARM = 'webmcp-reconnect';
const CONNECT_PING_ID = 'connect';
const OPENABLE_PROTOCOLS = ['http:', 'https:', 'file:'];
const noop = () => {};

const registry = new Registry();
/** `site_tools` per site: a page that changes its tools all the time costs every client little. */
const siteRate = new RateLimit({ burst: SITE_UPDATE_BURST, intervalMs: SITE_UPDATE_INTERVAL_MS });
/** The notice last written to the host's log, per site. */
const loggedNotices = new Map();
const backoff = new Backoff();
const reassembler = new Reassembler();

/** The native link. `connected`: the host has spoken, or the port has stayed open a while. */
const link = {
  /** @type {chrome.runtime.Port|null} */ port: null,
  connected: false,
  /** @type {string|null} */ lastError: null,
  /** @type {string|null} */ hint: null,
  /** @type {ReturnType<typeof setTimeout>|null} */ reconnectTimer: null,
  /** @type {ReturnType<typeof setTimeout>|null} */ stableTimer: null,
  retryAt: 0,
};

/**
 * Content-script ports by "tabId:frameId": only the current port of a frame reports tools.
 * @type {Map<string, {port: chrome.runtime.Port, site: string|null, https: boolean, top: boolean}>}
 */
const framePorts = new Map();

/**
 * Calls forwarded to a frame and not answered yet, by call id.
 * @type {Map<string, {port: chrome.runtime.Port, tabId: number, maxBytes: number,
 *   timer: ReturnType<typeof setTimeout>}>}
 */
const pending = new Map();

/** Active tab per window and the focused window, so a call only activates when needed. */
const activeTabs = new Map();
let focusedWindow = /** @type {number|undefined} */ (undefined);

let chunkCounter = 0;
let flushTimer = /** @type {ReturnType<typeof setTimeout>|null} */ (null);
let graceTimer = /** @type {ReturnType<typeof setTimeout>|null} */ (null);
let rateTimer = /** @type {ReturnType<typeof setTimeout>|null} */ (null);

const frameKey = (tabId, frameId) => `${tabId}:${frameId}`;

// --- native link ------------------------------------------------------------------------------

function connect() {
  if (link.port) return;
  if (link.reconnectTimer) clearTimeout(link.reconnectTimer);
  link.reconnectTimer = null;
  let port;
  try {
    port = chrome.runtime.connectNative(HOST_NAME);
  } catch (e) {
    linkDown(String(e?.message ?? e));
    return;
  }
  link.port = port;
  link.connected = false;
  reassembler.reset();
  port.onMessage.addListener(onHostMessage);
  port.onDisconnect.addListener(() => {
    const message = chrome.runtime.lastError?.message;
    if (link.port === port) linkDown(message);
  });
  send({
    type: 'hello',
    extension_version: chrome.runtime.getManifest().version,
    browser: browserLabel(navigator.userAgent, /** @type {any} */ (navigator).userAgentData?.brands),
    protocol: PROTOCOL_VERSION,
  });
  const sites = registry.takeSnapshot();
  const notices = registry.notices();
  send(Object.keys(notices).length ? { type: 'registry', sites, notices } : { type: 'registry', sites });
  // The pong tells us quickly that the host is really there (Chrome opens the port even
  // when the host cannot start, and only then disconnects it).
  send({ type: 'ping', id: CONNECT_PING_ID });
  // Only a link that lasts resets the backoff: a host that answers and then crashes must
  // not be restarted four times a second.
  link.stableTimer = setTimeout(() => {
    markConnected();
    backoff.reset();
  }, STABLE_MS);
}

function markConnected() {
  if (link.connected || !link.port) return;
  link.connected = true;
  link.lastError = null;
  link.hint = null;
}

/** @param {string|undefined} message chrome.runtime.lastError.message, if any */
function linkDown(message) {
  link.port = null;
  link.connected = false;
  if (link.stableTimer) clearTimeout(link.stableTimer);
  link.stableTimer = null;
  link.lastError = message ?? 'The connection to the host closed.';
  link.hint = explainNativeError(message);
  reassembler.reset();
  // Nobody can take these results any more: stop the work in the pages.
  for (const [id, call] of pending) {
    clearTimeout(call.timer);
    postToFrame(call.port, { type: 'cancel', id });
  }
  pending.clear();
  if (!link.reconnectTimer) {
    const delay = backoff.next();
    link.retryAt = Date.now() + delay;
    link.reconnectTimer = setTimeout(() => {
      link.reconnectTimer = null;
      connect();
    }, delay);
  }
}

/**
 * Sends a message to the host. Results (the hot path) go straight to postMessage, which
 * encodes them once: their size is bounded from `value` alone. Only a message that may be
 * near the browser->host limit is encoded here, to be split into chunks if it is over.
 * @param {any} msg
 */
function send(msg) {
  if (bridge.toHost(msg)) return true; // an Inspector call's result: it stays in the extension
  const port = link.port;
  if (!port) return false;
  try {
    if (!fitsOneFrame(msg)) {
      const text = JSON.stringify(msg);
      if (frameBytesBound(text) > BROWSER_TO_HOST_SPLIT) {
        for (const chunk of splitIntoChunks(text, `sw${++chunkCounter}`, BROWSER_TO_HOST_SPLIT)) {
          port.postMessage(chunk);
        }
        return true;
      }
    }
    port.postMessage(msg);
    return true;
  } catch {
    return false; // the port just closed; onDisconnect deals with it
  }
}

/** Room for everything in a result besides `value` (error messages are capped). */
const RESULT_SLACK = 64 * 1024;

/** Whether a message surely fits one frame, judged without encoding it. */
function fitsOneFrame(msg) {
  if (msg.type === 'result') {
    const len = msg.value?.length ?? 0;
    if (len * 6 + RESULT_SLACK <= BROWSER_TO_HOST_SPLIT) return true; // 6 bytes a char at worst
    if (len + RESULT_SLACK > BROWSER_TO_HOST_SPLIT) return false;
    return jsonStringBytesBound(msg.value) + RESULT_SLACK <= BROWSER_TO_HOST_SPLIT;
  }
  // Tool lists are bounded by the content script, but a page controls their size.
  return msg.type !== 'registry' && msg.type !== 'site_tools';
}

/** @param {'debug'|'info'|'warning'|'error'} level @param {string} message */
function logToHost(level, message) {
  send({ type: 'log', level, message: message.slice(0, 4000) });
}

// --- host messages ----------------------------------------------------------------------------

function onHostMessage(raw) {
  markConnected();
  try {
    handleHostMessage(raw, false);
  } catch (e) {
    logToHost('error', `extension failed on a ${String(raw?.type)} message: ${e?.stack ?? e}`);
  }
}

function handleHostMessage(raw, fromChunks) {
  if (bridge.fromHost(raw)) return; // the side panel's messages (and calls, for its operation log)
  if (browserTools.onHostMessage(raw)) return; // browser_call, session, session_end, their cancels
  const checked = checkHostMessage(raw);
  if (!checked.ok) {
    if (checked.id !== undefined) send(errorResult(checked.id, 'bad_request', checked.error));
    else logToHost('warning', `ignored a host message: ${checked.error}`);
    return;
  }
  const msg = checked.msg;
  switch (msg.type) {
    case 'call': return onCall(msg);
    case 'cancel': return onCancel(msg.id);
    case 'open_url': return void onOpenUrl(msg.id, msg.url);
    case 'ping': return void send({ type: 'pong', id: msg.id });
    case 'pong': return;
    case 'chunk': {
      if (fromChunks) return logToHost('warning', 'ignored a chunk inside a chunked message');
      let text;
      try {
        text = reassembler.push(msg);
      } catch (e) {
        return logToHost('warning', String(e?.message ?? e));
      }
      if (text === null) return;
      let inner;
      try {
        inner = JSON.parse(text);
      } catch {
        return logToHost('warning', `chunked message ${msg.cid} is not valid JSON; ignored`);
      }
      return handleHostMessage(inner, true);
    }
  }
}

/** @param {import('../lib/protocol.js').CallMsg} msg */
function onCall(msg) {
  const { id } = msg;
  if (pending.has(id)) return logToHost('warning', `ignored a second call with id ${id} while the first runs`);
  const route = registry.route(msg.site, msg.tool);
  if ('reason' in route) {
    const message = route.reason === 'no_tab'
      ? noTabMessage(msg.site)
      : notFoundMessage(msg.site, msg.tool, registry.siteTools(msg.site).map((t) => t.name));
    return void send(errorResult(id, route.reason, message));
  }
  const { tabId, frameId, windowId } = route;
  const entry = framePorts.get(frameKey(tabId, frameId));
  if (!entry) return void send(errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
  const timer = setTimeout(onCallTimeout, msg.timeout_ms + TIMEOUT_GRACE_MS, id, msg.timeout_ms);
  pending.set(id, { port: entry.port, tabId, maxBytes: msg.max_bytes, timer });
  const forwarded = postToFrame(entry.port, {
    type: 'call', id, tool: msg.tool, args: msg.args, timeout_ms: msg.timeout_ms, max_bytes: msg.max_bytes,
  });
  if (!forwarded) return finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
  // After forwarding, and not awaited: the user should see the tab, but not at the call's cost.
  activate(tabId, windowId);
}

function onCallTimeout(id, timeoutMs) {
  const call = pending.get(id);
  if (!call) return;
  postToFrame(call.port, { type: 'cancel', id });
  finish(id, errorResult(id, 'timeout', timeoutMessage(timeoutMs), call.tabId));
}

/** Forwards the cancel; the page answers `cancelled`, or we do after a short grace. */
function onCancel(id) {
  const call = pending.get(id);
  if (!call) return; // already answered
  postToFrame(call.port, { type: 'cancel', id });
  clearTimeout(call.timer);
  call.timer = setTimeout(() => finish(id, errorResult(id, 'cancelled', CANCELLED_MESSAGE, call.tabId)), CANCEL_GRACE_MS);
}

/** Sends a call's one and only result. */
function finish(id, result) {
  const call = pending.get(id);
  if (!call) return;
  pending.delete(id);
  clearTimeout(call.timer);
  send(result);
}

/** Brings the tab to the front, skipping what is already so (events correct us if the user
 * moves elsewhere), so back-to-back calls to one tab cost the browser nothing extra. */
function activate(tabId, windowId) {
  if (activeTabs.get(windowId) !== tabId) {
    activeTabs.set(windowId, tabId);
    chrome.tabs.update(tabId, { active: true }).catch(() => activeTabs.delete(windowId));
  }
  if (windowId !== undefined && focusedWindow !== windowId) {
    focusedWindow = windowId;
    chrome.windows.update(windowId, { focused: true }).catch(() => {
      if (focusedWindow === windowId) focusedWindow = undefined;
    });
  }
}

async function onOpenUrl(id, url) {
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch {
    // not a URL: answered below
  }
  if (!parsed || !OPENABLE_PROTOCOLS.includes(parsed.protocol)) {
    return void send(errorResult(id, 'bad_request',
      `Only http, https and file URLs can be opened; "${url.slice(0, 200)}" is not one.`));
  }
  const href = parsed.href;
  try {
    let tab;
    try {
      tab = await chrome.tabs.create({ url: href, active: true });
    } catch {
      // No window to put a tab in (e.g. every window closed on macOS): open one.
      const win = await chrome.windows.create({ url: href, focused: true });
      tab = win?.tabs?.[0];
    }
    if (!tab || tab.id === undefined) throw new Error('the browser gave no tab back');
    if (tab.windowId !== undefined) chrome.windows.update(tab.windowId, { focused: true }).catch(noop);
    send({ type: 'result', id, ok: true, value: JSON.stringify({ tabId: tab.id, url: href }), tab_id: tab.id });
  } catch (e) {
    send(errorResult(id, 'internal', `The browser could not open ${href}: ${e?.message ?? e}`));
  }
}

// --- content-script ports ---------------------------------------------------------------------

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== PAGE_PORT_NAME) return;
  const sender = port.sender;
  const tab = sender?.tab;
  const frameId = sender?.frameId;
  if (!tab || typeof tab.id !== 'number' || tab.id < 0 || typeof frameId !== 'number') {
    port.disconnect();
    return;
  }
  const tabId = tab.id;
  const key = frameKey(tabId, frameId);
  // The browser's view of the frame's URL, not what the frame says about itself.
  const frameUrl = sender.url ?? '';
  // A prerendered page is not the tab's page until it is activated.
  const top = frameId === 0 ||
    (sender.frameType === 'outermost_frame' && sender.documentLifecycle !== 'prerender');
  framePorts.set(key, { port, site: siteOf(frameUrl), https: isHttps(frameUrl), top });

  port.onMessage.addListener((msg) => {
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'result') {
      const call = pending.get(msg.id);
      if (call && call.port === port) finish(msg.id, frameResultToHost(msg.id, msg, tabId, call.maxBytes));
    } else if (msg.type === 'tools') {
      if (framePorts.get(key)?.port !== port) return; // a document that has been replaced
      const moved = registry.reportFrame(tabId, frameId, tab.windowId, frameUrl || String(msg.url ?? ''),
        msg.tools, msg.native === true, { top, tabUrl: tab.url, dropped: msg.dropped });
      if (moved) afterSiteChange(tabId, port);
      scheduleFlush();
    }
  });

  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError; // read, so Chrome does not report it as unchecked
    if (framePorts.get(key)?.port === port) {
      framePorts.delete(key);
      registry.removeFrame(tabId, frameId);
      scheduleFlush();
    }
    failCallsOn(port, tabId);
  });
});

/**
 * After a tab changed site: its frames of another site (the old documents) may no longer
 * report, and frames of the new site whose entries were dropped with the old ones (e.g. an
 * activated prerendered page) are asked to send their list again.
 * @param {number} tabId
 * @param {chrome.runtime.Port} [reporter] the port whose report moved the tab: it needs no sync
 */
function afterSiteChange(tabId, reporter) {
  const site = registry.siteOfTab(tabId);
  const https = registry.tabIsHttps(tabId);
  const prefix = `${tabId}:`;
  for (const [key, entry] of framePorts) {
    if (!key.startsWith(prefix)) continue;
    // A main document of the other scheme (http left for https, or back) is the old page too:
    // its late report must not turn the tab back.
    if (entry.site !== site || (entry.top && entry.https !== https && entry.port !== reporter)) framePorts.delete(key);
    else if (entry.port !== reporter) postToFrame(entry.port, { type: 'sync' });
  }
}

/** The frame's document went away mid-call; tell the closed tab from a reload or navigation. */
function failCallsOn(port, tabId) {
  const ids = [];
  for (const [id, call] of pending) if (call.port === port) ids.push(id);
  if (!ids.length) return;
  const answer = (message) => { for (const id of ids) finish(id, errorResult(id, 'tab_closed', message, tabId)); };
  chrome.tabs.get(tabId).then(
    () => answer('The page running the call was reloaded or left before the tool answered.'),
    () => answer(TAB_CLOSED_MESSAGE),
  );
}

function postToFrame(port, msg) {
  try {
    port.postMessage(msg);
    return true;
  } catch {
    return false;
  }
}

// --- registry changes -------------------------------------------------------------------------

/** Coalesces a burst of frame reports into one diff. */
function scheduleFlush() {
  if (flushTimer === null) flushTimer = setTimeout(flush, 0);
}

function flush() {
  flushTimer = null;
  if (!link.port) return; // a host that connects later gets the whole registry
  sendChanges({ holdReloading: true });
  if (registry.hasUntakenChanges() && graceTimer === null) {
    graceTimer = setTimeout(() => {
      graceTimer = null;
      if (link.port) sendChanges({});
    }, RELOAD_GRACE_MS);
  }
}

/**
 * Sends the sites' changes the rate limit lets through; the others stay in the registry and
 * go, in their state of then, when their turn comes.
 * @param {{holdReloading?: boolean}} opts
 */
function sendChanges(opts) {
  const now = Date.now();
  for (const { site, tools, notice } of registry.takeChanges({ ...opts, allow: (s) => siteRate.take(s, now) })) {
    send(notice ? { type: 'site_tools', site, tools, notice } : { type: 'site_tools', site, tools });
    if (notice && loggedNotices.get(site) !== notice) logToHost('warning', notice);
    if (notice) loggedNotices.set(site, notice);
    else loggedNotices.delete(site);
  }
  const wait = siteRate.waitMs(now);
  if (wait !== null && rateTimer === null) {
    rateTimer = setTimeout(() => {
      rateTimer = null;
      flush();
    }, wait);
  }
}

// --- browser events ---------------------------------------------------------------------------

chrome.tabs.onRemoved.addListener((tabId) => {
  registry.removeTab(tabId);
  const prefix = `${tabId}:`;
  for (const key of framePorts.keys()) if (key.startsWith(prefix)) framePorts.delete(key);
  for (const [id, call] of pending) {
    if (call.tabId === tabId) finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
  }
  scheduleFlush();
});

chrome.tabs.onReplaced.addListener((_addedTabId, removedTabId) => {
  registry.removeTab(removedTabId);
  scheduleFlush();
});

chrome.tabs.onUpdated.addListener((tabId, changeInfo, tab) => {
  if (!changeInfo.url) return;
  if (registry.tabNavigated(tabId, changeInfo.url, tab?.windowId)) afterSiteChange(tabId);
  scheduleFlush();
});

chrome.tabs.onAttached.addListener((tabId, info) => registry.tabMoved(tabId, info.newWindowId));
chrome.tabs.onActivated.addListener(({ tabId, windowId }) => activeTabs.set(windowId, tabId));
chrome.windows.onFocusChanged.addListener((windowId) => {
  focusedWindow = windowId;
});
chrome.windows.onRemoved.addListener((windowId) => activeTabs.delete(windowId));

// --- status for the UI and tests ------------------------------------------------------------

function status() {
  return {
    connected: link.connected,
    state: link.port ? (link.connected ? 'connected' : 'connecting') : 'disconnected',
    lastError: link.lastError,
    hint: link.hint,
    retryInMs: !link.port && link.reconnectTimer ? Math.max(0, link.retryAt - Date.now()) : null,
    sites: registry.snapshot(),
    siteInfo: Object.fromEntries(registry.sites().map((site) => [site, registry.siteInfo(site)])),
    pendingCalls: pending.size,
  };
}

chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Extension pages only (side panel, popup): pages must not learn what else is open.
  if (msg?.type !== 'status' || sender.tab || sender.id !== chrome.runtime.id) return false;
  sendResponse(status());
  return false;
});

// The side panel: its relay to the host, the operation log, the Inspector's calls.
const bridge = installPanelBridge({ sendToHost: send, status, runCall: onCall });

// Browser tools (CDP, sessions' tab groups): browser-tools.js.
const browserTools = installBrowserTools({ send, log: logToHost });

globalThis.sidecar = { registry, status, framePorts, pending, connect, browserTools };

// --- start ------------------------------------------------------------------------------------

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === RECONNECT_ALARM) connect();
});
chrome.runtime.onStartup.addListener(connect);
chrome.runtime.onInstalled.addListener(() => connect());
chrome.alarms.get(RECONNECT_ALARM).then((alarm) => {
  // Wakes a worker that was stopped while it had no port (timers die with it).
  if (!alarm) chrome.alarms.create(RECONNECT_ALARM, { periodInMinutes: 1 });
}, noop);
connect();
