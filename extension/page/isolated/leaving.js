// WebMCP Sidecar, ISOLATED world: calls whose document is leaving. A declarative form tool that
// submits to another document gives no answer of its own; the relay then says `navigating` and
// background/site-calls.js follows the call to the next document (docs/PAGE_CODE.md, "Forms
// that navigate"). Adds `webmcpSidecar.leaving`; relay.js uses it.
//
// Native mode runs every call from the top frame (Chromium's executeTool), also for a form in a
// same-origin iframe, whose navigation the top frame's Navigation API does not see: each frame
// tells its top frame's `watch` of its own, and the top keeps which frame it was (by its path of
// child indices, which the worker can find again in the frame's next document) for the worker
// to ask (`frameOf`).
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  if (!ns || ns.leaving) return;

  /** @type {any} */
  const navApi = /** @type {any} */ (globalThis).navigation;
  /** A navigation event that leaves this document (not same-document, not a download). */
  const leavesDocument = (/** @type {any} */ ev) => {
    try {
      return !ev.hashChange && ev.downloadRequest === null && !ev.destination?.sameDocument;
    } catch {
      return false;
    }
  };

  /** @type {((frame: Window, ev: any) => void)|null} this frame's watch, when it runs calls */
  let onFrameNavigate = null;
  /** @type {Map<string, number[]>} native, the top frame: the frame each call's form navigated */
  const frames = new Map();

  /**
   * Where `w` sits under the top frame: the index of each frame in its parent's `frames`, from
   * the top down. Reads only what a cross-origin WindowProxy allows (parent, frames, length).
   * @param {Window} w @returns {number[]|null}
   */
  function pathOf(w) {
    const path = [];
    try {
      for (let cur = w; cur !== cur.top; cur = /** @type {Window} */ (cur.parent)) {
        const up = cur.parent;
        let i = 0;
        while (i < up.frames.length && up.frames[i] !== cur) i++;
        if (i === up.frames.length || path.length >= 32) return null;
        path.unshift(i);
      }
    } catch {
      return null;
    }
    return path;
  }

  // A sub-frame of a native page: its navigations go to the top frame's watch (same origin only:
  // another origin's `webmcpSidecar` is out of reach, and its forms are no top-frame tools).
  /** @type {any} */
  const win = globalThis;
  if (win.top && win.top !== win && win.document?.modelContext) {
    navApi?.addEventListener('navigate', (/** @type {any} */ ev) => {
      if (!leavesDocument(ev)) return;
      try {
        win.top.webmcpSidecar?.leaving?.frameNavigating(win, ev);
      } catch {
        /* the top frame is another origin's */
      }
    });
  }

  /**
   * Watches the Navigation API (which this world sees too) for a navigation that leaves this
   * document while calls run (a GET form's has no formData): the first such navigation is the
   * call's. When the document goes with calls still waiting on it, each is reported leaving.
   * @param {() => Iterable<any>} calls the calls in flight
   * @param {(msg: any) => void} send to the worker
   * @returns {(call: any) => boolean} whether the call's submission is really leaving (not
   *   cancelled or intercepted by the page)
   */
  function watch(calls, send) {
    const mark = (/** @type {any} */ ev, /** @type {Window|null} */ frame) => {
      for (const call of calls()) {
        if (call.done || call.nav) continue;
        // A sub-frame's navigation counts only for the call of a tool of that frame (native
        // getTools() names each tool's window): an unrelated frame's is not the call's.
        if (frame && call.window && call.window !== frame) continue;
        call.nav = ev;
        if (!frame) continue;
        const path = pathOf(frame);
        if (!path) continue;
        frames.set(call.id, path);
        if (frames.size > 64) frames.delete(/** @type {string} */ (frames.keys().next().value)); // the oldest
      }
    };
    navApi?.addEventListener('navigate', (/** @type {any} */ ev) => {
      if (leavesDocument(ev)) mark(ev, null);
    });
    onFrameNavigate = (frame, ev) => mark(ev, frame);
    const leaving = (/** @type {any} */ call) => !!call.nav && !call.nav.defaultPrevented && !navApi?.transition;
    addEventListener('pagehide', () => {
      for (const call of calls()) if (!call.done && leaving(call)) send({ type: 'result', id: call.id, navigating: true });
    });
    return leaving;
  }

  ns.leaving = Object.freeze({
    watch,
    /** A same-origin sub-frame's navigation (see the header). @param {Window} frame @param {any} ev */
    frameNavigating(frame, ev) {
      onFrameNavigate?.(frame, ev);
    },
    /** For the worker: the path of the sub-frame a call's form navigated, if it was one. @param {string} id */
    frameOf: (id) => frames.get(id) ?? null,
  });
})();
