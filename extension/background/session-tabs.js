// The chrome.* side of MCP sessions' tabs: each session's tabs live in a tab group named after
// its MCP client; tabs the user closes, Chrome swaps, or a session's page opens are kept track
// of; the host hears `session_tabs` whenever a session's set of tabs or current tab changes, so
// the MCP entry can offer the page tools only once there is a page.

import { SessionTable } from '../lib/sessions.js';

const noop = () => {};
const OPENED_BY_ACTION_MS = 5_000;

export class SessionTabs {
  /**
   * @param {{send: (msg: any) => boolean, onChange?: () => void}} opts
   *   send: to the host; onChange: anything a UI should redraw for
   */
  constructor({ send, onChange = noop }) {
    this.table = new SessionTable();
    this.send = send;
    this.onChange = onChange;
    /** Last known URL and title of session tabs, for "your tab ... was closed". */
    /** @type {Map<number, {url: string, title: string}>} */
    this.info = new Map();
    /** When a session last clicked or typed in a tab: tabs that tab opens soon after are its. */
    /** @type {Map<number, number>} */
    this.acted = new Map();

    chrome.tabs.onRemoved.addListener((tabId) => {
      const s = this.table.removeTab(tabId, this.info.get(tabId));
      this.info.delete(tabId);
      this.acted.delete(tabId);
      if (s) this.notify(s.id);
    });
    chrome.tabs.onReplaced.addListener((added, removed) => {
      const s = this.table.replaceTab(removed, added);
      if (s) this.notify(s.id);
    });
    chrome.tabs.onCreated?.addListener((tab) => {
      if (tab.id === undefined || tab.openerTabId === undefined) return;
      // Opened by the session's own input (a target=_blank link, a popup), not by the user.
      if (Date.now() - (this.acted.get(tab.openerTabId) ?? -Infinity) > OPENED_BY_ACTION_MS) return;
      const s = this.table.openedFrom(tab.openerTabId, tab.id);
      if (!s) return;
      void this.group(s.id, tab.id);
      this.notify(s.id);
    });
    chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
      if ((change.url || change.title) && this.table.owners.has(tabId)) this.info.set(tabId, { url: tab.url ?? '', title: tab.title ?? '' });
    });
  }

  /**
   * A new MCP session (the host's `session` message). A group of the same title that no live
   * session owns (left by an earlier session of this client) is taken over with its tabs, so a
   * restarted client carries on in its tabs instead of opening more.
   * @param {string} id @param {string} client
   */
  async start(id, client) {
    const s = this.table.ensure(id, client);
    if (s.groupId === null) {
      try {
        const owned = new Set([...this.table.sessions.values()].map((x) => x.groupId));
        const [group] = (await chrome.tabGroups.query({ title: s.title })).filter((g) => !owned.has(g.id));
        if (group && s.groupId === null) {
          s.groupId = group.id;
          s.color = group.color;
          const tabs = await chrome.tabs.query({ groupId: group.id });
          tabs.sort((a, b) => (a.lastAccessed ?? 0) - (b.lastAccessed ?? 0));
          for (const t of tabs) {
            if (t.id === undefined || this.table.owners.has(t.id)) continue;
            this.table.addTab(id, t.id, { current: true });
            this.info.set(t.id, { url: t.url ?? '', title: t.title ?? '' });
          }
        }
      } catch {
        // no groups (a browser without them): tabs are still tracked, just not grouped
      }
    }
    this.notify(id);
    return s;
  }

  /** A session's input (click, keys) went to this tab now. */
  acting(tabId) {
    this.acted.set(tabId, Date.now());
  }

  /** The session's MCP client went: its tabs stay open for the user, its group keeps its name. */
  end(id) {
    const s = this.table.end(id);
    if (s) for (const t of s.tabs) this.info.delete(t);
    this.onChange();
  }

  /** Tells the host the session's tabs (not for the side panel's pseudo-session). */
  notify(id) {
    if (this.table.get(id)) this.send(this.table.tabsMessage(id));
    this.onChange();
  }

  /**
   * Opens a tab for the session, in its group's window (or the last focused one), grouped, and
   * makes it the session's current tab.
   * @param {string} id @param {string} url @param {{active?: boolean}} [opts]
   * @returns {Promise<chrome.tabs.Tab>}
   */
  async open(id, url, { active = true } = {}) {
    const s = this.table.ensure(id);
    let windowId;
    if (s.groupId !== null) windowId = (await chrome.tabGroups.get(s.groupId).catch(() => null))?.windowId;
    if (windowId === undefined) {
      const win = await chrome.windows.getLastFocused({ windowTypes: ['normal'] }).catch(() => null);
      windowId = win?.id;
    }
    let tab;
    try {
      tab = await chrome.tabs.create({ url, active, ...(windowId !== undefined ? { windowId } : {}) });
    } catch {
      const win = await chrome.windows.create({ url, focused: true });
      tab = win?.tabs?.[0];
    }
    if (!tab || tab.id === undefined) throw new Error('the browser gave no tab back');
    this.table.addTab(id, tab.id, { current: true });
    this.info.set(tab.id, { url, title: '' });
    await this.group(id, tab.id);
    this.notify(id);
    return tab;
  }

  /** Makes a tab the session's (taking it from its owner, if any), current, in its group. */
  async adopt(id, tabId) {
    const prev = this.table.ownerOf(tabId);
    this.table.select(id, tabId);
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (tab) this.info.set(tabId, { url: tab.url ?? '', title: tab.title ?? '' });
    await this.group(id, tabId);
    if (prev && prev.id !== id) this.notify(prev.id);
    this.notify(id);
  }

  /** Puts the tab in the session's group, making the group if it is gone or not made yet. */
  async group(id, tabId) {
    const s = this.table.get(id);
    if (!s || !chrome.tabGroups) return;
    try {
      if (s.groupId !== null) {
        try {
          await chrome.tabs.group({ groupId: s.groupId, tabIds: [tabId] });
          return;
        } catch {
          s.groupId = null; // the user ungrouped or closed it
        }
      }
      const groupId = await chrome.tabs.group({ tabIds: [tabId] });
      s.groupId = groupId;
      await chrome.tabGroups.update(groupId, { title: s.title, color: /** @type {any} */ (s.color), collapsed: false });
    } catch {
      // a window type without groups (popup, app): the tab stays the session's all the same
    }
  }

  /** The session no longer has this tab (it closes it itself: no "was closed" note). */
  release(id, tabId) {
    const s = this.table.removeTab(tabId);
    this.table.takeClosed(id);
    this.info.delete(tabId);
    if (s) this.notify(s.id);
  }
}
