// Which already-open tabs and frames get our content scripts injected, and which files, after
// an install, update, reload or re-enable (Chrome only runs content scripts in documents loaded
// after that). Pure: background/open-tabs.js does the chrome.* part.
//
// The sets: the manifest's `content_scripts` (the isolated stub) and the MAIN stub the worker
// registered (background/page-stubs.js), each a ScriptSet, the MAIN one first. A frame is probed
// first, in each set's world (does that world's marker exist?), and only frames without it get
// that set's files; the page scripts' own markers make a second copy a no-op anyway.

import { scriptPath } from './page-files.js';
import { unscriptableReason } from './tab-urls.js';

/** Our marker in the isolated world (`Symbol.for(...)`, page/isolated/stub.js, every frame's). */
export const ISOLATED_MARK = 'webmcp-sidecar.isolated';
/** The MAIN stub's marker (page/main/base.js); a page can set it too, and then only fools itself. */
export const MAIN_MARK = 'webmcp-sidecar.main-world';
/** @param {'MAIN'|'ISOLATED'} world */
const markOf = (world) => (world === 'MAIN' ? MAIN_MARK : ISOLATED_MARK);

/** Tabs probed and injected at once; the rest wait their turn. */
export const SWEEP_CONCURRENCY = 4;

/**
 * One content script, as chrome.scripting needs it; `mark`: its world's marker.
 * @typedef {{files: string[], world: 'MAIN'|'ISOLATED', mark: string, allFrames: boolean,
 *   matches: string[], excludeMatches: string[], matchAboutBlank: boolean,
 *   matchOriginAsFallback: boolean}} ScriptSet
 * What the probe answered in one frame (chrome.scripting's InjectionResult, `result` = probeFrame's).
 * @typedef {{frameId: number, documentId?: string, result?: any}} ProbeResult
 */

/**
 * The manifest's content scripts as ScriptSets, in manifest order (entries without `js` skipped).
 * `include_globs`/`exclude_globs` are not read: our manifest has none.
 * @param {any} manifest chrome.runtime.getManifest()
 * @returns {ScriptSet[]}
 */
export function scriptSets(manifest) {
  const entries = Array.isArray(manifest?.content_scripts) ? manifest.content_scripts : [];
  /** @type {ScriptSet[]} */
  const sets = [];
  for (const e of entries) {
    const files = Array.isArray(e?.js) ? e.js.filter((f) => typeof f === 'string' && f) : [];
    if (!files.length) continue;
    const world = e.world === 'MAIN' ? 'MAIN' : 'ISOLATED';
    sets.push({
      files,
      world,
      mark: markOf(world),
      allFrames: e.all_frames === true,
      matches: strings(e.matches),
      excludeMatches: strings(e.exclude_matches),
      matchAboutBlank: e.match_about_blank === true,
      matchOriginAsFallback: e.match_origin_as_fallback === true,
    });
  }
  return sets;
}

/**
 * A script the worker registered (chrome.scripting.getRegisteredContentScripts) as a ScriptSet;
 * null without files.
 * @param {any} r
 * @returns {ScriptSet|null}
 */
export function registeredSet(r) {
  const files = Array.isArray(r?.js) ? r.js.filter((f) => typeof f === 'string' && f).map(scriptPath) : [];
  if (!files.length) return null;
  const world = r.world === 'MAIN' ? 'MAIN' : 'ISOLATED';
  return {
    files,
    world,
    mark: markOf(world),
    allFrames: r.allFrames === true,
    matches: strings(r.matches),
    excludeMatches: strings(r.excludeMatches),
    matchAboutBlank: r.matchOriginAsFallback === true, // Chrome's registered scripts have no matchAboutBlank of their own
    matchOriginAsFallback: r.matchOriginAsFallback === true,
  };
}

/** @param {unknown} v @returns {string[]} */
const strings = (v) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

const FALLBACK_SCHEMES = /^(about|blob|data|filesystem):/i;

/**
 * The URL a frame is matched and keyed by. Most frames: their own. A frame whose URL says nothing
 * about who made it (about:blank, about:srcdoc, blob:, data:, filesystem:) belongs to its
 * origin, as Chrome's `match_origin_as_fallback` matches it: its origin's root, or null when that
 * origin is opaque ("null", e.g. a data: or sandboxed frame).
 * @param {string|undefined} url the frame's URL (MessageSender.url, location.href)
 * @param {string|undefined} origin the frame's origin (MessageSender.origin, location.origin)
 * @returns {string} the URL to use ('' when there is none)
 */
export function frameUrl(url, origin) {
  const u = typeof url === 'string' ? url : '';
  if (u && !FALLBACK_SCHEMES.test(u)) return u;
  if (typeof origin === 'string' && /^https?:\/\/[^/]+$/i.test(origin)) return `${origin}/`;
  return u;
}

/**
 * Whether a URL matches a Chrome match pattern (`<all_urls>`, `scheme://host/path` with `*`).
 * A pattern's host without a port matches every port, as Chrome's do.
 * @param {string} pattern @param {string} url
 */
