// "Save as skill" (docs/SKILLS.md): a skill draft from a run of browser tool calls on one tab.
// Pure. The worker records each call as it happens (background/skill-recorder.js: the page, and
// for a ref, a selector made in the page before acting, since refs die with the document); this
// turns such records into a skill document the host's model accepts
// (host/webmcp_sidecar/skills/model.py). The user (or the MCP client) reviews and installs it.

import { TOOL_NAME_RE } from '../generated/protocol.js';
import { tokenLike } from '../secret-text.js';
import { urlWithoutSecrets } from './draft-secrets.js';
import { Builder, DraftError, literalOk } from './draft-steps.js';

export { DraftError, paramName } from './draft-steps.js';

/** Skill names (model.py NAME_PATTERN) and template names (steps.py VAR_PATTERN). */
export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const PARAM_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Tools that neither change nor read what a skill could repeat. */
const IGNORED = new Set(['tabs', 'tab_open', 'tab_select', 'tab_close', 'screenshot', 'skill_draft']);
const NAVIGATING = new Set(['navigate', 'reload', 'back', 'forward']);

/**
 * @typedef {{selector: string, desc?: string, role?: string, checked?: boolean|null}} Target
 *   an element a ref named, as selectors.js `selector_for` saw it before the call acted
 * @typedef {{list: string, fields?: Record<string, {selector: string}>}} Rows
 *   a page's main repeated element (page/agent/rows.js), recorded with a read of the whole page
 * @typedef {{n?: number, tool: string, args?: any, ok?: boolean, tabId?: number|null,
 *   url?: string, urlAfter?: string, target?: Target|null, rows?: Rows}} RecordedCall
 *   tool: the browser tool's wire name (`click`, not `browser_click`); url: the tab's page
 *   before the call; urlAfter: after it
 * @typedef {{name: string, toolName: string, description?: string, title?: string,
 *   params?: Record<string, string>, tabId?: number,
 *   extract?: {selector?: string, attribute?: string, all?: boolean, list?: string,
 *     fields?: Record<string, {selector?: string, attribute?: string}>, limit?: number}}} DraftOptions
 *   params: recorded text (typed, or an option chosen) -> the parameter that stands for it
 * @typedef {{skill: any, notes: string[], params: {name: string, field: string}[], calls: number[],
 *   removed: string[]}} Draft
 *   removed: what was taken out because it looked secret (in words, values masked; also in notes)
 */

/** A skill name for a page's site: `shop.example.com` -> `shop-example-com`. */
export function defaultSkillName(url) {
  let host = '';
  try {
    host = new URL(String(url)).hostname;
  } catch { /* no URL: the fallback */ }
  const s = host.toLowerCase().replace(/^www\./, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56);
  return s ? `${s}-recorded`.replace(/^-/, '') : 'recorded-skill';
}

/**
 * The match pattern for a page: its scheme and host, any port, its folder (`/shop/cart.html` ->
 * `/shop/*`). Chrome match patterns (docs/SKILLS.md); only http(s).
 * @param {string} url
 */
