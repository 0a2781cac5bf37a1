// A fake chrome.* for running the service worker in node (ports, tabs, windows, alarms), and
// startWorker(t): a fresh fake and a fresh worker on it for one test, dropped when it ends, so
// no test depends on what another did.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createWorker } from '../../extension/background/worker.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const jsonCopy = (v) => JSON.parse(JSON.stringify(v));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Long enough for the worker's 0 ms flush and a few promise turns. */
export const tick = () => sleep(5);
export const tool = (name, extra = {}) => ({ name, description: `does ${name}`, inputSchema: { type: 'object' }, ...extra });

export class FakeEvent {
  listeners = [];
  addListener(fn) { this.listeners.push(fn); }
  removeListener(fn) { this.listeners = this.listeners.filter((l) => l !== fn); }
  fire(...args) { return this.listeners.map((fn) => fn(...args)); }
}

export class Port {
  constructor(chrome, name, sender) {
    this.chrome = chrome;
    this.name = name;
    this.sender = sender;
    this.onMessage = new FakeEvent();
    this.onDisconnect = new FakeEvent();
    this.sent = [];
    this.closed = false;
  }
  postMessage(msg) {
    if (this.closed) throw new Error('Attempting to use a disconnected port object');
    this.sent.push(jsonCopy(msg)); // ports carry JSON
  }
  disconnect() { this.closed = true; }
  /** The other side sends a message. */
  receive(msg) { this.onMessage.fire(jsonCopy(msg), this); }
  /** The other side goes away, with chrome.runtime.lastError set to `lastError` meanwhile. */
  drop(lastError) {
    this.closed = true;
    this.chrome.runtime.lastError = lastError ? { message: lastError } : undefined;
    this.onDisconnect.fire(this);
    this.chrome.runtime.lastError = undefined;
  }
  take() { const s = this.sent; this.sent = []; return s; }
}

/**
 * A fresh fake chrome, also set as `globalThis.chrome` (browser-tools.js reads the global).
 * Tabs 1-5 exist; chrome.tabs.create opens tab 77 in window 9.
 */
export function installFakeChrome() {
  /** What the worker asked of the browser, in order. */
  const calls = { tabsUpdate: [], windowsUpdate: [], tabsCreate: [], connectNative: [] };
  const liveTabs = new Set([1, 2, 3, 4, 5]);
  let nativePort = null;
  /** Every message the worker sent to any host port, in order. */
  const allNative = [];
  const chrome = {
    runtime: {
      id: 'fafdbggbcpipbkecmkjnkpdagfobdohc',
      lastError: undefined,
      getManifest: () => ({ version: '0.1.0' }),
      getURL: (p) => `chrome-extension://fafdbggbcpipbkecmkjnkpdagfobdohc/${p}`,
      connectNative(name) {
        calls.connectNative.push(name);
        nativePort = new Port(chrome, name, undefined);
        const post = nativePort.postMessage.bind(nativePort);
        nativePort.postMessage = (msg) => { post(msg); allNative.push(jsonCopy(msg)); };
        return nativePort;
      },
      sendMessage: async () => undefined,
      onConnect: new FakeEvent(),
      onMessage: new FakeEvent(),
      onStartup: new FakeEvent(),
      onInstalled: new FakeEvent(),
    },
    tabs: {
      update: async (tabId, props) => { calls.tabsUpdate.push([tabId, props]); return { id: tabId }; },
      create: async (props) => { calls.tabsCreate.push(props); liveTabs.add(77); return { id: 77, windowId: 9, url: props.url }; },
      get: async (tabId) => { if (!liveTabs.has(tabId)) throw new Error(`No tab with id: ${tabId}.`); return { id: tabId }; },
      onRemoved: new FakeEvent(),
      onReplaced: new FakeEvent(),
      onUpdated: new FakeEvent(),
      onAttached: new FakeEvent(),
      onActivated: new FakeEvent(),
      onCreated: new FakeEvent(),
    },
    windows: {
      update: async (windowId, props) => { calls.windowsUpdate.push([windowId, props]); return { id: windowId }; },
      create: async () => { throw new Error('unused'); },
      onFocusChanged: new FakeEvent(),
      onRemoved: new FakeEvent(),
    },
    alarms: {
      created: [],
      get: async () => undefined,
      create(name, info) { this.created.push([name, info]); },
      onAlarm: new FakeEvent(),
    },
  };
  globalThis.chrome = chrome;
  /** A content script connecting from a frame. */
  const connectFrame = (tabId, frameId, url, { windowId = 1, tabUrl = url } = {}) => {
    const port = new Port(chrome, 'webmcp-page', {
      id: chrome.runtime.id, tab: { id: tabId, windowId, url: tabUrl }, frameId, url,
      frameType: frameId === 0 ? 'outermost_frame' : 'sub_frame', documentLifecycle: 'active',
    });
    chrome.runtime.onConnect.fire(port);
    return port;
  };
  return { chrome, calls, liveTabs, native: () => nativePort, connectFrame, allNative };
}

const NAVIGATOR = {
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
};

/**
 * A fresh fake chrome and a worker on it, for one test (dropped when the test ends).
 * @param {import('node:test').TestContext} t
 * @param {{connected?: boolean}} [opts] connected (default): the host answered the
 *   greeting, which has been taken off the native port
 */
export function startWorker(t, { connected = true } = {}) {
  const fake = installFakeChrome();
  const worker = createWorker({ chrome: fake.chrome, navigator: NAVIGATOR });
  t.after(() => worker.stop());
  const host = (msg) => fake.native().receive(msg);
  const fromHost = () => fake.native().take();
  if (connected) {
    host({ type: 'pong', id: 'connect' });
    fromHost();
  }
  return {
    ...fake,
    worker,
    status: () => worker.status(),
    /** The host sends a message. */
    host,
    /** What the worker sent the host since the last look. */
    fromHost,
    /** The host calls a site tool. */
    call: (id, site, name, args = {}, extra = {}) =>
      host({ type: 'call', id, site, tool: name, args, timeout_ms: 5000, max_bytes: 1 << 20, ...extra }),
    /** A frame reports its whole tool list. */
    sendTools: (port, tools, extra = {}) =>
      port.receive({ type: 'tools', url: port.sender.url, native: true, tools, ...extra }),
  };
}

/** The problems the host's pydantic models find with these messages (null: no Python with pydantic). */
export function hostModelErrors(messages) {
  const python = findPython();
  if (!python) return null;
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(path.join(REPO, 'host'))})`,
    'from webmcp_sidecar.wire.messages import extension_message',
    'bad = []',
    'for line in sys.stdin:',
    '    try: extension_message.validate_json(line)',
    '    except Exception as e: bad.append((line[:200], str(e)[:300]))',
    'print(json.dumps(bad))',
  ].join('\n');
  const out = spawnSync(python, ['-c', script], { input: messages.map((m) => JSON.stringify(m)).join('\n') + '\n', encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

let python;
export function findPython() {
  if (python !== undefined) return python;
  python = null;
  for (const candidate of [process.env.WEBMCP_PYTHON, path.join(REPO, '.venv/bin/python'), 'python3']) {
    if (!candidate || (candidate.includes('/') && !existsSync(candidate))) continue;
    const r = spawnSync(candidate, ['-c', 'import pydantic'], { encoding: 'utf8' });
    if (r.status === 0) return (python = candidate);
  }
  return python;
}
