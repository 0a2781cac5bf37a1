// WebMCP Sidecar, MAIN world: the polyfill across same-origin frames. In Chromium 156 every
// document of a page sees the tools of all its same-origin frames: getTools() in any of them
// lists them all (sorted by name), executeTool() runs a tool in the frame that registered it
// (whose document.modelContext gets toolactivated), a change in one frame fires toolchange in
// all, and a call pending in a frame that goes away rejects; a frame of this origin under a frame
// of another counts too (one registry per page). Each polyfilled frame's stub (surface.js)
// publishes a hook on its window for its same-origin relatives, from document_start; a
// cross-origin window's hook cannot be read. This file is injected on first use.
// The hook is visible to the page (it can only do what the page's own API does).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const { W, rApply } = ns;
  const HOOK = Symbol.for('webmcp-sidecar.frame-registry');

  /**
   * @typedef {{
   *   list: () => any[],
   *   run: (name: string, input: unknown, signal: AbortSignal|undefined,
   *         settle: (kind: 'ok'|'error'|'abort'|'gone', v: unknown) => void) => boolean,
   *   notify: () => void,
   *   origin: string,
   * }} Hook
   */

  /** @param {any} win @returns {Hook|undefined} */
  function hookOf(win) {
    try {
      const h = win[HOOK];
      return h && typeof h.list === 'function' ? h : undefined;
    } catch {
      return undefined; // cross-origin
    }
  }

  /** The same-origin frames of this page, depth first from the top, each with its window and
   *  hook. Chromium keeps one registry per page, so a frame of this origin under a frame of
   *  another one counts too: the walk goes through every frame (a cross-origin window still
   *  gives its `length` and its frames) and keeps those whose hook this document can read.
   *  @returns {{win: any, hook: Hook}[]} */
  function tree() {
    let root = W;
    try {
      root = W.top ?? W;
    } catch {
      /* stop at what we can reach */
    }
    /** @type {{win: any, hook: Hook}[]} */
    const out = [];
    let seen = 0;
    /** @param {any} win @param {number} depth */
    const walk = (win, depth) => {
      if (depth > 32 || ++seen > 256) return;
      const hook = hookOf(win);
      if (hook) out[out.length] = { win, hook };
      let n = 0;
      try {
        n = win.length;
      } catch {
        n = 0;
      }
      for (let i = 0; i < n && i < 256; i++) {
        let child;
        try {
          child = win[i];
        } catch {
          child = undefined;
        }
        if (child) walk(child, depth + 1);
      }
    };
    walk(root, 0);
    return out;
  }

  /** The hook of `win` if it is a same-origin frame of this page. @param {any} win */
  function hookFor(win) {
    for (const f of tree()) if (f.win === win) return f.hook;
    return undefined;
  }

  /** Tells every other frame of the tree that the list changed. */
  function notifyOthers() {
    for (const f of tree()) {
      if (f.win === W) continue;
      try {
        rApply(f.hook.notify, undefined, []);
      } catch {
        /* a frame going away */
      }
    }
  }

  Object.assign(ns, { tree, hookFor, notifyOthers });
})();
