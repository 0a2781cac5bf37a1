// WebMCP Sidecar, ISOLATED world: the stub, the only file the manifest puts in every frame's
// isolated world (document_start). Almost no page uses WebMCP, so the rest (lib/page-files.js:
// the relay, its checks, calls, the frame lane) comes only into a frame that does, once per
// document: this asks the worker for it (`page_install`, background/page-install.js), when
// - polyfill: the MAIN world's stub asks (`install`: the page used the API, has a tool form, or a
//   relative spoke the frame protocol), or reports a non-empty tool list (its own or forged: the
//   worst a page gets is the code that it could have had by registering a tool); the worker then
//   brings the MAIN world's full code too (lib/page-files.js MAIN_FILES);
// - native: the document's `toolchange` (or, injected into an open tab, getTools() has some);
// - both: this document has an iframe given `tools` (the relay grants it, or asks Chromium).
// Until then it keeps the token a parent grants this frame (frame-policy.js), for the relay.
(() => {
  'use strict';

  const MARK = Symbol.for('webmcp-sidecar.isolated');
  if (/** @type {any} */ (globalThis)[MARK]) return;
  /** @type {any} */ (globalThis)[MARK] = true;
  // No secure context, no WebMCP (page/main/base.js): nothing to relay.
  if (!isSecureContext) return;

  /** What the relay takes from here when it comes (relay.js). */
  const stub = {
    grant: /** @type {string|null} */ (null),
    /** @type {string|null} polyfill: the MAIN world's latest `tools` message */
    last: null,
    relay: false, // the relay runs: it listens itself
  };
  /** @type {any} */ (globalThis).webmcpSidecarStub = stub;

  const PAGE_EVENT = 'webmcp-sidecar:page';
  const GRANT_KEY = 'webmcp-sidecar:tools-grant';
  const mc = /** @type {any} */ (document).modelContext;
  const top = window === window.top;
  /** @type {(() => void)[]} */
  const off = [];
  let asked = false;

  const install = () => {
    if (asked) return;
    asked = true;
    for (const f of off) f();
    // Polyfill: the MAIN world's stub puts out what its full code will need (page/main/surface.js).
    if (!mc) window.dispatchEvent(new CustomEvent('webmcp-sidecar:ext', { detail: '{"type":"install"}' }));
    // Polyfill: if the code will not come (the worker refused: too many frames of this tab asked;
    // or the extension went away), the MAIN stub settles what waits with an error.
    const refused = () => {
      if (!mc) window.dispatchEvent(new CustomEvent('webmcp-sidecar:ext', { detail: '{"type":"install_refused"}' }));
    };
    try {
      // Polyfill: the MAIN world's full code too (page/main/surface.js waits for it).
      // `doc` names this document where the browser gives no documentId (Firefox): a reload of
      // the same URL in the same frame is another document.
      const doc = crypto.randomUUID();
      const sent = /** @type {any} */ (chrome.runtime.sendMessage({ type: 'page_install', main: !mc, doc }));
      sent?.then?.((/** @type {any} */ r) => {
        if (!r?.ok) refused(); // this stub asks once: 'again' too means nothing comes
      }, refused);
    } catch {
      refused(); // the extension went away: this is an orphan
    }
  };
  /** @param {EventTarget} t @param {string} type @param {(ev: any) => void} f @param {boolean} [capture] */
  const on = (t, type, f, capture = false) => {
    t.addEventListener(type, f, capture);
    off.push(() => t.removeEventListener(type, f, capture));
  };

  // An iframe given `tools`: the relay tells it so (polyfill) or asks Chromium about its origin.
  const granting = () => {
    try {
      if (document.querySelector('iframe[allow*="tools"]')) install();
    } catch {
      /* no document element yet */
    }
  };
  // Native top frame: a same-origin iframe's tools are the top's too (Chromium lists them),
  // without a toolchange here; one look on that iframe load does for both.
  const nativeTop = mc && top;
  const framesTools = () => mc.getTools().then((/** @type {unknown[]} */ l) => l.length && install(), () => {});
  on(document, 'load', (ev) => {
    if (ev.target?.localName !== 'iframe') return;
    granting();
    if (nativeTop) framesTools();
  }, true);
  if (document.readyState === 'loading') on(document, 'DOMContentLoaded', granting);
  else granting();

  // A parent's grant of `tools` to this frame (frame-policy.js's listenForGrant, kept for the relay).
  if (!top) {
    addEventListener('message', (ev) => {
      if (ev.source !== window.parent) return;
      const d = ev.data;
      const t = d && typeof d === 'object' ? d[GRANT_KEY] : undefined;
      if (typeof t === 'string' && t.length <= 64) stub.grant = t;
    });
  }

  if (mc) {
    // Native: only the top frame reports and runs calls (relay.js); a sub-frame with tools
    // needs leaving.js all the same (its form's navigation is the top's call's).
    on(mc, 'toolchange', install);
    if (document.readyState !== 'loading') framesTools();
    return;
  }
  // Polyfill: the MAIN world's list (page/main/bridge.js), asked for when we come into an open
  // tab's MAIN world that was there before us. The latest one is kept for the relay, which
  // reads it first (it is what the MAIN world has, or what the page forged last).
  window.addEventListener(PAGE_EVENT, (ev) => {
    if (stub.relay) return;
    const d = /** @type {CustomEvent} */ (ev).detail;
    if (typeof d !== 'string') return;
    let msg;
    try {
      msg = JSON.parse(d);
    } catch {
      return;
    }
    // The MAIN world's stub asks for its full code on the page's first use of the API.
    if (msg?.type === 'install') return install();
    if (msg?.type !== 'tools' || !Array.isArray(msg.tools)) return;
    stub.last = d;
    if (msg.tools.length) install();
  });
  if (document.readyState !== 'loading') {
    window.dispatchEvent(new CustomEvent('webmcp-sidecar:ext', { detail: JSON.stringify({ type: 'sync' }) }));
  }
})();
