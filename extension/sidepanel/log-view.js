// The operation log: every tool call the worker routed (agent, MCP clients, Inspector), with a
// filter and a JSON export.

import { exportJson, filterEntries, MAX_ENTRIES } from '../lib/oplog.js';
import { callsFromLog } from '../lib/skills/draft.js';
import { argsPreview, fmtMs, fmtTime, h, pretty } from './dom.js';
import { saveAsSkill } from './skill-draft.js';

const SHOWN_MAX = 300;

/**
 * Where a call went, for its row: a local MCP server by its name, the browser tools, or a site.
 * @param {string} site the entry's `site`: `mcp:<server>`, `browser`, or host[:port]
 * @returns {{text: string, title: string}}
 */
export function whereOf(site) {
  const s = String(site ?? '');
  if (s.startsWith('mcp:')) return { text: `${s.slice(4)} (local MCP server)`, title: `your local MCP server ${s.slice(4)}` };
  if (s === 'browser') return { text: 'the browser', title: 'a browser tool' };
  return { text: s, title: `the site ${s}` };
}
/** As many as the worker keeps (lib/oplog.js). */
const KEEP = MAX_ENTRIES;

export class LogView {
  /** @param {HTMLElement} root @param {any} app @param {HTMLElement} counter */
  constructor(root, app, counter) {
    this.app = app;
    this.counter = counter;
    /** @type {any[]} oldest first */
    this.entries = [];
    this.byId = new Map();
    this.open = new Set(); // ids whose details the user opened
    this.pending = 0;
    this.text = h('input', { type: 'search', placeholder: 'Filter: tool, site, args, result…', 'aria-label': 'Filter the log', on: { input: () => this.schedule() } });
    this.who = h('select', { 'aria-label': 'Caller', on: { change: () => this.schedule() } },
      h('option', { value: '' }, 'Everyone'), h('option', { value: 'agent' }, 'Side panel agent'),
      h('option', { value: 'mcp' }, 'MCP clients'), h('option', { value: 'inspector' }, 'Inspector'));
    this.state = h('select', { 'aria-label': 'Outcome', on: { change: () => this.schedule() } },
      h('option', { value: '' }, 'Any outcome'), h('option', { value: 'ok' }, 'OK'),
      h('option', { value: 'error' }, 'Errors'), h('option', { value: 'running' }, 'Running'));
    this.summary = h('span', { class: 'muted' });
    /** "Save as skill": the range of browser calls picked (ids; no end = up to the newest) */
    this.range = { start: '', end: '' };
    this.skillBar = h('div', { class: 'toolbar wrap skill-range', hidden: true });
    this.skillMsg = '';
    this.skillOk = false;
    this.list = h('div', { class: 'log-list', role: 'list' });
    root.append(
      h('div', { class: 'toolbar wrap' }, this.text,
        h('button', { type: 'button', class: 'ghost', title: 'Save the calls shown as a JSON file', on: { click: () => this.export() } }, 'Export JSON'),
        h('button', { type: 'button', class: 'ghost', on: { click: () => this.app.send({ type: 'oplog_clear' }) } }, 'Clear')),
      h('div', { class: 'toolbar selects' }, this.who, this.state),
      h('div', { class: 'log-summary' }, this.summary),
      this.skillBar,
      this.list,
    );
    this.render();
  }

  replace(entries) {
    this.entries = [...entries];
    this.byId = new Map(this.entries.map((e) => [e.id, e]));
    this.schedule();
  }

