// The operation log: every tool call the service worker routes, whoever made it (the side
// panel's agent, an MCP client, the Inspector), with its outcome and duration.
// Pure: the worker feeds it calls and results; the panel filters and exports it.

/** Results longer than this are cut in the log (the caller still gets the whole value). */
export const MAX_LOGGED_CHARS = 20_000;

/**
 * @typedef {{kind: 'agent'|'mcp'|'inspector'|'host', label: string}} Caller
 * @typedef {{id: string, time: number, who: Caller, site: string, tool: string, args: any,
 *   state: 'running'|'ok'|'error', value?: string, error?: {code: string, message: string},
 *   ms?: number, _t0?: number}} Entry
 */

/**
 * Who made a call, from its id: the host's own calls are `h.N` (the side panel's agent), the
 * Inspector's `p.N`, an MCP session's `<conn>.N` (conn named by its `session` message).
 * @param {string} id
 * @param {Map<string, string>} sessions conn id -> MCP client name
 * @returns {Caller}
 */
export function callerOf(id, sessions) {
  if (id.startsWith('h.')) return { kind: 'agent', label: 'Side panel agent' };
  if (id.startsWith('p.')) return { kind: 'inspector', label: 'Inspector' };
  const conn = id.split('.', 1)[0];
  const client = sessions.get(conn);
  return { kind: 'mcp', label: client ? `MCP: ${client}` : 'MCP client' };
}

const cap = (s) => (typeof s === 'string' && s.length > MAX_LOGGED_CHARS
  ? `${s.slice(0, MAX_LOGGED_CHARS)}… (${s.length - MAX_LOGGED_CHARS} more characters)` : s);

export class OpLog {
  /** @param {{max?: number}} [opts] */
  constructor({ max = 1000 } = {}) {
    this.max = max;
    /** @type {Entry[]} oldest first */
    this.list = [];
    /** @type {Map<string, Entry>} running calls by id */
    this.running = new Map();
  }

  /**
   * A call started. `now` is epoch ms, `mono` a monotonic clock (performance.now()).
   * @returns {Entry}
   */
  start(id, who, site, tool, args, now, mono) {
    /** @type {Entry} */
    const entry = { id, time: now, who, site: String(site ?? ''), tool: String(tool ?? ''), args: args ?? {},
      state: 'running', _t0: mono };
    this.running.set(id, entry);
    this.list.push(entry);
    if (this.list.length > this.max) {
      const gone = this.list.splice(0, this.list.length - this.max);
      for (const e of gone) if (this.running.get(e.id) === e) this.running.delete(e.id);
    }
    return entry;
  }

  /**
   * The call's result. Unknown ids (results for calls we never saw) give null.
   * @param {string} id
   * @param {{ok: boolean, value?: string|null, error?: {code: string, message: string}|null}} result
   * @param {number} mono
   * @returns {Entry|null}
   */
  finish(id, result, mono) {
    const entry = this.running.get(id);
    if (!entry) return null;
    this.running.delete(id);
    entry.ms = Math.round((mono - (entry._t0 ?? mono)) * 10) / 10;
    if (result.ok) {
      entry.state = 'ok';
      entry.value = cap(result.value ?? 'undefined');
    } else {
      entry.state = 'error';
      entry.error = { code: result.error?.code ?? 'internal', message: cap(result.error?.message ?? '') };
    }
    return entry;
  }

  clear() {
    this.list = [];
    this.running.clear();
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
      site: e.site, tool: e.tool, args: e.args, status: e.state,
    };
    if (e.ms !== undefined) row.durationMs = e.ms;
    if (e.state === 'ok') row.result = parseMaybe(e.value);
    if (e.error) row.error = e.error;
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
