// A stand-in service worker for testing the content scripts alone: it records every port
// message and lets the test post `call`/`cancel` messages (driven via Playwright's
// ServiceWorker.evaluate). Not shipped; harness.py copies it into a scratch extension, with the
// real worker's page-install.js (the page code past the stubs, on a frame's first use) and
// page-stubs.js (the MAIN stub per mode).
import { createPageInstall } from './background/page-install.js';
import { installPageStubs } from './background/page-stubs.js';
import { ourFrame } from './lib/senders.js';

// The MAIN stub of this browser's mode, as the real worker registers it (harness.py waits for it).
self.pageStubs = installPageStubs({ chrome, log: () => {} });

const installs = createPageInstall({ chrome, log: () => {} });
// As the real worker's routes.js hands it on: our content scripts' frames only.
chrome.runtime.onMessage.addListener((m, sender, respond) => {
  const at = m?.type === 'page_install' ? ourFrame(sender, chrome.runtime) : null;
  return at ? installs.request(m, sender, at, respond) : false;
});
self.pageInstalls = () => installs.counts();

self.log = [];
self.ports = new Map();
const waiters = new Map();
let seq = 0;

chrome.runtime.onConnect.addListener((port) => {
  const pid = ++seq;
  const s = port.sender || {};
  const info = { pid, name: port.name, url: s.url, frameId: s.frameId, tabId: s.tab && s.tab.id };
  self.ports.set(pid, { port, info });
  self.log.push({ ev: 'connect', ...info, t: Date.now() });
  /** A long result's pieces by call id (page/isolated/relay.js), joined into its `result`. */
  const parts = new Map();
  port.onMessage.addListener((m) => {
    if (m && m.type === 'result_part') {
      parts.set(m.id, [...(parts.get(m.id) ?? []), m]);
      return;
    }
    if (m && m.type === 'result' && parts.has(m.id)) {
      const got = parts.get(m.id);
      parts.delete(m.id);
      const inOrder = got.every((p, i) => p.seq === i && typeof p.data === 'string');
      m = { ...m, value: inOrder ? got.map((p) => p.data).join('') + m.value : null, partsSeen: got.length };
    }
    self.log.push({ ev: 'msg', pid, url: info.url, frameId: info.frameId, m, t: Date.now() });
    if (m && m.type === 'result' && waiters.has(m.id)) {
      const w = waiters.get(m.id);
      waiters.delete(m.id);
      w(m);
    }
  });
  port.onDisconnect.addListener(() => {
    self.log.push({ ev: 'disconnect', pid, t: Date.now() });
    self.ports.delete(pid);
  });
});

/** The newest `tools` message of every live port whose URL contains `part`. */
self.toolsOf = (part) => {
  const out = new Map();
  for (const e of self.log) {
    if (e.ev === 'msg' && e.m.type === 'tools' && e.url.includes(part) && self.ports.has(e.pid)) {
      out.set(e.pid, {
        pid: e.pid, url: e.url, frameId: e.frameId, native: e.m.native, msgUrl: e.m.url, tools: e.m.tools,
        dropped: e.m.dropped ?? null,
      });
    }
  }
  return [...out.values()];
};

/** Posts `msg` on port `pid` and resolves with its result (or {noReply: true}). */
self.call = (pid, msg, waitMs = 10000) =>
  new Promise((resolve) => {
    const p = self.ports.get(pid);
    if (!p) return resolve({ noPort: true });
    waiters.set(msg.id, resolve);
    p.port.postMessage(msg);
    setTimeout(() => {
      if (waiters.has(msg.id)) {
        waiters.delete(msg.id);
        resolve({ noReply: true });
      }
    }, waitMs);
  });

self.post = (pid, msg) => {
  const p = self.ports.get(pid);
  if (p) p.port.postMessage(msg);
  return !!p;
};

self.kick = (pid) => {
  const p = self.ports.get(pid);
  if (!p) return false;
  p.port.disconnect();
  self.ports.delete(pid);
  self.log.push({ ev: 'kicked', pid, t: Date.now() });
  return true;
};

self.resultsFor = (id) => self.log.filter((e) => e.ev === 'msg' && e.m.type === 'result' && e.m.id === id).map((e) => e.m);
