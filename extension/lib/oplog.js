// The operation log: every tool call the service worker routes, whoever made it (the side
// panel's agent, an MCP client, the Inspector), with its outcome and duration.
// Pure: the worker feeds it calls and results; the panel filters and exports it.

import { CALLER_AGENT, CALLER_INSPECTOR, callPrefix } from './call-ids.js';

/** Results longer than this are cut in the log (the caller still gets the whole value). */
export const MAX_LOGGED_CHARS = 8_000;
/** Arguments whose JSON is longer than this are kept as a cut JSON text. */
export const MAX_ARGS_CHARS = 2_000;
/** Entries kept, and characters kept over all of them (the oldest go first). */
export const MAX_ENTRIES = 500;
export const MAX_TOTAL_CHARS = 2_000_000;
export const HIDDEN = '[hidden]';
const MAX_DEPTH = 8;
// Argument names whose values are secrets (passwords, keys, one-time codes), any depth.
const SECRET_KEY = /pass(word|wd|phrase|code)?$|^pwd$|secret|token|api[-_]?key|credential|^(pin|otp|cvv|cvc|2fa)$|card.?number/i;

/**
 * @typedef {{kind: 'agent'|'mcp'|'inspector'|'host'|'chat', label: string}} Caller
 *   (`chat`: an AI chat website, labelled `Chat: <site>`; background/chat-sites.js)
 * @typedef {{id: string, time: number, who: Caller, site: string, tool: string, args: any,
 *   state: 'running'|'ok'|'error', value?: string, error?: {code: string, message: string},
 *   ms?: number, _t0?: number, rec?: Rec}} Entry
 * @typedef {{tabId: number|null, url: string, urlAfter: string,
 *   target?: {selector: string, desc: string, role: string, checked?: boolean|null}|null,
 *   rows?: {list: string, fields?: Record<string, {selector: string}>}}} Rec
 *   a browser call's tab, its page before and after, and the element its ref named (as a CSS
 *   selector made before it acted): what "Save as skill" builds a draft from
 */

/**
 * Who made a call, from its id: the host's own calls are `h.N` (the side panel's agent), the
 * Inspector's `p.N`, an MCP session's `<conn>.N` (conn named by its `session` message).
 * @param {string} id
 * @param {Map<string, string>} sessions conn id -> MCP client name
 * @returns {Caller}
 */
export function callerOf(id, sessions) {
  const conn = callPrefix(id);
  if (conn === CALLER_AGENT) return { kind: 'agent', label: 'Side panel agent' };
  if (conn === CALLER_INSPECTOR) return { kind: 'inspector', label: 'Inspector' };
  const client = sessions.get(conn);
  return { kind: 'mcp', label: client ? `MCP: ${client}` : 'MCP client' };
}

/** The `site` of a local MCP server's calls in the log: `mcp:<server>`. */
export const SERVER_SITE = 'mcp:';

/**
 * Who made a local MCP server's call (the host's `agent_server_call` names it).
 * @param {unknown} caller 'agent' | 'inspector'
 * @returns {Caller}
 */
export function serverCaller(caller) {
  return caller === 'inspector' ? { kind: 'inspector', label: 'Inspector' } : { kind: 'agent', label: 'Side panel agent' };
}

const cut = (s, max) => (typeof s === 'string' && s.length > max
  ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s);
const cap = (s) => cut(s, MAX_LOGGED_CHARS);

/** Whether a call types text into a page (browser_type): what it types is never kept. */
const typesText = (site, tool) => site === 'browser' && tool === 'type';

/**
 * A call's arguments as the log keeps them: what browser_type typed and any field named like a
 * password or key masked (the log is shown and exported), then cut to MAX_ARGS_CHARS of JSON.
 * @param {string} site @param {string} tool @param {any} args
 */
