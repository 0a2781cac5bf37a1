// The domain registry: tools belong to a site (host[:port]), not to a tab.
// All tabs of a site share one tool set; a call goes to the site's most recently opened tab
// that has the tool; only real changes of a site's tool set are reported.
// A site with an https tab ignores its plain-http tabs and frames: anyone on the network can
// rewrite an http page, so it must not define or receive the https site's tools.
// A site offers at most MAX_TOOLS_PER_SITE tools and MAX_SITE_BYTES of definitions, and says
// so (a notice) when it is cut. Pure logic: the service worker feeds it browser events and
// sends what it reports.

import { isHttps, siteOf } from './site.js';
import { checkAllows, frameToolsSeen, originOf, toolsAllowed } from './frame-exposure.js';
import {
  canonicalJson, capSiteTools, checkDropped, DROP_REASONS, dropNotice, mergeDrops, noDrops, normalizeTools,
} from './tools.js';

/**
 * @typedef {import('./protocol.js').Tool} Tool
 * @typedef {import('./tools.js').Dropped} Dropped
 * @typedef {{site: string|null, secure: boolean, top: boolean, tools: Map<string, Tool>,
 *   dropped: Dropped, native: boolean, origin: string|null, exposed: boolean,
 *   allows: Map<string, string[]>, grant: string|null}} FrameEntry
 *   exposed: a frame of another site, whose tools are only those it exposed to the top origin
 *   (they count only while a frame of the tab's site granted it `tools`); allows: what this
 *   frame's iframes were granted (origins by token); grant: the token this frame holds
 * @typedef {{id: number, site: string|null, secure: boolean, origin: string|null, windowId: number|undefined,
 *   order: number, frames: Map<number, FrameEntry>, skills: Map<string, Tool>}} TabEntry
 *   skills: the tools of the skills that match the tab's page and passed its health check
 * @typedef {{tabId: number, frameId: number, windowId: number|undefined, skill?: boolean}} Route
 *   skill: the tool is a skill's (background/skills.js runs it), not the frame's
 * @typedef {{reason: 'no_tab'|'not_found'}} NoRoute
 * @typedef {{site: string, tools: Tool[], notice?: string}} SiteChange
 * @typedef {{tools: Tool[], names: Set<string>, secure: boolean, ignoredTabs: number,
 *   notices: string[], hiddenSkillTools: string[]}} SiteView
 *   hiddenSkillTools: skill tools left out because a page of the site has a tool of that name
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
    /** Each site's computed tool set, until one of its tabs or frames changes. */
    /** @type {Map<string, SiteView>} */
    this._views = new Map();
  }

  // --- events -----------------------------------------------------------------------------

  /**
   * A frame's whole tool list.
   * The top frame decides the tab's site; a sub-frame's tools count when the frame is of the
   * tab's own site. A frame of another site (an ad, a widget) adds only the tools the spec lets
   * the top document see: those it registered with `exposedTo` naming the top origin, claiming
   * its own origin (as the browser gives it, `origin`), and only while a frame of the tab's
   * site allows it the `tools` permission (`allows`). Native WebMCP checks all that itself and
   * hands such tools to the top frame, with their origin.
   * @param {number} tabId
   * @param {number} frameId
   * @param {number|undefined} windowId
   * @param {string} url the frame's URL
   * @param {unknown} tools
   * @param {boolean} native whether the tools come from the browser's own WebMCP
   * @param {{top?: boolean, tabUrl?: string, dropped?: unknown, origin?: string,
   *   allows?: unknown, grant?: unknown}} [opts] top: the tab's main
   *   frame (default: frameId 0; an activated prerendered page is main with another id); tabUrl:
   *   the tab's URL, to place a tab first seen through a sub-frame; dropped: what the content
   *   script left out (tools.js `Dropped`); origin: the frame's origin, from the browser
   *   (default: the URL's); allows: `[{token, origins}]`, the frame's iframes given `tools`, as
   *   its content script read their `allow` attributes; grant: the token a cross-site frame got
   *   from its parent (page/isolated/frame-policy.js)
   * @returns {boolean} whether the tab changed site (or scheme)
   */
  reportFrame(tabId, frameId, windowId, url, tools, native,
    { top = frameId === 0, tabUrl, dropped, origin, allows, grant } = {}) {
    const frameSite = siteOf(url);
    const tab = this._tabFor(tabId, windowId);
    let moved = false;
    if (top) moved = this._showSite(tab, frameSite, isHttps(url), originOf(url));
    else if (tab.site === null && tabUrl !== undefined) moved = this._showSite(tab, siteOf(tabUrl), isHttps(tabUrl), originOf(tabUrl));
    if (!top && tab.origin === null && tabUrl !== undefined && siteOf(tabUrl) === tab.site) tab.origin = originOf(tabUrl);
    const frameOrigin = originOf(origin) ?? originOf(url);
    const exposed = !top && frameSite !== tab.site;
    const seen = frameToolsSeen({ tools, top, native, exposed, frameOrigin, topOrigin: tab.origin });
    tools = seen.tools;
    const originFor = seen.originFor;
    const clean = normalizeTools(tools, native, originFor);
    const fromPage = checkDropped(dropped);
    for (const x of clean.dropped.some) fromPage.some.push(x);
    for (const why of DROP_REASONS) {
      const n = clean.dropped.count[why];
      if (n) fromPage.count[why] = (fromPage.count[why] ?? 0) + n;
    }
    tab.frames.set(frameId, {
      site: frameSite, secure: isHttps(url), top, tools: clean.tools, dropped: exposed ? noDrops() : fromPage,
      native: !!native, origin: frameOrigin, exposed, allows: exposed ? new Map() : checkAllows(allows),
      grant: exposed && typeof grant === 'string' ? grant : null,
    });
    if (tab.site !== null) this._touch(tab.site);
    return moved;
  }

  /**
   * The tools of the skills that fit the tab's page now (background/skills.js; [] = none). They
   * join the site's tools after its pages' own: a page's tool of the same name wins.
   * @param {number} tabId
   * @param {string} url the page they were matched and health-checked on
   * @param {Tool[]} tools
   * @param {number} [windowId]
   * @returns {boolean} whether anything changed
   */
  setSkillTools(tabId, url, tools, windowId) {
    const site = siteOf(url);
    if (site === null) return false;
    if (!this.tabs.has(tabId) && !tools.length) return false;
    const entry = this._tabFor(tabId, windowId);
    if (entry.site === null) this._showSite(entry, site, isHttps(url));
    if (entry.site !== site) return false; // the tab shows another site by now
    const next = new Map(tools.map((t) => [t.name, t]));
    if (canonicalJson([...entry.skills.values()]) === canonicalJson([...next.values()])) return false;
    entry.skills = next;
    this._touch(site);
    return true;
  }

  /** A frame's document went away (its port closed). */
  removeFrame(tabId, frameId) {
    const tab = this.tabs.get(tabId);
    if (!tab || !tab.frames.delete(frameId)) return;
    if (tab.site !== null) this._touch(tab.site);
  }

  /** The tab was closed. */
  removeTab(tabId) {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    this.tabs.delete(tabId);
    if (tab.site !== null) this._touch(tab.site);
  }

  /**
   * The tab's URL changed. Another site (or scheme) means its old frames are gone. With a windowId, an
   * unknown tab is recorded too, so a site open in a tab whose page reports nothing (yet)
   * answers "no such tool" rather than "no tab".
   * @param {number} tabId
   * @param {string} url
   * @param {number} [windowId]
   * @returns {boolean} whether the tab changed site (or scheme)
   */
  tabNavigated(tabId, url, windowId) {
    const site = siteOf(url);
    if (!this.tabs.has(tabId) && (site === null || windowId === undefined)) return false;
    const tab = this._tabFor(tabId, windowId);
    if (windowId !== undefined) tab.windowId = windowId;
    return this._showSite(tab, site, isHttps(url), originOf(url));
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

  /** @returns {boolean|undefined} whether the tab's page is https; undefined for an unknown tab */
  tabIsHttps(tabId) {
    return this.tabs.get(tabId)?.secure;
  }

  // --- queries ----------------------------------------------------------------------------

  /**
   * The site's tool set: the union of its counting tabs' frames by name, the newest tab's
   * definition winning (top frame first within a tab), within the site limits, sorted by name.
   * @param {string} site
   * @returns {Tool[]}
   */
  siteTools(site) {
    return this._view(site).tools;
  }

  /**
   * What the Inspector shows about a site besides its tools: its scheme, and plain-language
   * notices (tools left out, http tabs ignored).
   * @param {string} site
   * @returns {{scheme: 'https'|'http', notices: string[]}}
   */
  siteInfo(site) {
    const v = this._view(site);
    return { scheme: v.secure ? 'https' : 'http', notices: v.notices };
  }

  /** @returns {string|null} the site's notices as one text, or null */
  siteNotice(site) {
    const n = this._view(site).notices;
    return n.length ? n.join(' ') : null;
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
    const { tabs, secure } = this._countingTabs(site);
    if (!tabs.length) return { reason: 'no_tab' };
    const view = this._view(site);
    if (!view.names.has(toolName)) return { reason: 'not_found' }; // cut, or none
    for (const tab of tabs) {
      for (const [frameId, frame] of this._frameEntriesOf(tab, secure)) {
        if (frame.tools.has(toolName)) return { tabId: tab.id, frameId, windowId: tab.windowId };
      }
    }
    // No page has it: a skill's (the newest tab whose skills have it).
    for (const tab of tabs) {
      if (tab.skills.has(toolName)) return { tabId: tab.id, frameId: 0, windowId: tab.windowId, skill: true };
    }
    return { reason: 'not_found' };
  }

  /** @returns {number[]} the tabs that speak for the site (route()'s), newest first */
  tabIdsOf(site) {
    return this._countingTabs(site).tabs.map((t) => t.id);
  }

  /** @returns {string[]} the site's skill tools a page's own tool of the same name hides */
  hiddenSkillTools(site) {
    return this._view(site).hiddenSkillTools;
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

  /** @returns {Record<string, string>} the notice of every site that has one */
  notices() {
    /** @type {Record<string, string>} */
    const out = {};
    for (const site of this.sites()) {
      const notice = this.siteNotice(site);
      if (notice) out[site] = notice;
    }
    return out;
  }

  /**
   * The sites whose tool set (or notice) differs from what was last taken, with the new set
   * ([] = gone). With holdReloading, a site that lost tools while one of its tabs has no frame
   * left (a reload or same-site navigation in flight) is held back, so a page reload that
   * brings back the same tools produces nothing; call again without it once a grace period is
   * over. A site `allow` refuses (rate limiting) stays untaken: a later call gives its then
   * latest state.
   * @param {{holdReloading?: boolean, allow?: (site: string, chars: number) => boolean}} [options]
   * @returns {SiteChange[]}
   */
  takeChanges({ holdReloading = false, allow } = {}) {
    const out = [];
    for (const site of [...this._dirty].sort()) {
      const tools = this.siteTools(site);
      const notice = this.siteNotice(site);
      const json = stateJson(tools, notice);
      const prev = this._taken.get(site);
      if (json === (prev ? prev.json : null)) {
        this._dirty.delete(site);
        continue;
      }
      if (holdReloading && prev && this._losesTools(prev.names, tools) && this._isReloading(site)) continue;
      if (allow && !allow(site, json === null ? 0 : json.length)) continue;
      this._dirty.delete(site);
      if (json === null) this._taken.delete(site);
      else this._taken.set(site, { json, names: new Set(tools.map((t) => t.name)) });
      out.push(notice ? { site, tools, notice } : { site, tools });
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
    for (const site of this.sites()) {
      const tools = snap[site] ?? [];
      const json = stateJson(tools, this.siteNotice(site));
      if (json !== null) this._taken.set(site, { json, names: new Set(tools.map((t) => t.name)) });
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
      tab = { id: tabId, site: null, secure: false, origin: null, windowId, order: 0, frames: new Map(), skills: new Map() };
      this.tabs.set(tabId, tab);
    } else if (tab.windowId === undefined) {
      tab.windowId = windowId;
    }
    return tab;
  }

  /** The tab now shows `site` over http(s): leaving a site, or switching scheme, drops the old
   * documents' frames. @param {string|null} [origin] the top document's origin, when known */
  _showSite(tab, site, secure, origin = null) {
    if (tab.site === site && tab.secure === secure) {
      if (origin) tab.origin = origin;
      return false;
    }
    if (tab.site !== null) {
      this._touch(tab.site);
      tab.frames.clear();
      tab.skills = new Map();
    }
    tab.site = site;
    tab.secure = secure;
    tab.origin = origin;
    tab.order = ++this._order;
    if (site !== null) this._touch(site);
    return true;
  }

  /** The site's state changed: report it, and compute its tool set again when asked. */
  _touch(site) {
    this._dirty.add(site);
    this._views.delete(site);
  }

  /** Tabs showing the site, newest first. */
  _tabsOf(site) {
    const list = [];
    for (const tab of this.tabs.values()) if (tab.site === site) list.push(tab);
    return list.sort((a, b) => b.order - a.order);
  }

  /** The tabs that speak for the site: its https tabs if it has any, else all; newest first. */
  _countingTabs(site) {
    const all = this._tabsOf(site);
    const secure = all.some((t) => t.secure);
    return { tabs: secure ? all.filter((t) => t.secure) : all, secure, ignored: secure ? all.filter((t) => !t.secure).length : 0 };
  }

  /** The tab's frames that count for its site (only https ones when the site is https): top
   * frame first, then by frame id. A frame of another site counts with its exposed tools
   * while a frame of the site allows it `tools` for its origin. */
  _frameEntriesOf(tab, secure) {
    return [...tab.frames.entries()]
      .filter(([, f]) => (f.site === tab.site || (f.exposed && toolsAllowed(tab, f))) && (!secure || f.secure))
      .sort((a, b) => Number(b[1].top) - Number(a[1].top) || a[0] - b[0]);
  }

  /** @param {string} site @returns {SiteView} */
  _view(site) {
    let view = this._views.get(site);
    if (view) return view;
    const { tabs, secure, ignored } = this._countingTabs(site);
    const merged = new Map();
    const dropped = noDrops();
    for (const tab of tabs) {
      for (const [, frame] of this._frameEntriesOf(tab, secure)) {
        mergeDrops(dropped, frame.dropped);
        for (const tool of frame.tools.values()) if (!merged.has(tool.name)) merged.set(tool.name, tool);
      }
    }
    /** @type {Set<string>} */
    const hidden = new Set();
    for (const tab of tabs) {
      for (const tool of tab.skills.values()) {
        const have = merged.get(tool.name);
        if (!have) merged.set(tool.name, tool);
        else if (have.source !== 'skill') hidden.add(tool.name);
      }
    }
    const tools = capSiteTools(merged.values(), dropped).sort(byName);
    const notices = [];
    const cut = dropNotice(site, dropped);
    if (cut) notices.push(cut);
    if (ignored) {
      notices.push(`${ignored} http:// tab${ignored === 1 ? '' : 's'} of ${site} ${ignored === 1 ? 'is' : 'are'} ignored ` +
        'while an https:// tab of it is open: a plain-http page cannot add tools to the https site or receive its calls.');
    }
    view = { tools, names: new Set(tools.map((t) => t.name)), secure, ignoredTabs: ignored, notices, hiddenSkillTools: [...hidden].sort() };
    this._views.set(site, view);
    return view;
  }

  _losesTools(prevNames, tools) {
    const now = new Set(tools.map((t) => t.name));
    for (const name of prevNames) if (!now.has(name)) return true;
    return false;
  }

  _isReloading(site) {
    const { tabs, secure } = this._countingTabs(site);
    return tabs.some((tab) => this._frameEntriesOf(tab, secure).length === 0);
  }
}

/** What a site's reported state is compared by: its tools and its notice; null = nothing. */
function stateJson(tools, notice) {
  if (!tools.length && !notice) return null;
  return canonicalJson(tools) + (notice ? `\n${notice}` : '');
}
