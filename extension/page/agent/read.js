// WebMCP Sidecar, page agent: reading the page's text, and waiting for text or an element.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { st, collapse, lookup } = P;

  function text(params) {
    /** @type {Element|null} */
    let root = null;
    if (params.ref) {
      const found = lookup(params.ref);
      if ('error' in found) return found;
      root = found.el;
    }
    if (!root) {
      // The main content when the page marks it and it holds real text, else the whole body.
      // (`[role="main"]` may be an SVG element: no innerText, so it does not count.)
      const candidates = [...document.querySelectorAll('main, [role="main"], article')];
      root = candidates.find((c) => c instanceof HTMLElement && c.innerText.trim().length >= 200)
        ?? document.body ?? document.documentElement;
    }
    return { url: location.href, title: document.title, text: (root instanceof HTMLElement ? root.innerText : root.textContent) ?? '' };
  }

  function waitFor(params) {
    const timeout = Math.max(0, Number(params.timeoutMs) || 0);
    const gone = params.gone === true;
    const needle = typeof params.text === 'string' ? collapse(params.text).toLowerCase() : null;
    /** @type {Element|null} */
    let el = null;
    if (params.ref) {
      const found = lookup(params.ref);
      if ('error' in found) {
        if (gone && found.error.code === 'not_found' && st.started) return { ok: true, waitedMs: 0 };
        return found;
      }
      el = found.el;
    }
    const met = () => {
      if (needle !== null) {
        const has = collapse(document.body?.innerText ?? '').toLowerCase().includes(needle);
        return gone ? !has : has;
      }
      const visible = !!el && el.isConnected && el.checkVisibility({ visibilityProperty: true });
      return gone ? !visible : visible;
    };
    const t0 = performance.now();
    if (met()) return { ok: true, waitedMs: 0 };
    return new Promise((resolve) => {
      let timer = 0;
      let queued = false;
      const done = (ok) => {
        obs.disconnect();
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ ok, waitedMs: Math.round(performance.now() - t0) });
      };
      const check = () => {
        queued = false;
        if (met()) done(true);
      };
      const obs = new MutationObserver(() => {
        if (!queued) {
          queued = true;
          setTimeout(check, 30);
        }
      });
      obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
      // Style changes that no mutation shows (CSS transitions, :hover) are caught by this.
      const poll = setInterval(check, 250);
      timer = setTimeout(() => done(false), timeout);
    });
  }

  Object.assign(P, { text, waitFor });
})();