export function logArgs(site, tool, args) {
  // Already cut (a string): as it is, so exporting it twice cuts nothing more.
  if (typeof args === 'string') return args.length > MAX_ARGS_CHARS + 64 ? cut(args, MAX_ARGS_CHARS) : args;
  let out = mask(args ?? {}, 0);
  if (typesText(site, tool) && out && typeof out === 'object' && !Array.isArray(out) && 'text' in out) {
    out = { ...out, text: HIDDEN };
  }
  const json = safeJson(out);
  return json.length > MAX_ARGS_CHARS ? cut(json, MAX_ARGS_CHARS) : out;
}

function mask(v, depth) {
  if (!v || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(v)) return v.slice(0, 1000).map((x) => mask(x, depth + 1));
  const out = {};
  for (const [k, x] of Object.entries(v).slice(0, 1000)) out[k] = SECRET_KEY.test(k) ? HIDDEN : mask(x, depth + 1);
  return out;
}

/** A result as the log keeps it: browser_type's echo of the field's value masked, then cut. */
function logValue(site, tool, value) {
  if (typesText(site, tool)) {
    try {
      const text = JSON.parse(value);
      if (typeof text === 'string') {
        return JSON.stringify(text.replace(/Its value is now "(?:[^"\\]|\\.)*"/g, `Its value is now ${HIDDEN}`));
      }
    } catch { /* not JSON text: kept as is, cut */ }
  }
  return cap(value);
}

/** Roughly what an entry holds, for the log's total budget. */
const sizeOf = (e) => (typeof e.args === 'string' ? e.args.length : safeJson(e.args).length)
  + (e.value?.length ?? 0) + (e.error?.message?.length ?? 0) + (e.rec ? safeJson(e.rec).length : 0) + 200;

const str = (v, max) => (typeof v === 'string' ? v.slice(0, max) : '');

/**
 * A browser call's record (background/skill-recorder.js) as the log keeps it: known fields
 * only, capped. Null for anything else.
 * @param {any} rec @returns {Rec|null}
 */
export function logRec(rec) {
  if (!rec || typeof rec !== 'object') return null;
  /** @type {Rec} */
  const out = { tabId: Number.isInteger(rec.tabId) ? rec.tabId : null, url: str(rec.url, 2000), urlAfter: str(rec.urlAfter, 2000) };
  const t = rec.target;
  if (t === null) out.target = null;
  else if (t && typeof t === 'object' && typeof t.selector === 'string') {
    out.target = { selector: str(t.selector, 1024), desc: str(t.desc, 200), role: str(t.role, 40) };
    if (typeof t.checked === 'boolean') out.target.checked = t.checked;
  }
  const rows = rec.rows;
  if (rows && typeof rows === 'object' && typeof rows.list === 'string' && rows.list) {
    out.rows = { list: str(rows.list, 1024) };
    if (rows.fields && typeof rows.fields === 'object') {
      out.rows.fields = Object.fromEntries(Object.entries(rows.fields).slice(0, 16)
        .filter(([, f]) => typeof f?.selector === 'string').map(([k, f]) => [str(k, 64), { selector: str(f.selector, 256) }]));
    }
  }
  return out;
}

export class OpLog {
  /** @param {{max?: number, maxChars?: number}} [opts] */
  constructor({ max = MAX_ENTRIES, maxChars = MAX_TOTAL_CHARS } = {}) {
    this.max = max;
    this.maxChars = maxChars;
    this.chars = 0;
    /** @type {Entry[]} oldest first */
    this.list = [];
    /** @type {Map<string, Entry>} running calls by id */
    this.running = new Map();
    /** @type {WeakMap<Entry, number>} what each entry counts in `chars` */
    this.sizes = new WeakMap();
  }

  /** @param {Entry} entry */
  _count(entry) {
    const size = sizeOf(entry);
    this.chars += size - (this.sizes.get(entry) ?? 0);
    this.sizes.set(entry, size);
    // The newest entry always stays, whatever it holds (each is capped anyway).
    while (this.list.length > 1 && (this.list.length > this.max || this.chars > this.maxChars)) {
      const gone = /** @type {Entry} */ (this.list.shift());
      this.chars -= this.sizes.get(gone) ?? 0;
      if (this.running.get(gone.id) === gone) this.running.delete(gone.id);
    }
  }

