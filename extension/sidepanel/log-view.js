// The operation log: every tool call the worker routed (agent, MCP clients, Inspector), with a
// filter and a JSON export.

import { exportJson, filterEntries, MAX_ENTRIES } from '../lib/oplog.js';
import { argsPreview, fmtMs, fmtTime, h, pretty } from './dom.js';

const SHOWN_MAX = 300;
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
    this.list = h('div', { class: 'log-list', role: 'list' });
    root.append(
      h('div', { class: 'toolbar wrap' }, this.text,
        h('button', { type: 'button', class: 'ghost', title: 'Save the calls shown as a JSON file', on: { click: () => this.export() } }, 'Export JSON'),
        h('button', { type: 'button', class: 'ghost', on: { click: () => this.app.send({ type: 'oplog_clear' }) } }, 'Clear')),
      h('div', { class: 'toolbar selects' }, this.who, this.state),
      h('div', { class: 'log-summary' }, this.summary),
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
        h('span', { class: `pill ${e.state === 'ok' ? 'done' : e.state}`, text: e.state === 'ok' ? 'ok' : e.state === 'error' ? e.error?.code ?? 'error' : 'running…' })),
      h('div', { class: 'log-body' },
        h('div', { class: 'muted small', text: `${e.site} · ${argsPreview(e.args, 200) || 'no arguments'}` }),
        h('div', { class: 'label', text: 'Arguments' }), h('pre', { text: pretty(e.args) }),
        e.state === 'ok' ? [h('div', { class: 'label', text: 'Result' }), h('pre', { class: 'result', text: pretty(e.value ?? '') })] : null,
        e.state === 'error' ? h('div', { class: 'card-error', text: e.error?.message ?? '' }) : null));
    details.addEventListener('toggle', () => (details.open ? this.open.add(e.id) : this.open.delete(e.id)));
    return details;
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
