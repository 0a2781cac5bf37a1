// WebMCP Sidecar, ISOLATED world: the frame lane (lib/frame-lanes.js, docs/PROTOCOL.md "The
// frame lane"). A MessageChannel to the service worker for this frame's calls and results, set
// up beside the runtime port: one end goes to the worker through a hidden extension frame
// (page/bridge/lane.html) with a random nonce, the nonce goes on the runtime port, and the
// worker pairs the two and says `lane_ready` on the channel; then the frame goes (or after
// GIVE_UP_MS: it could not load, or the worker never paired it). Until then, and whenever the lane
// cannot be made (a page whose CSP or sandbox keeps the frame out, a document without a root),
// everything stays on the runtime port. Adds `webmcpSidecar.lane`.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  if (!ns || ns.lane) return;

  const BRIDGE = 'page/bridge/lane.html';
  const GIVE_UP_MS = 2_000; // the frame goes even if the lane never comes up

  /** 128 random bits as 32 hex digits (lib/frame-lanes.js LANE_NONCE). */
  function nonce() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  /**
   * Starts a lane. `claim` sends the nonce on the runtime port; `onMessage` gets what the
   * worker sends on the lane once it is up.
   * @param {{claim: (nonce: string) => void, onMessage: (msg: any) => void}} o
   * @returns {{post: (msg: unknown) => boolean, close: () => void}}
   *   post: false when the lane is not up (send on the runtime port instead)
   */
  function open({ claim, onMessage }) {
    let ready = false;
    let closed = false;
    const root = document.documentElement;
    // The bridge hands the port to a service worker: Firefox runs our background as an event
    // page, which would never take it (the frame would only sit in the page for GIVE_UP_MS).
    const serviceWorker = chrome.runtime.getURL('').startsWith('chrome-extension:');
    if (!root || !serviceWorker) return { post: () => false, close: () => {} };
    const chan = new MessageChannel();
    const id = nonce();
    const frame = document.createElement('iframe');
    /** Events the page made up (a `load` before the bridge is in, a `pagehide`) do nothing. */
    const onPageHide = (/** @type {Event} */ ev) => ev.isTrusted && done();
    const done = () => {
      clearTimeout(giveUp);
      removeEventListener('pagehide', onPageHide);
      frame.remove();
    };
    const giveUp = setTimeout(done, GIVE_UP_MS);
    // A page left while the frame is still there would not go into the back/forward cache.
    addEventListener('pagehide', onPageHide);
    chan.port1.onmessage = (ev) => {
      if (closed) return;
      if (!ready) {
        if (ev.data?.type !== 'lane_ready') return;
        ready = true;
        done();
        return;
      }
      onMessage(ev.data);
    };
    const url = chrome.runtime.getURL(BRIDGE);
    frame.src = url;
    // Hidden whatever the page's CSS says of iframes (an inline !important wins over its rules).
    frame.style.setProperty('display', 'none', 'important');
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    // To the extension's origin only: a page that swapped the frame's document gets nothing.
    // `url` is the session's dynamic one (manifest: use_dynamic_url, so a page cannot load the
    // bridge by our fixed id to detect us); the document it loads has the fixed origin.
    frame.addEventListener('load', function post(ev) {
      if (!ev.isTrusted) return;
      frame.removeEventListener('load', post);
      frame.contentWindow?.postMessage({ lane: id }, `chrome-extension://${chrome.runtime.id}`, [chan.port2]);
    });
    // The nonce first: the worker closes a port whose claim it has not seen.
    claim(id);
    root.append(frame);
    return {
      post(msg) {
        if (!ready || closed) return false;
        chan.port1.postMessage(msg);
        return true;
      },
      close() {
        closed = true;
        done();
        chan.port1.close();
      },
    };
  }

  ns.lane = Object.freeze({ open });
})();
