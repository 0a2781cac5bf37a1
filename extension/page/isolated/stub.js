// WebMCP Sidecar, ISOLATED world stub: the manifest's only isolated-world file (every frame,
// document_start). It waits for a word from the MAIN world's stub that this frame uses WebMCP
// and then asks the worker for the rest (`page_install`; docs/PAGE_CODE.md, "What runs in a
// page"). Until then it touches nothing but `window`: `document` alone costs ~18 KB of heap per
// frame in a world of its own (bench/pageload.py).
(() => {
  'use strict';

  const MARK = Symbol.for('webmcp-sidecar.isolated');
  const G = /** @type {any} */ (globalThis);
  if (G[MARK]) return;
  G[MARK] = true;
  if (!isSecureContext) return; // no WebMCP (page/main/base.js): nothing to relay

  /** What the relay takes from here when it comes (relay.js). */
  const stub = {
    grant: /** @type {string|null} */ (null), // a parent's grant of `tools` (frame-policy.js)
    last: /** @type {string|null} */ (null), // polyfill: the MAIN world's latest `tools` message
    relay: false, // the relay runs: it listens itself
  };
  G.webmcpSidecarStub = stub;
  const ext = (/** @type {string} */ detail) => window.dispatchEvent(new CustomEvent('webmcp-sidecar:ext', { detail }));
  let asked = false;

  const install = () => {
    if (asked) return;
    asked = true;
    const native = !!(/** @type {any} */ (document).modelContext);
    // Polyfill: the MAIN stub puts out what its full code will need (surface.js), and settles
    // what waits with an error if the worker refuses (the tab's cap) or the extension went away.
    if (!native) ext('{"type":"install"}');
    const refused = () => native || ext('{"type":"install_refused"}');
    try {
      // `doc` names this document where the browser gives no documentId (Firefox).
      const sent = /** @type {any} */ (chrome.runtime.sendMessage({ type: 'page_install', main: !native, doc: crypto.randomUUID() }));
      sent?.then?.((/** @type {any} */ r) => r?.ok || refused(), refused); // asked once: 'again' too means nothing comes
    } catch {
      refused(); // an orphan: the extension went away
    }
  };

  // The MAIN stub's word (forgeable: the worst a page gets is the code it could have had by
  // registering a tool): `install` (the page used the API, has a tool form or an iframe given
  // `tools`; native: a toolchange), or polyfill's list of tools, kept for the relay.
  addEventListener('webmcp-sidecar:page', (ev) => {
    if (stub.relay) return;
    const d = /** @type {CustomEvent} */ (ev).detail;
    if (typeof d !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(d);
    } catch {
      return;
    }
    if (msg?.type === 'install') return install();
    if (msg?.type !== 'tools' || !Array.isArray(msg.tools)) return;
    stub.last = d;
    if (msg.tools.length) install();
  });

  // A parent's grant of `tools` to this frame (frame-policy.js's listenForGrant), kept for the relay.
  if (window !== window.top) {
    addEventListener('message', (ev) => {
      if (ev.source !== window.parent) return;
      const d = ev.data;
      const t = d && typeof d === 'object' ? d['webmcp-sidecar:tools-grant'] : undefined;
      if (typeof t === 'string' && t.length <= 64) stub.grant = t;
    });
  }

  // A tab open from before (background/open-tabs.js calls this once our files are in): the MAIN
  // world may hold an earlier copy's full code, asked for its list; and what the MAIN stub
  // watches for may have happened before us.
  let woken = false;
  /** @type {any} */ (stub).late = () => {
    if (woken || asked) return;
    woken = true;
    const mc = /** @type {any} */ (document).modelContext;
    if (document.querySelector('iframe[allow*="tools"]')) install();
    else if (!mc) ext('{"type":"sync"}');
    else {
      // An earlier copy's MAIN stub may not say `install` on a toolchange: this one listens.
      mc.addEventListener('toolchange', install);
      mc.getTools().then((/** @type {unknown[]} */ l) => l.length && install(), () => {});
    }
  };
})();