  upsert(entry) {
    const old = this.byId.get(entry.id);
    if (old) Object.assign(old, entry);
    else {
      this.entries.push(entry);
      this.byId.set(entry.id, entry);
      if (this.entries.length > KEEP) for (const gone of this.entries.splice(0, this.entries.length - KEEP)) this.byId.delete(gone.id);
    }
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      this.render();
    });
  }

  filtered() {
    return filterEntries(this.entries, { text: this.text.value, who: this.who.value, state: this.state.value });
  }

  render() {
    if (this.range.start) this.renderSkillBar();
    const shown = this.filtered();
    const errors = this.entries.filter((e) => e.state === 'error').length;
    this.counter.textContent = this.entries.length ? String(this.entries.length) : '';
    this.summary.textContent = `${shown.length} of ${this.entries.length} call${this.entries.length === 1 ? '' : 's'}` +
      (errors ? ` · ${errors} failed` : '');
    if (!this.entries.length) {
      this.list.replaceChildren(h('div', { class: 'empty' }, h('p', { class: 'empty-title', text: 'No calls yet' }),
        h('p', { class: 'muted', text: 'Every tool call shows up here: from the chat, from your MCP clients, and from the Inspector.' })));
      return;
    }
    this.list.replaceChildren(...shown.slice(-SHOWN_MAX).reverse().map((e) => this.row(e)));
  }

  row(e) {
    const details = h('details', { class: `log-row state-${e.state}`, role: 'listitem', 'data-id': e.id, 'data-tool': e.tool, open: this.open.has(e.id) },
      h('summary', {},
        h('span', { class: 'time muted', text: fmtTime(e.time) }),
        h('span', { class: `badge who-${e.who.kind}`, text: e.who.label }),
        h('span', { class: 'tool-name', text: e.tool }),
        h('span', { class: 'spacer' }),
        e.ms != null ? h('span', { class: 'muted ms', text: fmtMs(e.ms) }) : null,
        h('span', { class: `pill ${e.state === 'ok' ? 'done' : e.state}`, text: e.state === 'ok' ? 'ok' : e.state === 'error' ? e.error?.code ?? 'error' : 'running…' }),
        // A second line: where the call went, and its arguments in short.
        (() => {
          const where = whereOf(e.site);
          const args = argsPreview(e.args, 120);
          return h('span', { class: 'where muted', title: where.title },
            h('span', { class: 'where-name', text: where.text }), args ? ` · ${args}` : '');
        })()),
      h('div', { class: 'log-body' },
        h('div', { class: 'muted small', text: `${e.site} · ${argsPreview(e.args, 200) || 'no arguments'}` }),
        h('div', { class: 'label', text: 'Arguments' }), h('pre', { text: pretty(e.args) }),
        e.state === 'ok' ? [h('div', { class: 'label', text: 'Result' }), h('pre', { class: 'result', text: pretty(e.value ?? '') })] : null,
        e.state === 'error' ? h('div', { class: 'card-error', text: e.error?.message ?? '' }) : null,
        e.site === 'browser' && e.rec?.tabId != null ? h('div', { class: 'form-actions' },
          h('button', { type: 'button', class: 'ghost small', title: 'Save as skill: the browser calls from this one on, by the same caller on the same tab',
            on: { click: () => this.pick('start', e.id) } }, this.range.start === e.id ? 'Skill starts here' : 'Start skill here'),
          this.range.start ? h('button', { type: 'button', class: 'ghost small', on: { click: () => this.pick('end', e.id) } },
            this.range.end === e.id ? 'Skill ends here' : 'End skill here') : null) : null));
    details.addEventListener('toggle', () => (details.open ? this.open.add(e.id) : this.open.delete(e.id)));
    return details;
  }

  // --- Save as skill: a range of one caller's browser calls on one tab ---

  /** @param {'start'|'end'} which @param {string} id */
  pick(which, id) {
    this.range[which] = id;
    if (which === 'start') this.range.end = '';
    this.skillMsg = '';
    this.renderSkillBar();
    this.schedule();
  }

  /** The calls of the picked range: the start's caller and tab only. */
  rangeCalls() {
    const i = this.entries.findIndex((e) => e.id === this.range.start);
    if (i < 0) return [];
    const first = this.entries[i];
    const j = this.range.end ? this.entries.findIndex((e) => e.id === this.range.end) : this.entries.length - 1;
    const picked = this.entries.slice(i, Math.max(i, j) + 1)
      .filter((e) => e.site === 'browser' && e.who.label === first.who.label && e.rec?.tabId === first.rec?.tabId);
    return callsFromLog(picked);
  }

  renderSkillBar() {
    const calls = this.range.start ? this.rangeCalls() : [];
    this.skillBar.hidden = !this.range.start;
    if (!this.range.start) return;
    this.skillBar.replaceChildren(
      h('span', { class: 'muted', text: `Save as skill: ${calls.length} browser call${calls.length === 1 ? '' : 's'} on one tab${this.range.end ? '' : ', up to the newest'}.` }),
      h('button', { type: 'button', class: 'primary small', disabled: !calls.length, on: { click: () => this.saveSkill() } }, 'Save as skill'),
      h('button', { type: 'button', class: 'ghost small', on: { click: () => this.pick('start', '') } }, 'Cancel'),
      h('p', { class: `form-msg ${this.skillOk ? 'ok' : 'error'}`, role: 'status', hidden: !this.skillMsg, text: this.skillMsg }));
  }

  saveSkill() {
    const r = saveAsSkill(this.rangeCalls());
    this.skillMsg = r.message;
    this.skillOk = r.ok;
    this.renderSkillBar();
  }

  export() {
    const blob = new Blob([exportJson(this.filtered())], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const a = h('a', { href: url, download: `webmcp-sidecar-log-${stamp}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