  /**
   * A call started. `now` is epoch ms, `mono` a monotonic clock (performance.now()).
   * @returns {Entry}
   */
  start(id, who, site, tool, args, now, mono) {
    const s = String(site ?? ''), t = String(tool ?? '');
    /** @type {Entry} */
    const entry = { id, time: now, who, site: s, tool: t, args: logArgs(s, t, args), state: 'running', _t0: mono };
    this.running.set(id, entry);
    this.list.push(entry);
    this._count(entry);
    return entry;
  }

  /**
   * The call's result. Unknown ids (results for calls we never saw) give null.
   * @param {string} id
   * @param {{ok: boolean, value?: string|null, error?: {code: string, message: string}|null}} result
   * @param {number} mono
   * @param {any} [rec] a browser call's record (skill-recorder.js), kept as `entry.rec`
   * @param {number|null} [ms] the call's duration as its runner measured it
   * @returns {Entry|null}
   */
  finish(id, result, mono, rec = null, ms = null) {
    const entry = this.running.get(id);
    if (!entry) return null;
    this.running.delete(id);
    // A duration measured where the call ran (the host, for local servers) is the truer one.
    entry.ms = typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? Math.round(ms * 10) / 10
      : Math.round((mono - (entry._t0 ?? mono)) * 10) / 10;
    if (result.ok) {
      entry.state = 'ok';
      entry.value = logValue(entry.site, entry.tool, result.value ?? 'undefined');
    } else {
      entry.state = 'error';
      entry.error = { code: String(result.error?.code ?? 'internal').slice(0, 100), message: cap(result.error?.message ?? '') };
    }
    const kept = entry.site === 'browser' ? logRec(rec) : null;
    if (kept) entry.rec = kept;
    this._count(entry);
    return entry;
  }

  clear() {
    this.list = [];
    this.running.clear();
    this.chars = 0;
  }
}

/**
 * Entries matching a filter: `text` (in tool, site, caller, args, result or error; case-
 * insensitive), `who` (a caller kind or '' for all), `state` ('ok' | 'error' | 'running' | '').
 * @param {Entry[]} entries
 * @param {{text?: string, who?: string, state?: string}} filter
 */
export function filterEntries(entries, { text = '', who = '', state = '' } = {}) {
  const needle = text.trim().toLowerCase();
  return entries.filter((e) => {
    if (who && e.who.kind !== who) return false;
    if (state && e.state !== state) return false;
    if (!needle) return true;
    const hay = [e.tool, e.site, e.who.label, safeJson(e.args), e.value ?? '', e.error?.message ?? '']
      .join('\n').toLowerCase();
    return hay.includes(needle);
  });
}

function safeJson(v) {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/**
 * The log as a JSON document for a file: ISO times, results parsed back from JSON text when
 * they are JSON, no internal fields.
 * @param {Entry[]} entries
 * @returns {string}
 */
export function exportJson(entries) {
  const out = entries.map((e) => {
    const row = {
      time: new Date(e.time).toISOString(), caller: e.who.label, callerKind: e.who.kind,
      // Masked again: entries may come from an older worker that kept them whole.
      site: e.site, tool: e.tool, args: logArgs(e.site, e.tool, e.args), status: e.state,
    };
    if (e.ms !== undefined) row.durationMs = e.ms;
    if (e.state === 'ok') row.result = parseMaybe(e.value);
    if (e.error) row.error = e.error;
    if (e.rec) row.recorded = logRec(e.rec);
    return row;
  });
  return JSON.stringify({ exported: new Date().toISOString(), calls: out }, null, 2);
}

function parseMaybe(text) {
  if (text === undefined || text === 'undefined') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
