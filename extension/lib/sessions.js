// Which MCP session owns which tabs: each MCP client session works in its
// own tabs (shown as a tab group named after the client), acts on its current tab by default, and
// never on another session's tab unless asked. Pure bookkeeping: the worker feeds it browser
// events (tab closed, replaced, opened from a session's tab) and does the chrome.* side.

/**
 * @typedef {{tabId: number, url: string, title: string}} ClosedTab
 * @typedef {{
 *   id: string, client: string, title: string, color: string, groupId: number|null,
 *   tabs: number[], current: number|null, closed: ClosedTab|null,
 *   lastActivity: number, lastTool: string|null, started: number,
 * }} Session
 *   tabs: most recently used last; closed: the current tab that went away, told once
 */

/** Chrome's tab group colours, handed out in turn so parallel sessions look different. */
export const GROUP_COLORS = Object.freeze(['blue', 'green', 'purple', 'orange', 'cyan', 'pink', 'red', 'yellow', 'grey']);
const MAX_CLIENT_CHARS = 40;

/** A client name fit for a tab group title: one line, short, never empty. */
export function cleanClientName(name) {
  const s = typeof name === 'string' ? name.replace(/\s+/g, ' ').trim() : '';
  if (!s) return 'MCP client';
  return s.length > MAX_CLIENT_CHARS ? `${s.slice(0, MAX_CLIENT_CHARS - 1)}…` : s;
}

export class SessionTable {
  constructor() {
    /** @type {Map<string, Session>} */
    this.sessions = new Map();
    /** @type {Map<number, string>} tab id -> owning session id */
    this.owners = new Map();
    this._started = 0;
  }

  /**
   * The session, made on first sight. A second session of the same client gets "name 2", so
   * every live session's group title is unique (and a later session can adopt a group by title).
   * @param {string} id
   * @param {string} [client]
   * @param {number} [now]
   * @returns {Session}
   */
  ensure(id, client, now = Date.now()) {
    let s = this.sessions.get(id);
    if (s) {
      if (client !== undefined && cleanClientName(client) !== s.client) {
        s.client = cleanClientName(client);
        s.title = this._uniqueTitle(s.client, id);
      }
      return s;
    }
    const name = cleanClientName(client);
    s = {
      id, client: name, title: this._uniqueTitle(name, id), color: GROUP_COLORS[this._started % GROUP_COLORS.length],
      groupId: null, tabs: [], current: null, closed: null, lastActivity: now, lastTool: null, started: now,
    };
    this._started++;
    this.sessions.set(id, s);
    return s;
  }

  _uniqueTitle(name, id) {
    const taken = new Set([...this.sessions.values()].filter((s) => s.id !== id).map((s) => s.title));
    if (!taken.has(name)) return name;
    for (let n = 2; ; n++) if (!taken.has(`${name} ${n}`)) return `${name} ${n}`;
  }

  /** @param {string} id */
  get(id) {
    return this.sessions.get(id) ?? null;
  }

  /**
   * The session ends (its MCP client went): its tabs stay open, owned by nobody.
   * @returns {Session|null}
   */
  end(id) {
    const s = this.sessions.get(id);
    if (!s) return null;
    for (const t of s.tabs) this.owners.delete(t);
    this.sessions.delete(id);
    return s;
  }

  /** @param {number} tabId */
  ownerOf(tabId) {
    const id = this.owners.get(tabId);
    return id === undefined ? null : this.sessions.get(id) ?? null;
  }

  /**
   * Gives a tab to a session (taking it from any other); `current` makes it the one its tools
   * act on.
   * @param {string} id @param {number} tabId @param {{current?: boolean}} [opts]
   */
  addTab(id, tabId, { current = false } = {}) {
    const s = this.sessions.get(id);
    if (!s) return;
    const prev = this.owners.get(tabId);
    if (prev !== undefined && prev !== id) this._drop(this.sessions.get(prev), tabId);
    this.owners.set(tabId, id);
    s.tabs = [...s.tabs.filter((t) => t !== tabId), tabId];
    if (current || s.current === null) {
      s.current = tabId;
      s.closed = null;
    }
  }

  /** Makes one of the session's own tabs its current tab (most recently used). */
  select(id, tabId) {
    this.addTab(id, tabId, { current: true });
  }

  /**
   * A tab is gone. When it was its session's current tab, the session moves to its most recently
   * used other tab (if any) and remembers what went, so its next call can say so.
   * @param {number} tabId
   * @param {{url?: string, title?: string}} [info] what the tab showed
   * @returns {Session|null} the session that owned it
   */
  removeTab(tabId, info = {}) {
    const s = this.ownerOf(tabId);
    this.owners.delete(tabId);
    if (!s) return null;
    const wasCurrent = s.current === tabId;
    this._drop(s, tabId);
    if (wasCurrent) s.closed = { tabId, url: info.url ?? '', title: info.title ?? '' };
    return s;
  }

  _drop(s, tabId) {
    if (!s) return;
    s.tabs = s.tabs.filter((t) => t !== tabId);
    if (s.current === tabId) s.current = s.tabs.length ? s.tabs[s.tabs.length - 1] : null;
  }

  /** Chrome swapped a tab for another (prerendering, instant pages): same owner, new id. */
  replaceTab(oldId, newId) {
    const s = this.ownerOf(oldId);
    if (!s) return null;
    this.owners.delete(oldId);
    this.owners.set(newId, s.id);
    s.tabs = s.tabs.map((t) => (t === oldId ? newId : t));
    if (s.current === oldId) s.current = newId;
    return s;
  }

  /**
   * A tab opened from another (a link with target=_blank, window.open): it belongs to the
   * opener's session, without becoming its current tab.
   * @returns {Session|null}
   */
  openedFrom(openerTabId, tabId) {
    const s = this.ownerOf(openerTabId);
    if (!s || this.owners.has(tabId)) return null;
    this.owners.set(tabId, s.id);
    s.tabs = [tabId, ...s.tabs];
    return s;
  }

  /** Reads and forgets the note about a closed current tab. */
  takeClosed(id) {
    const s = this.sessions.get(id);
    if (!s || !s.closed) return null;
    const c = s.closed;
    s.closed = null;
    return c;
  }

  touch(id, tool, now = Date.now()) {
    const s = this.sessions.get(id);
    if (!s) return;
    s.lastActivity = now;
    s.lastTool = tool;
  }

  /**
   * What the entry needs to offer the right tools: the session's tab ids and current tab.
   * @returns {{type: 'session_tabs', session: string, tabs: number[], current: number|null}}
   */
  tabsMessage(id) {
    const s = this.sessions.get(id);
    return { type: 'session_tabs', session: id, tabs: s ? [...s.tabs] : [], current: s ? s.current : null };
  }
}
