// Bringing a called tab to the front. The active tab per window and the focused window are
// followed from browser events, so back-to-back calls to one tab cost the browser nothing.

export class TabFocus {
  /** @param {typeof globalThis.chrome} chrome */
  constructor(chrome) {
    this.chrome = chrome;
    /** @type {Map<number|undefined, number>} window id (undefined: not known) -> its active tab */
    this.activeTabs = new Map();
    /** @type {number|undefined} */
    this.focusedWindow = undefined;
  }

  /** Brings the tab to the front, skipping what is already so (events correct us if the user
   * moves elsewhere). @param {number} tabId @param {number|undefined} windowId */
  bring(tabId, windowId) {
    if (this.activeTabs.get(windowId) !== tabId) {
      this.activeTabs.set(windowId, tabId);
      this.chrome.tabs.update(tabId, { active: true }).catch(() => this.activeTabs.delete(windowId));
    }
    if (windowId !== undefined && this.focusedWindow !== windowId) {
      this.focusedWindow = windowId;
      this.chrome.windows.update(windowId, { focused: true }).catch(() => {
        if (this.focusedWindow === windowId) this.focusedWindow = undefined;
      });
    }
  }

  /** chrome.tabs.onActivated @param {{tabId: number, windowId: number}} info */
  tabActivated({ tabId, windowId }) {
    this.activeTabs.set(windowId, tabId);
  }

  /** chrome.windows.onFocusChanged @param {number} windowId */
  windowFocused(windowId) {
    this.focusedWindow = windowId;
  }

  /** chrome.windows.onRemoved @param {number} windowId */
  windowRemoved(windowId) {
    this.activeTabs.delete(windowId);
  }
}