export function matchesPattern(pattern, url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (pattern === '<all_urls>') return ['http', 'https', 'file', 'ws', 'wss', 'ftp'].includes(scheme);
  const m = /^(\*|[a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)$/i.exec(pattern);
  if (!m) return false;
  const [, pScheme, pHost, pPath] = m;
  if (pScheme === '*' ? scheme !== 'http' && scheme !== 'https' : pScheme.toLowerCase() !== scheme) return false;
  if (scheme !== 'file' && !hostMatches(pHost.toLowerCase(), u)) return false;
  return globRegex(pPath).test(u.pathname + u.search);
}

/** @param {string} pHost @param {URL} u */
function hostMatches(pHost, u) {
  let host = pHost;
  /** @type {string|null} */
  let port = null;
  const colon = pHost.lastIndexOf(':');
  if (colon > 0 && !pHost.endsWith(']')) {
    host = pHost.slice(0, colon);
    port = pHost.slice(colon + 1);
  }
  if (port !== null && port !== '*') {
    const actual = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (port !== actual) return false;
  }
  const h = u.hostname.toLowerCase();
  if (host === '*') return true;
  if (host.startsWith('*.')) return h === host.slice(2) || h.endsWith(host.slice(1));
  return h === host;
}

/** @param {string} glob */
function globRegex(glob) {
  return new RegExp(`^${glob.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/**
 * Whether a set's patterns take this URL (its `matches`, minus its `exclude_matches`).
 * @param {ScriptSet} set @param {string} url
 */
export function setMatches(set, url) {
  return set.matches.some((p) => matchesPattern(p, url)) && !set.excludeMatches.some((p) => matchesPattern(p, url));
}

/**
 * The open tabs worth probing, the ones the user sees first: active tabs, then the most
 * recently used. Skipped quietly: tabs without an id or URL, discarded ones (nothing runs in
 * them until they reload, and the manifest's scripts come then), pages no extension may
 * script (chrome://, the Web Store), file: pages without file access, and tabs whose page no
 * set matches.
 * @param {chrome.tabs.Tab[]} tabs chrome.tabs.query({})
 * @param {ScriptSet[]} sets
 * @param {{fileAccess?: boolean}} [opts] fileAccess: chrome.extension.isAllowedFileSchemeAccess()
 * @returns {number[]} tab ids, in the order to handle them
 */
export function tabsToProbe(tabs, sets, { fileAccess = false } = {}) {
  const keep = [];
  for (const tab of Array.isArray(tabs) ? tabs : []) {
    if (!tab || typeof tab.id !== 'number' || tab.id < 0 || tab.discarded) continue;
    const url = typeof tab.url === 'string' ? tab.url : '';
    if (!url || unscriptableReason(url)) continue;
    if (/^file:/i.test(url) && !fileAccess) continue;
    if (!sets.some((s) => setMatches(s, url))) continue;
    keep.push(tab);
  }
  keep.sort((a, b) => Number(!!b.active) - Number(!!a.active) || (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  return keep.map((t) => /** @type {number} */ (t.id));
}

/**
 * Runs in each frame (chrome.scripting, in a set's world): whether that world has our marker,
 * and where the frame is. Self-contained: chrome.scripting sends its source, not its closure.
 * The origin is the document's (`self.origin`): `location.origin` is the URL's, "null" for
 * about:srcdoc and about:blank whoever made them.
 * @param {string} mark ISOLATED_MARK or MAIN_MARK
 */
export function probeFrame(mark) {
  const g = /** @type {any} */ (globalThis);
  return {
    has: !!g[Symbol.for(mark)],
    url: String(location.href),
    origin: String(typeof g.origin === 'string' ? g.origin : location.origin),
  };
}

/**
 * The frames of one tab that lack our scripts and that this set is for, from the probe's answers.
 * Frames whose probe failed (no answer) are left alone.
 * @param {ProbeResult[]} results
 * @param {ScriptSet} set
 * @returns {{frameIds: number[], documentIds: string[]|null}} documentIds when every chosen
 *   frame has one (a frame that navigated since the probe then gets nothing: its new document
 *   has the manifest's scripts)
 */
export function framesToInject(results, set) {
  /** @type {ProbeResult[]} */
  const chosen = [];
  for (const r of Array.isArray(results) ? results : []) {
    const v = r?.result;
    if (!v || typeof v !== 'object' || v.has !== false || typeof r.frameId !== 'number') continue;
    if (!set.allFrames && r.frameId !== 0) continue;
    const url = typeof v.url === 'string' ? v.url : '';
    let ok = setMatches(set, url);
    if (!ok && FALLBACK_SCHEMES.test(url)) {
      const aboutBlank = /^about:(blank|srcdoc)(?:[?#]|$)/i.test(url);
      const byOrigin = frameUrl(url, v.origin);
      if (byOrigin !== url && (set.matchOriginAsFallback || (aboutBlank && set.matchAboutBlank))) ok = setMatches(set, byOrigin);
    }
    if (ok && !chosen.some((c) => c.frameId === r.frameId)) chosen.push(r);
  }
  const frameIds = chosen.map((c) => c.frameId);
  const documentIds = chosen.every((c) => typeof c.documentId === 'string' && c.documentId)
    ? chosen.map((c) => /** @type {string} */ (c.documentId))
    : null;
  return { frameIds, documentIds: chosen.length ? documentIds : null };
}

/**
 * Whether any set runs in frames other than the top one (then the probe goes to every frame).
 * @param {ScriptSet[]} sets
 */
export const anyAllFrames = (sets) => sets.some((s) => s.allFrames);
