// "Save as skill", the worker's side: each browser call is recorded per session as it finishes
// (its tab, the page before and after, and for a ref the element as a CSS selector, made in the
// page *before* the call acts, since refs die with their document); the `skill_draft` browser
// tool turns a session's recent calls on its current tab into a skill draft (lib/skills/draft.js);
// the operation log gets the same record with each entry (panel-bridge.js takes it).

import { buildDraft, DraftError } from '../lib/skills/draft.js';
import { inPage, ToolError } from './page-calls.js';

/** Calls kept per session (the newest), and sessions kept (the most recently active). */
const MAX_CALLS = 200;
const MAX_SESSIONS = 32;
const MAX_TEXT = 2000;
const HIDDEN = '[hidden]';
const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

/**
 * What a running call learns for its record (CallCtx.rec): set as the call finds its tab and
 * its element.
 * @typedef {{tabId: number|null, url: string, target?: import('../lib/skills/draft.js').Target|null,
 *   rows?: import('../lib/skills/draft.js').Rows, selectorMs?: number}} CallRecord
 * @typedef {import('../lib/skills/draft.js').RecordedCall & {n: number, selectorMs?: number}} Recorded
 */

/** @returns {CallRecord} */
export const newRecord = () => ({ tabId: null, url: '' });

/**
 * Records the element `ref` names as a selector (page agent op `selector_for`), before the call
 * acts on it. Never fails the call: an element CSS cannot reach is recorded as null, a bad ref
 * is left to the call's own op to report. One executeScript, run alongside the call's first op.
 * @param {{rec: CallRecord}} ctx @param {number} tabId @param {string|undefined} ref
 */
export async function noteTarget(ctx, tabId, ref) {
  if (!ref) return;
  const t0 = performance.now();
  try {
    const r = await inPage(tabId, 'selector_for', { ref });
    ctx.rec.target = {
      selector: String(r.selector).slice(0, 1024), desc: String(r.desc ?? '').slice(0, 200), role: String(r.role ?? '').slice(0, 40),
    };
  } catch (e) {
    if (e instanceof ToolError && e.code === 'invalid_args') ctx.rec.target = null; // a shadow tree: no selector reaches it
  } finally {
    ctx.rec.selectorMs = Math.round((performance.now() - t0) * 10) / 10;
  }
}

/**
 * A read of the whole page: its main repeated element (page agent op `rows`: a table's rows, a
 * list of results), so a draft extracts those rather than the page's text. Never fails the call.
 * @param {{rec: CallRecord}} ctx @param {number} tabId
 */
export async function noteRows(ctx, tabId) {
  try {
    const r = await inPage(tabId, 'rows');
    if (typeof r?.list !== 'string' || !r.list) return;
    const fields = r.fields && typeof r.fields === 'object' ? Object.fromEntries(Object.entries(r.fields).slice(0, 16)
      .filter(([k, f]) => typeof k === 'string' && typeof f?.selector === 'string')
      .map(([k, f]) => [k.slice(0, 64), { selector: String(f.selector).slice(0, 256) }])) : null;
    ctx.rec.rows = { list: r.list.slice(0, 1024), ...(fields && Object.keys(fields).length ? { fields } : {}) };
  } catch {
    // the page went away, or cannot be scripted: the draft reads the page's text
  }
}

/**
 * After a click on a checkbox or radio: its state, so the draft says `check` with the state the
 * run left it in (a click only toggles). Null when it cannot be told.
 * @param {{rec: CallRecord}} ctx @param {number} tabId
 */
export async function noteChecked(ctx, tabId) {
  const t = ctx.rec.target;
  if (!t || !CHECKABLE.has(t.role ?? '')) return;
  try {
    const [res] = await chrome.scripting.executeScript({
      target: { tabId, frameIds: [0] }, world: 'ISOLATED', args: [t.selector],
      func: (sel) => {
        // Runs in the page (no DOM types in the worker's config).
        const el = /** @type {any} */ (globalThis).document.querySelector(sel);
        if (!el) return null;
        if ('checked' in el && typeof el.checked === 'boolean') return el.checked;
        const aria = el.getAttribute('aria-checked');
        return aria === 'true' ? true : aria === 'false' ? false : null;
      },
    });
    t.checked = typeof res?.result === 'boolean' ? res.result : null;
  } catch {
    t.checked = null; // the page went away (the click navigated): a plain click then
  }
}

// The record of a call that is finishing, handed to the operation log while its result is sent
// (routes.js sends a result to panel-bridge.js's callFinished synchronously, within send()).
/** @type {Map<string, object>} */
const handoff = new Map();

/** Runs `send` with `rec` available to takeRecord(id). */
export function withRecord(id, rec, send) {
  handoff.set(id, rec);
  try {
    return send();
  } finally {
    handoff.delete(id);
  }
}

