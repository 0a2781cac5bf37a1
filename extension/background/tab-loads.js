// Page loads per tab, from chrome.tabs.onUpdated: lets the browser tools wait for a navigation
// they started (navigate, back, a click on a link) to finish, without the debugger.

/**
 * @typedef {{loading: boolean, starts: number, loads: number, url: string, loadedAt: number}} TabLoad
 *   starts / loads: how many navigations began / finished so far; loadedAt: when the last
 *   finished (Date.now(); 0: none seen)
 */

export class TabLoads {
  constructor() {
    /** @type {Map<number, TabLoad>} */
    this.tabs = new Map();
    /** @type {Set<() => void>} */
    this._waiters = new Set();
    chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
      if (!change.status && !change.url) return;
      const t = this.get(tabId);
      if (change.status === 'loading' && !t.loading) {
        t.loading = true;
        t.starts++;
      } else if (change.status === 'complete' && t.loading) {
        t.loading = false;
        t.loads++;
        t.loadedAt = Date.now();
      }
      if (tab?.url) t.url = tab.url;
      for (const fn of [...this._waiters]) fn();
    });
    chrome.tabs.onRemoved.addListener((tabId) => {
      this.tabs.delete(tabId);
      for (const fn of [...this._waiters]) fn();
    });
  }

  /** @param {number} tabId */
  get(tabId) {
    let t = this.tabs.get(tabId);
    if (!t) {
      t = { loading: false, starts: 0, loads: 0, url: '', loadedAt: 0 };
      this.tabs.set(tabId, t);
    }
    return t;
  }

  /** Calls `fn` after every change of a tab's loads (a tab loading, loaded or closed). @param {() => void} fn */
  listen(fn) {
    this._waiters.add(fn);
  }

  /** A mark to wait from: navigations that begin after it count. */
  mark(tabId) {
    const t = this.get(tabId);
    return { starts: t.starts, loads: t.loads };
  }

  /** Waits until the tab is not loading (a page being replaced has its successor in place). */
  waitIdle(tabId, timeoutMs) {
    return this.waitLoaded(tabId, { starts: -1, loads: 0 }, { timeoutMs });
  }

  /**
   * Waits until a navigation that began after `mark` has finished loading.
   * @param {number} tabId
   * @param {{starts: number, loads: number}} mark
   * @param {{timeoutMs: number, startWithinMs?: number}} opts
   *   startWithinMs: give up early when no navigation has begun by then
   * @returns {Promise<'loaded'|'no_navigation'|'timeout'|'closed'>}
   */
  waitLoaded(tabId, mark, { timeoutMs, startWithinMs = Infinity }) {
    return new Promise((resolve) => {
      const t0 = Date.now();
      /** @type {ReturnType<typeof setTimeout>|null} */
      let timer = null;
      /** @type {ReturnType<typeof setTimeout>|null} */
      let startTimer = null;
      const finish = (how) => {
        this._waiters.delete(check);
        if (timer) clearTimeout(timer);
        if (startTimer) clearTimeout(startTimer);
        resolve(how);
      };
      const check = () => {
        const t = this.tabs.get(tabId);
        if (!t) return finish('closed');
        if (t.starts > mark.starts && !t.loading) return finish('loaded');
        if (Date.now() - t0 >= timeoutMs) return finish('timeout');
      };
      this._waiters.add(check);
      timer = setTimeout(() => finish('timeout'), timeoutMs);
      if (Number.isFinite(startWithinMs)) {
        startTimer = setTimeout(() => {
          const t = this.tabs.get(tabId);
          if (t && t.starts === mark.starts) finish('no_navigation');
        }, startWithinMs);
      }
      chrome.tabs.get(tabId).then(() => check(), () => finish('closed'));
    });
  }
}
