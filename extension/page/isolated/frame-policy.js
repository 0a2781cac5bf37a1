// WebMCP Sidecar, ISOLATED world: which of this document's iframes may expose tools to the page.
// The spec lets a cross-origin frame's tool reach the top document only when the frame has the
// `tools` permission (Permissions Policy, granted by the parent with `allow="tools"`) and the
// tool's `exposedTo` names the top origin. Chromium with WebMCP checks the permission itself; a
// polyfill cannot (Chromium without the flag does not know the feature, so the frame's own
// `document.featurePolicy` says nothing), so the parent's content script reads its iframes'
// `allow` attributes and the worker checks each frame's real origin against them
// (docs/WEBMCP_WPT.md, "Polyfill vs Chromium"). A content script cannot name an iframe's
// frame id (`runtime.getFrameId` is missing in Chromium 156), so each granted iframe gets a
// random token, posted to its window for the granted origins only (postMessage's targetOrigin);
// its content script hands the token to the worker, which matches it to the parent's report.
// Also the origins native mode asks getTools({fromOrigins}) about.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  const MAX_FRAMES = 64;
  const MAX_ORIGINS = 16;
  /** The key of the message that carries an iframe's token to its content script. */
  const GRANT_KEY = 'webmcp-sidecar:tools-grant';
  /** @type {WeakMap<HTMLIFrameElement, string>} */
  const tokens = new WeakMap();

  /** @param {string} u @param {string} [base] @returns {string|null} */
  const originOf = (u, base) => {
    try {
      const o = new URL(u, base).origin;
      return o === 'null' ? null : o;
    } catch {
      return null;
    }
  };

  /**
   * The origins an iframe's `allow` attribute gives `tools` to ('*' for any), as Permissions
   * Policy reads it: `tools` alone means `tools 'src'` (the origin of the iframe's src).
   * @param {string} allow @param {string} src the iframe's src, resolved @param {string} self
   * @returns {string[]}
   */
  function toolsOrigins(allow, src, self) {
    for (const part of allow.split(';')) {
      const tokens = part.trim().split(/\s+/).filter(Boolean);
      if (tokens[0] !== 'tools') continue;
      const values = tokens.length > 1 ? tokens.slice(1) : ["'src'"];
      /** @type {string[]} */
      const out = [];
      for (const v of values) {
        /** @type {string|null} */
        let o = null;
        if (v === '*') o = '*';
        else if (v === "'src'") o = !src || src === 'about:blank' || src.startsWith('about:') ? self : originOf(src);
        else if (v === "'self'") o = self;
        else if (v !== "'none'") o = originOf(v);
        if (o && !out.includes(o)) out.push(o);
        if (out.length >= MAX_ORIGINS) break;
      }
      return out;
    }
    return [];
  }

  /**
   * This document's iframes that were given `tools`: each one's token, the origins it grants,
   * and its src's origin.
   * @returns {{token: string, origins: string[], src: string|null}[]}
   */
  function allowedFrames() {
    const out = [];
    const self = globalThis.origin;
    let list;
    try {
      list = document.querySelectorAll('iframe[allow]');
    } catch {
      return out;
    }
    for (const el of list) {
      if (out.length >= MAX_FRAMES) break;
      const f = /** @type {HTMLIFrameElement} */ (el);
      const origins = toolsOrigins(f.getAttribute('allow') || '', f.src, self);
      if (!origins.length) continue;
      let token = tokens.get(f);
      if (!token) {
        token = crypto.randomUUID();
        tokens.set(f, token);
      }
      out.push({ token, origins, src: f.src ? originOf(f.src) : null });
    }
    return out;
  }

  /**
   * Tells each granted iframe's current document its token, for the granted origins only: a
   * document of another origin gets nothing (postMessage drops it).
   */
  function postGrants() {
    const self = globalThis.origin;
    for (const el of document.querySelectorAll('iframe[allow]')) {
      const f = /** @type {HTMLIFrameElement} */ (el);
      const token = tokens.get(f);
      if (!token || !f.contentWindow) continue;
      for (const o of toolsOrigins(f.getAttribute('allow') || '', f.src, self)) {
        try {
          f.contentWindow.postMessage({ [GRANT_KEY]: token }, o);
        } catch {
          /* not a valid target origin */
        }
      }
    }
  }

  /**
   * The token this document was given by its parent, if any: calls `onGrant` with it.
   * @param {(token: string) => void} onGrant
   */
  function listenForGrant(onGrant) {
    addEventListener('message', (ev) => {
      if (ev.source !== window.parent || window.parent === window) return;
      const d = ev.data;
      const t = d && typeof d === 'object' ? d[GRANT_KEY] : undefined;
      if (typeof t === 'string' && t.length <= 64) onGrant(t);
    });
  }

  /**
   * Calls `onChange` when the iframes or their `allow` may have changed (an iframe added,
   * removed, given another src or allow, or a frame loaded).
   * @param {() => void} onChange
   */
  function watch(onChange) {
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        onChange();
      }, 0);
    };
    // An iframe's load: a frame of it may have registered (load does not bubble; capture sees it).
    document.addEventListener('load', (ev) => {
      if (/** @type {any} */ (ev.target)?.localName === 'iframe') later();
    }, true);
    const start = () => {
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.type === 'attributes' || [...r.addedNodes, ...r.removedNodes].some((n) => n.nodeType === 1 &&
            (/** @type {Element} */ (n).localName === 'iframe' || /** @type {Element} */ (n).querySelector?.('iframe')))) {
            return later();
          }
        }
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['allow', 'src'] });
    };
    // Not before DOMContentLoaded: an observer of the whole tree while the parser builds it
    // would see every node of every page (and make each one's wrapper in this world), though
    // almost no page has tools. Iframes the parser adds are caught by their `load` above; one
    // look at DOMContentLoaded catches those still loading.
    const ready = () => {
      start();
      later();
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready, { once: true });
    else ready();
  }

  /** Native: the origins to ask getTools({fromOrigins}) about, from the iframes given `tools`
   * (Chromium checks the permission and exposedTo itself; a name it cannot use is left out,
   * as one insecure origin would fail the whole call). */
  function exposingOrigins() {
    const out = new Set();
    for (const f of allowedFrames()) {
      for (const o of f.origins) {
        const v = o === '*' ? f.src : o;
        if (v && v !== location.origin && /^(https:|http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|$))/.test(v)) out.add(v);
      }
    }
    return [...out].slice(0, 16);
  }

  ns.framePolicy = Object.freeze({ toolsOrigins, allowedFrames, postGrants, listenForGrant, watch, exposingOrigins });
})();
