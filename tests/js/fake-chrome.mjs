// A fake chrome.* for loading the service worker in node: ports, tabs, windows, alarms.
// Install it (installFakeChrome) before importing background/service-worker.js.

const jsonCopy = (v) => JSON.parse(JSON.stringify(v));

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
  receive(msg) { this.onMessage.fire(jsonCopy(msg), this); }
  drop() {
    this.closed = true;
    this.onDisconnect.fire(this);
  }
  take() { const s = this.sent; this.sent = []; return s; }
}

/** @returns {{chrome: any, native: () => Port, connectFrame: Function, allNative: any[]}} */
export function installFakeChrome() {
  let nativePort = null;
  /** Every message the worker sent to any host port, in order. */
  const allNative = [];
  const chrome = {
    runtime: {
      id: 'fafdbggbcpipbkecmkjnkpdagfobdohc',
      lastError: undefined,
      getManifest: () => ({ version: '0.1.0' }),
      connectNative(name) {
        nativePort = new Port(chrome, name, undefined);
        const post = nativePort.postMessage.bind(nativePort);
        nativePort.postMessage = (msg) => { post(msg); allNative.push(jsonCopy(msg)); };
        return nativePort;
      },
      onConnect: new FakeEvent(),
      onMessage: new FakeEvent(),
      onStartup: new FakeEvent(),
      onInstalled: new FakeEvent(),
    },
    tabs: {
      update: async (tabId) => ({ id: tabId }),
      create: async () => { throw new Error('unused'); },
      get: async (tabId) => ({ id: tabId }),
      onRemoved: new FakeEvent(),
      onReplaced: new FakeEvent(),
      onUpdated: new FakeEvent(),
      onAttached: new FakeEvent(),
      onActivated: new FakeEvent(),
    },
    windows: {
      update: async (windowId) => ({ id: windowId }),
      create: async () => { throw new Error('unused'); },
      onFocusChanged: new FakeEvent(),
      onRemoved: new FakeEvent(),
    },
    alarms: { get: async () => undefined, create() {}, onAlarm: new FakeEvent() },
  };
  globalThis.chrome = chrome;
  if (!globalThis.navigator) {
    Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'HeadlessChrome/156.0.0.0' }, configurable: true });
  }
  /** A content script connecting from a frame. */
  const connectFrame = (tabId, frameId, url, { windowId = 1, tabUrl = url } = {}) => {
    const port = new Port(chrome, 'webmcp-page', {
      tab: { id: tabId, windowId, url: tabUrl }, frameId, url,
      frameType: frameId === 0 ? 'outermost_frame' : 'sub_frame', documentLifecycle: 'active',
    });
    chrome.runtime.onConnect.fire(port);
    return port;
  };
  return { chrome, native: () => nativePort, connectFrame, allNative };
}