export function matchFor(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    throw new DraftError(`The run's first page (${String(url).slice(0, 200)}) is not a URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new DraftError(`Skills are for web pages (http, https); the run began on ${u.protocol} ${url.slice(0, 200)}.`);
  }
  // A token in the path (`/invite/<token>/`) is no part of a skill's pattern: `*` stands for it.
  const folder = (u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/').split('/').map((s) => (tokenLike(s) ? '*' : s)).join('/');
  // `*` stays a wildcard in a pattern's path: a folder named with one would match more, which
  // is harmless; nothing else in a path is special to a pattern.
  return `${u.protocol.slice(0, -1)}://${u.hostname}${folder}*`;
}

/** `host[:port]` of a URL, '' when it has none. */
const siteOf = (url) => {
  try {
    return new URL(String(url)).host;
  } catch {
    return '';
  }
};

/** A URL as the same site's path (a skill's navigate stays on the tab's site anyway). */
const pathOf = (url) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}${u.hash}`;
};

/**
 * The draft: a skill with one tool whose steps repeat the run. Throws DraftError when the
 * options are unusable or nothing in the run can be repeated.
 * @param {RecordedCall[]} calls oldest first
 * @param {DraftOptions} opts
 * @returns {Draft}
 */
export function buildDraft(calls, opts) {
  const o = checkOptions(opts);
  /** @type {string[]} */
  const notes = [];
  const list = (Array.isArray(calls) ? calls : []).filter((c) => c && typeof c === 'object' && typeof c.tool === 'string');
  const tabId = o.tabId ?? [...list].reverse().find((c) => Number.isInteger(c.tabId))?.tabId;
  const mine = list.filter((c) => tabId === undefined || c.tabId === tabId || c.tabId === undefined || c.tabId === null);
  if (mine.length < list.length) notes.push(`${list.length - mine.length} call(s) on other tabs were left out (a skill works in one tab).`);
  const failed = mine.filter((c) => c.ok === false).length;
  if (failed) notes.push(`${failed} failed call(s) were left out.`);
  const run = mine.filter((c) => c.ok !== false && !IGNORED.has(c.tool));

  // The first page: where the run was before its first action (loads before it only lead there).
  let i = 0;
  let start = '';
  for (; i < run.length && NAVIGATING.has(run[i].tool); i++) start = run[i].urlAfter || run[i].args?.url || start;
  if (i < run.length) start = start || run[i].url || '';
  if (!start) throw new DraftError('The run has no page to start from: drive a page with the browser tools first.');
  const match = matchFor(start);
  const site = siteOf(start);

  const b = new Builder(o, notes);
  let page = start; // the page the next step runs on
  let stopped = false;
  for (const c of run.slice(i)) {
    if (stopped) break;
    const navigated = !!c.urlAfter && !!c.url && c.urlAfter.split('#')[0] !== c.url.split('#')[0];
    if (NAVIGATING.has(c.tool)) {
      const to = c.urlAfter || (c.tool === 'navigate' ? c.args?.url : c.tool === 'reload' ? c.url : '');
      if (!to) {
        notes.push(`browser_${c.tool} was left out: where it went was not recorded.`);
      } else if (siteOf(to) !== site) {
        notes.push(`The run went to another site (${String(to).slice(0, 200)}); the calls from there on were left out (a skill stays on its site).`);
        stopped = true;
      } else if (literalOk(to)) {
        b.step(c, { action: 'navigate', url: urlWithoutSecrets(b, pathOf(to)) });
      }
      if (to) page = to;
      continue;
    }
    b.call(c, page === start, b.lastNavigated);
    b.lastNavigated = navigated;
    if (c.urlAfter) page = c.urlAfter;
  }
  return b.finish(match, start);
}

function checkOptions(opts) {
  if (!opts || typeof opts !== 'object') throw new DraftError('Give the draft a name and a tool name.');
  const name = String(opts.name ?? '');
  if (!SKILL_NAME_RE.test(name)) {
    throw new DraftError(`The skill's name ${JSON.stringify(name.slice(0, 80))} must be 1-64 lower-case letters, digits, - and _, starting with a letter or digit.`);
  }
  const toolName = String(opts.toolName ?? '');
  if (!TOOL_NAME_RE.test(toolName)) {
    throw new DraftError(`The tool's name ${JSON.stringify(toolName.slice(0, 80))} must be 1-128 letters, digits, _, . and -.`);
  }
  const params = opts.params ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) throw new DraftError('`params` maps recorded text to parameter names.');
  for (const [text, p] of Object.entries(params)) {
    if (typeof p !== 'string' || !PARAM_NAME_RE.test(p)) {
      throw new DraftError(`The parameter name for ${JSON.stringify(text.slice(0, 60))} must match ${PARAM_NAME_RE.source} (got ${JSON.stringify(String(p).slice(0, 80))}).`);
    }
  }
  return { ...opts, name, toolName, params };
}

/**
 * Operation log entries (lib/oplog.js) as recorded calls: browser calls only, in order, with
 * the record the worker kept (`entry.rec`). What browser_type typed is not in the log, so it
 * comes as `[hidden]` and its parameter is named after its field.
 * @param {any[]} entries oldest first
 * @returns {RecordedCall[]}
 */
export function callsFromLog(entries) {
  /** @type {RecordedCall[]} */
  const out = [];
  for (const e of Array.isArray(entries) ? entries : []) {
    if (!e || e.site !== 'browser' || !e.rec || typeof e.tool !== 'string' || e.state === 'running') continue;
    const args = e.args && typeof e.args === 'object' && !Array.isArray(e.args) ? e.args : {};
    out.push({
      tool: e.tool, args, ok: e.state === 'ok', tabId: e.rec.tabId ?? null, url: e.rec.url ?? '', urlAfter: e.rec.urlAfter ?? '',
      ...(e.rec.target !== undefined ? { target: e.rec.target } : {}),
      ...(e.rec.rows ? { rows: e.rec.rows } : {}),
    });
  }
  return out;
}
