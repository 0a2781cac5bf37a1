// chrome.debugger, attached on demand and detached when idle: while attached, Chrome shows a
// "being debugged" bar on the tab, so we hold the debugger only while acting (mouse, keyboard,
// screenshots, file upload) and let go ~10 s after the last command.

import { ToolError } from './page-calls.js';
import { explainPageError } from '../lib/tab-urls.js';
import { browserLabel } from '../lib/browser.js';
import { browserName, noDebuggerText } from '../lib/browser-support.js';

const PROTOCOL = '1.3';
export const IDLE_DETACH_MS = 10_000;

/**
 * @typedef {{attached: Promise<void>|null, ready: boolean, busy: number, mainFrame: string,
 *   timer: ReturnType<typeof setTimeout>|null, listeners: Set<(method: string, params: any) => void>}} TabDebugger
 */

export class Debuggers {
  constructor({ idleMs = IDLE_DETACH_MS } = {}) {
    this.idleMs = idleMs;
    /** @type {Map<number, TabDebugger>} */
    this.tabs = new Map();
    /** Detaches under way: a new attach to the tab waits for its detach to finish. */
    /** @type {Map<number, Promise<void>>} */
    this.detaching = new Map();
    // Optional-chained: a browser (or test double) without the debugger API still loads the worker.
    chrome.debugger?.onEvent.addListener((source, method, params) => {
      const d = source.tabId !== undefined ? this.tabs.get(source.tabId) : undefined;
      if (d) for (const fn of d.listeners) fn(method, params);
    });
    chrome.debugger?.onDetach.addListener((source) => {
      // The tab closed, or the user pressed Cancel on the bar: attach again on next use.
      if (source.tabId !== undefined) this._forget(source.tabId);
    });
  }

  /** @param {number} tabId */
  _entry(tabId) {
    let d = this.tabs.get(tabId);
    if (!d) {
      d = { attached: null, ready: false, busy: 0, mainFrame: '', timer: null, listeners: new Set() };
      this.tabs.set(tabId, d);
    }
    return d;
  }

  _forget(tabId) {
    const d = this.tabs.get(tabId);
    if (!d) return;
    if (d.timer) clearTimeout(d.timer);
    d.attached = null;
    d.ready = false;
  }

  /** Attaches (once; concurrent callers share the attach) and enables the Page domain's events. */
  async attach(tabId) {
    const d = this._entry(tabId);
    if (!d.attached) {
      d.attached = (async () => {
        await this.detaching.get(tabId);
        try {
          await chrome.debugger.attach({ tabId }, PROTOCOL);
        } catch (e) {
          // Attached already (e.g. a worker restart left it on): use it.
          if (!/already attached/i.test(String(e?.message ?? e)) || /Another debugger/i.test(String(e?.message ?? e))) throw e;
        }
        await chrome.debugger.sendCommand({ tabId }, 'Page.enable', {});
        const tree = /** @type {any} */ (await chrome.debugger.sendCommand({ tabId }, 'Page.getFrameTree', {}));
        d.mainFrame = tree?.frameTree?.frame?.id ?? '';
        d.ready = true;
      })();
      d.attached.catch(() => {
        if (this.tabs.get(tabId) === d) d.attached = null;
      });
    }
    return d.attached;
  }

  /**
   * Runs `fn` with the debugger held (no idle detach meanwhile).
   * @template T
   * @param {number} tabId
   * @param {(send: (method: string, params?: object) => Promise<any>) => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async use(tabId, fn) {
    // Firefox has none: whatever comes here (a skill's trusted step) says so before acting.
    if (!chrome.debugger) throw new ToolError('bad_request', noDebuggerText('This action', browserName(browserLabel(globalThis.navigator?.userAgent ?? ''))));
    const d = this._entry(tabId);
    d.busy++;
    if (d.timer) clearTimeout(d.timer);
    d.timer = null;
    try {
      try {
        await this.attach(tabId);
      } catch (e) {
        throw await failure(tabId, String(e?.message ?? e));
      }
      return await fn(async (method, params = {}) => {
        try {
          return await chrome.debugger.sendCommand({ tabId }, method, params);
        } catch (e) {
          throw await failure(tabId, String(e?.message ?? e), method);
        }
      });
    } finally {
      d.busy--;
      if (d.busy === 0 && this.tabs.get(tabId) === d) {
        d.timer = setTimeout(() => this.detach(tabId), this.idleMs);
      }
    }
  }

  /**
   * Listens to the tab's CDP events while `fn` runs.
   * @param {number} tabId @param {(method: string, params: any) => void} listener
   */
  listen(tabId, listener) {
    const d = this._entry(tabId);
    d.listeners.add(listener);
    return () => d.listeners.delete(listener);
  }

  async detach(tabId) {
    const d = this.tabs.get(tabId);
    if (!d || d.busy > 0) return;
    this.tabs.delete(tabId);
    if (d.timer) clearTimeout(d.timer);
    if (!d.attached) return;
    const attached = d.attached;
    const done = (async () => {
      try {
        await attached;
        await chrome.debugger.detach({ tabId });
      } catch {
        // never attached, or already gone with the tab
      }
    })();
    this.detaching.set(tabId, done);
    await done;
    if (this.detaching.get(tabId) === done) this.detaching.delete(tabId);
  }

  /** The tab's top frame id (for telling its navigations from its iframes'). */
  mainFrame(tabId) {
    return this.tabs.get(tabId)?.mainFrame ?? '';
  }

  /** Tabs we hold the debugger of now (for status and tests). */
  attachedTabs() {
    return [...this.tabs.entries()].filter(([, d]) => d.ready).map(([id]) => id);
  }

  tabClosed(tabId) {
    const d = this.tabs.get(tabId);
    if (d?.timer) clearTimeout(d.timer);
    this.tabs.delete(tabId);
  }
}

/** A chrome.debugger error as a ToolError in plain words. */
async function failure(tabId, message, method = '') {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) return new ToolError('tab_closed', 'The tab was closed while acting on it.');
  if (/Detached while handling|Debugger is not attached|Cannot find context/i.test(message)) {
    return new ToolError('page_error', `The page changed under the action (it navigated or reloaded) during ${method || 'it'}. Take a new snapshot and try again.`);
  }
  if (!method) return new ToolError('bad_request', explainPageError(message, tab.url ?? tab.pendingUrl));
  return new ToolError('page_error', `The browser refused ${method}: ${message}`);
}
