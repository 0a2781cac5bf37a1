// The domain registry (PRODUCT.md section 4): tools belong to a site, not to a tab.
// All tabs of a site share one tool set; a call goes to the site's most recently opened tab
// that has the tool; only real changes of a site's tool set are reported.
// Pure logic: the service worker feeds it browser events and sends what it reports.

import { siteOf } from './site.js';
import { normalizeTools, canonicalJson } from './tools.js';

/**
 * @typedef {import('./protocol.js').Tool} Tool
 * @typedef {{site: string|null, top: boolean, tools: Map<string, Tool>, native: boolean}} FrameEntry
 * @typedef {{id: number, site: string|null, windowId: number|undefined, order: number,
 *   frames: Map<number, FrameEntry>}} TabEntry
 * @typedef {{tabId: number, frameId: number, windowId: number|undefined}} Route
 * @typedef {{reason: 'no_tab'|'not_found'}} NoRoute
 * @typedef {{site: string, tools: Tool[]}} SiteChange
 */

/** Code-point order, as Python's sorted() would give. */
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class Registry {
  constructor() {
    /** @type {Map<number, TabEntry>} */
    this.tabs = new Map();
    /** Bumped whenever a tab starts showing a site: higher = more recently opened. */
    this._order = 0;
    /** What was last handed out per site: canonical JSON and tool names. */
    /** @type {Map<string, {json: string, names: Set<string>}>} */
    this._taken = new Map();
    /** Sites that may differ from what was last taken. */
    /** @type {Set<string>} */
    this._dirty = new Set();
  }

  // --- events -----------------------------------------------------------------------------

  /**
   * A frame's whole tool list.
   * The top frame decides the tab's site; a sub-frame's tools count only when the frame is of
   * the tab's own site (a cross-site iframe, e.g. an ad, must not add tools to the site).
   * @param {number} tabId
   * @param {number} frameId
   * @param {number|undefined} windowId
   * @param {string} url the frame's URL
   * @param {unknown} tools
   * @param {boolean} native whether the tools come from the browser's own WebMCP
   * @param {{top?: boolean, tabUrl?: string}} [opts] top: the tab's main frame (default:
   *   frameId 0; an activated prerendered page is main with another id); tabUrl: the tab's
   *   URL, to place a tab first seen through a sub-frame
   * @returns {boolean} whether the tab changed site
   */
  reportFrame(tabId, frameId, windowId, url, tools, native, { top = frameId === 0, tabUrl } = {}) {
    const frameSite = siteOf(url);
    const tab = this._tabFor(tabId, windowId);
    let moved = false;
    if (top) moved = this._showSite(tab, frameSite);
    else if (tab.site === null && tabUrl !== undefined) moved = this._showSite(tab, siteOf(tabUrl));
    tab.frames.set(frameId, { site: frameSite, top, tools: normalizeTools(tools, native), native: !!native });
    if (tab.site !== null) this._dirty.add(tab.site);
    return moved;
  }

  /** A frame's document went away (its port closed). */
  removeFrame(tabId, frameId) {
    const tab = this.tabs.get(tabId);
    if (!tab || !tab.frames.delete(frameId)) return;
    if (tab.site !== null) this._dirty.add(tab.site);
  }

  /** The tab was closed. */
  removeTab(tabId) {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    this.tabs.delete(tabId);
    if (tab.site !== null) this._dirty.add(tab.site);
  }

  /**
   * The tab's URL changed. Another site means its old frames are gone. With a windowId, an
   * unknown tab is recorded too, so a site open in a tab whose page reports nothing (yet)
   * answers "no such tool" rather than "no tab".
   * @param {number} tabId
   * @param {string} url
   * @param {number} [windowId]
   * @returns {boolean} whether the tab changed site
   */
  tabNavigated(tabId, url, windowId) {
    const site = siteOf(url);
    if (!this.tabs.has(tabId) && (site === null || windowId === undefined)) return false;
    const tab = this._tabFor(tabId, windowId);
    if (windowId !== undefined) tab.windowId = windowId;
    return this._showSite(tab, site);
  }

  /** The tab moved to another window. */
  tabMoved(tabId, windowId) {
    const tab = this.tabs.get(tabId);
    if (tab) tab.windowId = windowId;
  }

  /** @returns {string|null|undefined} the site the tab shows; undefined for an unknown tab */
  siteOfTab(tabId) {
    return this.tabs.get(tabId)?.site;
  }

  // --- queries ----------------------------------------------------------------------------

  /**
   * The site's tool set: the union of its tabs' frames by name, the newest tab's definition
   * winning (top frame first within a tab), sorted by name.
   * @param {string} site
   * @returns {Tool[]}
   */
  siteTools(site) {
    const merged = new Map();
    for (const tab of this._tabsOf(site)) {
      for (const frame of this._framesOf(tab)) {
        for (const tool of frame.tools.values()) if (!merged.has(tool.name)) merged.set(tool.name, tool);
      }
    }
    return [...merged.values()].sort(byName);
  }

  /** Sites shown by at least one tab, with or without tools. */
  sites() {
    const set = new Set();
    for (const tab of this.tabs.values()) if (tab.site !== null) set.add(tab.site);
    return [...set].sort();
  }

  /**
   * Where to run a call: the frame of the newest tab of the site that has the tool.
   * @param {string} site
   * @param {string} toolName
   * @returns {Route|NoRoute}
   */
  route(site, toolName) {
    let anyTab = false;
    for (const tab of this._tabsOf(site)) {
      anyTab = true;
      for (const [frameId, frame] of this._frameEntriesOf(tab)) {
        if (frame.tools.has(toolName)) return { tabId: tab.id, frameId, windowId: tab.windowId };
      }
    }
    return { reason: anyTab ? 'not_found' : 'no_tab' };
  }

  /** @returns {Record<string, Tool[]>} every site that has tools */
  snapshot() {
    /** @type {Record<string, Tool[]>} */
    const out = {};
    for (const site of this.sites()) {
      const tools = this.siteTools(site);
      if (tools.length) out[site] = tools;
    }
    return out;
  }

  // --- change detection -------------------------------------------------------------------

  /**
   * The sites whose tool set differs from what was last taken, with the new set ([] = gone).
   * With holdReloading, a site that lost tools while one of its tabs has no frame left (a
   * reload or same-site navigation in flight) is held back, so a page reload that brings
   * back the same tools produces nothing; call again without it once a grace period is over.
   * @param {{holdReloading?: boolean}} [options]
   * @returns {SiteChange[]}
   */
  takeChanges({ holdReloading = false } = {}) {
    const out = [];
    for (const site of [...this._dirty].sort()) {
      const tools = this.siteTools(site);
      const json = tools.length ? canonicalJson(tools) : null;
      const prev = this._taken.get(site);
      if (json === (prev ? prev.json : null)) {
        this._dirty.delete(site);
        continue;
      }
      if (holdReloading && prev && this._losesTools(prev.names, tools) && this._isReloading(site)) continue;
      this._dirty.delete(site);
      if (json === null) this._taken.delete(site);
      else this._taken.set(site, { json, names: new Set(tools.map((t) => t.name)) });
      out.push({ site, tools });
    }
    return out;
  }

  /** Whether takeChanges() may have something (e.g. a held site). */
  hasUntakenChanges() {
    return this._dirty.size > 0;
  }

  /** The whole registry, marked as taken: what a freshly connected host is sent. */
  takeSnapshot() {
    const snap = this.snapshot();
    this._taken.clear();
    for (const [site, tools] of Object.entries(snap)) {
      this._taken.set(site, { json: canonicalJson(tools), names: new Set(tools.map((t) => t.name)) });
    }
    this._dirty.clear();
    return snap;
  }

  // --- internals --------------------------------------------------------------------------

  /** The tab's entry, created when new. A frame's windowId only fills a gap: it was read
   * when the frame connected, and tabMoved() knows better since. */
  _tabFor(tabId, windowId) {
    let tab = this.tabs.get(tabId);
    if (!tab) {
      tab = { id: tabId, site: null, windowId, order: 0, frames: new Map() };
      this.tabs.set(tabId, tab);
    } else if (tab.windowId === undefined) {
      tab.windowId = windowId;
    }
    return tab;
  }

  /** The tab now shows `site`: leaving a site drops the old documents' frames. */
  _showSite(tab, site) {
    if (tab.site === site) return false;
    if (tab.site !== null) {
      this._dirty.add(tab.site);
      tab.frames.clear();
    }
    tab.site = site;
    tab.order = ++this._order;
    if (site !== null) this._dirty.add(site);
    return true;
  }

  /** Tabs showing the site, newest first. */
  _tabsOf(site) {
    const list = [];
    for (const tab of this.tabs.values()) if (tab.site === site) list.push(tab);
    return list.sort((a, b) => b.order - a.order);
  }

  /** The tab's frames that count for its site: top frame first, then by frame id. */
  _frameEntriesOf(tab) {
    return [...tab.frames.entries()]
      .filter(([, f]) => f.site === tab.site)
      .sort((a, b) => Number(b[1].top) - Number(a[1].top) || a[0] - b[0]);
  }

  _framesOf(tab) {
    return this._frameEntriesOf(tab).map(([, f]) => f);
  }

  _losesTools(prevNames, tools) {
    const now = new Set(tools.map((t) => t.name));
    for (const name of prevNames) if (!now.has(name)) return true;
    return false;
  }

  _isReloading(site) {
    return this._tabsOf(site).some((tab) => this._frameEntriesOf(tab).length === 0);
  }
}
