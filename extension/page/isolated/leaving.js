// WebMCP Sidecar, ISOLATED world: calls whose document is leaving. A declarative form tool that
// submits to another document gives no answer of its own; the relay then says `navigating` and
// background/site-calls.js follows the call to the next document (docs/ARCHITECTURE.md, "Forms
// that navigate"). Adds `webmcpSidecar.leaving`; relay.js uses it.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  if (!ns || ns.leaving) return;

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
    /** @type {any} */
    const navApi = /** @type {any} */ (globalThis).navigation;
    navApi?.addEventListener('navigate', (/** @type {any} */ ev) => {
      try {
        if (ev.hashChange || ev.downloadRequest !== null || ev.destination?.sameDocument) return;
      } catch {
        return;
      }
      for (const call of calls()) if (!call.done && !call.nav) call.nav = ev;
    });
    const leaving = (call) => !!call.nav && !call.nav.defaultPrevented && !navApi?.transition;
    addEventListener('pagehide', () => {
      for (const call of calls()) if (!call.done && leaving(call)) send({ type: 'result', id: call.id, navigating: true });
    });
    return leaving;
  }

  ns.leaving = Object.freeze({ watch });
})();
