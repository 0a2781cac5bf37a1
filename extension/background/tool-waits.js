// Calls for a tool that a site's tab is about to offer again: a call that arrives while the tab
// loads a new page (a skill whose last step navigated, a form that submitted), while the new
// page's skills are being health-checked, or just after the load, before the page's own tools
// have registered. Rather than "no such tool", such a call waits, bounded, for the site to offer
// it; a call for a tool the site does not have, on a tab at rest, is answered at once.

/** A call waits for its tool this long at most (less when its own timeout is shorter). */
export const TOOL_WAIT_MS = 10_000;
/** After a load, how long a page may take to register its own tools (scripts, late renders). */
export const PAGE_TOOLS_GRACE_MS = 3_000;

/**
 * How long the site's tabs may still take to settle: 0 when settled, Infinity while a tab loads
 * or has its skills looked at (an event ends that), else what is left of a recent load's grace.
 * @param {number[]} tabIds the tabs that speak for the site
 * @param {(tabId: number) => {loading: boolean, loadedAt: number}|undefined} loadOf
 * @param {(tabId: number) => boolean} looking whether the tab's skills are being evaluated
 * @param {number} now
 */
export function settleMs(tabIds, loadOf, looking, now) {
  let ms = 0;
  for (const tabId of tabIds) {
    const t = loadOf(tabId);
    if (t?.loading || looking(tabId)) return Infinity;
    if (t?.loadedAt) ms = Math.max(ms, t.loadedAt + PAGE_TOOLS_GRACE_MS - now);
  }
  return ms;
}

/**
 * @typedef {import('../lib/registry.js').Route|import('../lib/registry.js').NoRoute} RouteOrNot
 */

export class ToolWaits {
  /**
   * @param {{
   *   route: (site: string, tool: string) => RouteOrNot,
   *   settleMs: (site: string) => number,
   * }} opts route: the registry's; settleMs: as settleMs() above, for the site's tabs
   */
  constructor({ route, settleMs: settle }) {
    this.route = route;
    this.settle = settle;
    /** @type {Map<string, {check: () => void, done: (r: RouteOrNot|null) => void}>} by call id */
    this.waiting = new Map();
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.wakeTimer = null;
  }

  /** Whether a call for a tool `site` lacks now should wait for it. @param {string} site */
  shouldWait(site) {
    return this.settle(site) > 0;
  }

  /**
   * Waits until `site` offers `tool` (its route), its tabs have settled without it, or `maxMs`
   * has passed (the last NoRoute); null when cancelled or dropped.
   * @param {string} id @param {string} site @param {string} tool @param {number} maxMs
   * @returns {Promise<RouteOrNot|null>}
   */
  wait(id, site, tool, maxMs) {
    return new Promise((resolve) => {
      const deadline = Date.now() + Math.min(maxMs, TOOL_WAIT_MS);
      /** @type {ReturnType<typeof setTimeout>|null} */
      let timer = null;
      const done = (/** @type {RouteOrNot|null} */ r) => {
        if (timer) clearTimeout(timer);
        this.waiting.delete(id);
        resolve(r);
      };
      const check = () => {
        if (timer) clearTimeout(timer);
        timer = null;
        const route = this.route(site, tool);
        const left = deadline - Date.now();
        const ms = 'reason' in route && route.reason === 'not_found' ? this.settle(site) : 0;
        if (ms <= 0 || left <= 0) return done(route);
        // Events wake us (wake()); a grace that ends by time alone, or the deadline, by a timer.
        timer = setTimeout(check, Math.min(ms, left));
      };
      this.waiting.set(id, { check, done });
      check();
    });
  }

  /** Something changed (the registry, a tab's load, a skills look): the waiting calls look again. */
  wake() {
    // After the current event's other listeners (a tab's load state is updated by its own).
    if (!this.waiting.size || this.wakeTimer !== null) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      for (const w of [...this.waiting.values()]) w.check();
    }, 0);
  }

  /** @param {string} id @returns {boolean} whether the call was waiting (it gets null) */
  cancel(id) {
    const w = this.waiting.get(id);
    if (!w) return false;
    w.done(null);
    return true;
  }

  /** Every waiting call ends with null (the host went away; a test drops the worker). */
  dropAll() {
    for (const w of [...this.waiting.values()]) w.done(null);
    if (this.wakeTimer !== null) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
  }
}