/** @param {string} id @returns {any} the record of call `id` while its result is being sent */
export const takeRecord = (id) => handoff.get(id) ?? null;

/** The recorded calls of each session (MCP connection, or `panel`), for drafts. */
export class SkillRecorder {
  constructor() {
    /** @type {Map<string, {n: number, calls: Recorded[]}>} most recently active last */
    this.sessions = new Map();
  }

  /**
   * A call finished: recorded under the session's next number (the client's count of its
   * browser calls, failed ones included).
   * @param {string} session @param {string} tool @param {any} args @param {boolean} ok
   * @param {CallRecord & {urlAfter?: string}} rec
   * @returns {Recorded}
   */
  add(session, tool, args, ok, rec) {
    let s = this.sessions.get(session);
    if (s) this.sessions.delete(session);
    s ??= { n: 0, calls: [] };
    this.sessions.set(session, s);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(/** @type {string} */ (this.sessions.keys().next().value));
    /** @type {Recorded} */
    const call = {
      n: ++s.n, tool, args: keptArgs(args), ok, tabId: rec.tabId, url: rec.url, urlAfter: rec.urlAfter ?? '',
      ...(rec.target !== undefined ? { target: rec.target } : {}),
      ...(rec.rows ? { rows: rec.rows } : {}),
      ...(rec.selectorMs !== undefined ? { selectorMs: rec.selectorMs } : {}),
    };
    s.calls.push(call);
    if (s.calls.length > MAX_CALLS) s.calls.splice(0, s.calls.length - MAX_CALLS);
    return call;
  }

  /** @param {string} session @returns {Recorded[]} */
  calls(session) {
    return this.sessions.get(session)?.calls ?? [];
  }

  /** For the side panel: typed text masked, as the operation log does. */
  shown(session) {
    return this.calls(session).map((c) => (c.tool === 'type' && c.args && 'text' in c.args ? { ...c, args: { ...c.args, text: HIDDEN } } : c));
  }
}

/** Arguments as kept: short strings, no huge lists (a draft needs refs, text, keys, urls). */
function keptArgs(args) {
  if (!args || typeof args !== 'object') return {};
  const out = {};
  for (const [k, v] of Object.entries(args).slice(0, 32)) {
    if (typeof v === 'string') out[k] = v.slice(0, MAX_TEXT);
    else if (Array.isArray(v)) out[k] = v.slice(0, 32).map((x) => (typeof x === 'string' ? x.slice(0, MAX_TEXT) : x));
    else if (v === null || typeof v !== 'object') out[k] = v;
    else if (k === 'params' || k === 'extract') out[k] = v;
  }
  return out;
}

/**
 * @typedef {import('./browser-tools.js').BrowserTool} BrowserTool
 */

/** @type {Record<string, BrowserTool>} */
export const RECORDER_TOOLS = {
  skill_draft: {
    async run(env, ctx) {
      const tab = await env.target(ctx);
      const a = ctx.args;
      const all = env.recorder.calls(ctx.session);
      let from = a.from;
      if (from !== undefined && (!Number.isInteger(from) || from < 1)) throw new ToolError('invalid_args', '`from` is a call number, 1 for your first browser call.');
      // Default: the run since this session's last draft.
      from ??= ([...all].reverse().find((c) => c.tool === 'skill_draft')?.n ?? 0) + 1;
      const chosen = all.filter((c) => c.n >= from && c.tabId === tab.id);
      const notes = [];
      if (all.length && all[0].n > from) notes.push(`Only your last ${all.length} browser calls are kept: this draft starts at call ${all[0].n}.`);
      if (!chosen.length) {
        throw new ToolError('invalid_args', `You have made no browser calls on your current tab (${tab.id}) since call ${from}. ` +
          'Drive the page with browser_snapshot, browser_type, browser_click... first, or pass `from` (your calls count from 1).');
      }
      let draft;
      try {
        draft = buildDraft(chosen, {
          name: a.name, toolName: a.tool_name, description: a.description, params: a.params, extract: a.extract, tabId: tab.id,
        });
      } catch (e) {
        if (e instanceof DraftError) throw new ToolError('invalid_args', e.message);
        throw e;
      }
      return {
        skill: draft.skill,
        parameters: draft.params,
        calls: draft.calls,
        notes: [...notes, ...draft.notes],
        removed: draft.removed, // what looked secret and was taken out (also in notes)
        next: `Nothing is installed yet. Review the draft, save "skill" as ${draft.skill.name}.skill.json, and install it with ` +
          `\`webmcp-sidecar skills add ${draft.skill.name}.skill.json\`; its tool then joins the site's tools ` +
          `(<site>__${draft.skill.tools[0].name}) on the pages it matches.`,
      };
    },
  },
};
