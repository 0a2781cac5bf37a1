// "Save as skill", the steps (lib/skills/draft.js has the whole draft): each recorded browser
// call becomes the skill steps that repeat it, with typed text and choices turned into the
// tool's parameters and the page's first selectors into its health check; what looks secret in
// what it would copy literally is taken out (draft-secrets.js) and `removed` says so. Pure.

import { maskedText, selectorWithoutSecrets, textWithoutSecrets } from './draft-secrets.js';

/**
 * @typedef {import('./draft.js').DraftOptions} DraftOptions
 * @typedef {import('./draft.js').RecordedCall} RecordedCall
 * @typedef {import('./draft.js').Draft} Draft
 */

/** What oplog.js keeps of browser_type's text. */
const HIDDEN = '[hidden]';
const MAX_STEPS = 64;
const MAX_HEALTH = 3;
const MAX_DESCRIPTION = 8192;
const MAX_SELECTOR = 1024;
const MAX_TIMEOUT_MS = 60_000;
// Any `{{...}}` in a literal would be read as a template by the host and the runner; the
// template language has no escape, so a step whose page-made text holds one is left out.
const LOOKS_LIKE_TEMPLATE = /\{\{[\s\S]*?\}\}/;

export class DraftError extends Error {}

/** No `{{...}}` in any of the values (page-made text that would read as a template). */
export const literalOk = (...values) => values.every((v) => v === undefined || v === null || !LOOKS_LIKE_TEMPLATE.test(String(v)));

/**
 * A template name from a field's label or name: `Quantity` -> `quantity`, `E-mail address` ->
 * `e_mail_address`; `fallback` when nothing usable is left.
 * @param {unknown} label @param {string} [fallback]
 */
export function paramName(label, fallback = 'text') {
  let s = String(label ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').replace(/_{2,}/g, '_').slice(0, 48).replace(/_+$/, '');
  if (!s) return fallback;
  if (/^[0-9]/.test(s)) s = `_${s}`;
  return s;
}

/** The accessible name in a desc (`textbox "Quantity"` -> `Quantity`), else ''. */
const nameInDesc = (desc) => /"(.*)"$/.exec(String(desc ?? ''))?.[1] ?? '';
/** The `name` attribute a selector names, else ''. */
const nameInSelector = (sel) => /\[name="((?:[^"\\]|\\.)*)"\]/.exec(String(sel ?? ''))?.[1] ?? '';

export class Builder {
  /** @param {DraftOptions & {params: Record<string, string>}} o @param {string[]} notes */
  constructor(o, notes) {
    this.o = o;
    this.notes = notes;
    /** @type {any[]} */
    this.steps = [];
    /** @type {number[]} the calls the steps came from */
    this.calls = [];
    /** parameter name -> {field, key} */
    this.params = new Map();
    /** what a parameter stands for (`text:<typed>` or `field:<selector>`) -> its name */
    this.byKey = new Map();
    /** @type {string[]} what was taken out because it looked secret, in words (values masked) */
    this.removed = [];
    /** @type {string[]} */
    this.health = [];
    this.healthOpen = true; // still on the first page, before anything changed it
    this.lastNavigated = false;
    /** @type {{index: number, n: number|undefined, step: any, wait?: any}|null} the last read: its extract goes where it happened */
    this.read = null;
    this.full = false;
  }

  step(c, step) {
    if (this.steps.length >= MAX_STEPS - 2) {
      if (!this.full) this.notes.push(`The run is longer than a skill tool's ${MAX_STEPS} steps: the rest was left out.`);
      this.full = true;
      return;
    }
    this.steps.push(step);
    if (Number.isInteger(c.n)) this.calls.push(/** @type {number} */ (c.n));
  }

  /** The element a ref-based call acted on, or null (with a note) when it cannot be named. */
  selectorOf(c) {
    const sel = c.target?.selector;
    if (typeof sel !== 'string' || !sel || sel.length > MAX_SELECTOR) {
      this.notes.push(`browser_${c.tool}${c.args?.ref ? ` on ${String(c.args.ref).slice(0, 20)}` : ''} was left out: no selector was recorded for its element${c.target === null ? ' (it sits where CSS cannot reach, e.g. in a shadow tree)' : ''}.`);
      return null;
    }
    if (!literalOk(sel)) {
      this.notes.push(`browser_${c.tool} was left out: its element's selector holds {{…}}, which a skill would read as a template.`);
      return null;
    }
    return selectorWithoutSecrets(this, c, sel);
  }

  /** The parameter for a secret taken out of an address (one per value). */
  urlParam(key, rawName, shown) {
    const had = this.byKey.get(key);
    if (had) return had;
    let name = paramName(rawName, 'token');
    if (this.params.has(name)) {
      let k = 2;
      while (this.params.has(`${name.slice(0, 60)}_${k}`)) k++;
      name = `${name.slice(0, 60)}_${k}`;
    }
    this.params.set(name, {
      field: `the address ${shown}`,
      description: `Goes into the address ${shown} (the recorded value looked secret and was taken out of the draft).`,
    });
    this.byKey.set(key, name);
    return name;
  }

  noteHealth(sel, changes) {
    if (this.healthOpen && sel && !this.health.includes(sel) && this.health.length < MAX_HEALTH) this.health.push(sel);
    if (changes) this.healthOpen = false;
  }

  /** The parameter for recorded text (or, when it was not kept, for the field it went into). */
  param(c, text, { select = false } = {}) {
    const known = typeof text === 'string' && text !== HIDDEN;
    if (select && !(known && Object.hasOwn(this.o.params, text))) return null; // options stay literal unless named
    const key = known ? `text:${text}` : `field:${c.target?.selector}`;
    const had = this.byKey.get(key);
    if (had) return had;
    const field = c.target?.desc || c.target?.selector || 'a field';
    let name = known && Object.hasOwn(this.o.params, text) ? this.o.params[text]
      : paramName(nameInDesc(c.target?.desc) || nameInSelector(c.target?.selector) || c.target?.role, 'text');
    if (this.params.has(name)) {
      let k = 2;
      while (this.params.has(`${name.slice(0, 60)}_${k}`)) k++;
      name = `${name.slice(0, 60)}_${k}`;
    }
    this.params.set(name, { field });
    this.byKey.set(key, name);
    return name;
  }

  /** @param {RecordedCall} c @param {boolean} firstPage @param {boolean} prevNavigated */
  call(c, firstPage, prevNavigated) {
    if (!firstPage) this.healthOpen = false;
    const a = c.args ?? {};
    switch (c.tool) {
      case 'click': {
        const sel = this.selectorOf(c);
        if (!sel) return;
        if (a.button && a.button !== 'left') this.notes.push(`A ${a.button}-button click became a plain click.`);
        if (a.double) this.notes.push('A double-click became a single click.');
        const role = c.target?.role;
        if ((role === 'checkbox' || role === 'radio' || role === 'switch') && typeof c.target?.checked === 'boolean') {
          this.step(c, { action: 'check', selector: sel, checked: c.target.checked });
        } else {
          this.step(c, { action: 'click', selector: sel });
        }
        this.noteHealth(sel, true);
        return;
      }
      case 'type': {
        const sel = this.selectorOf(c);
        if (!sel) return;
        const p = this.param(c, a.text);
        const value = `{{${p}}}`;
        this.step(c, a.clear === false ? { action: 'type', selector: sel, text: value, clear: false } : { action: 'fill', selector: sel, value });
        this.noteHealth(sel, false);
        if (a.submit) {
          this.step(c, { action: 'press', key: 'Enter', selector: sel });
          this.healthOpen = false;
        }
        return;
      }
      case 'press_key': {
        const key = String(a.key ?? '');
        if (!key || (key.length > 1 && key.includes('+'))) {
          this.notes.push(`The key ${JSON.stringify(key.slice(0, 40))} was left out: a skill's press step takes one key, not a combination.`);
          return;
        }
        const sel = a.ref ? this.selectorOf(c) : null;
        if (a.ref && !sel) return;
        if (!literalOk(key)) return;
        this.step(c, sel ? { action: 'press', key, selector: sel } : { action: 'press', key });
        this.noteHealth(sel, true);
        return;
      }
      case 'select_option': {
        const sel = this.selectorOf(c);
        if (!sel) return;
        const values = (Array.isArray(a.values) ? a.values : [a.values]).filter((v) => typeof v === 'string');
        if (!values.length || !literalOk(...values)) {
          this.notes.push('A drop-down choice was left out: its option was not recorded as usable text.');
          return;
        }
        const named = values.map((v) => this.param(c, v, { select: true }));
        const vals = values.map((v, k) => (named[k] ? `{{${named[k]}}}` : v));
        this.step(c, vals.length === 1 ? { action: 'select', selector: sel, value: vals[0] } : { action: 'select', selector: sel, values: vals });
        this.noteHealth(sel, true);
        return;
      }
      case 'scroll': {
        if (!a.ref) {
          this.notes.push('A scroll by direction was left out (a skill scrolls to an element, or to the top or bottom).');
          return;
        }
        const sel = this.selectorOf(c);
        if (sel) this.step(c, { action: 'scroll', selector: sel });
        return;
      }
      case 'wait_for': {
        const timeout = Number.isFinite(a.timeout_s) && a.timeout_s > 0 ? { timeout_ms: Math.min(MAX_TIMEOUT_MS, Math.max(1, Math.round(a.timeout_s * 1000))) } : {};
        if (a.navigation) {
          // A navigation the last action made is waited for by the runner itself; a wait that
          // began after it would wait for yet another one.
          if (!prevNavigated) this.step(c, { action: 'wait_for', navigation: true, ...timeout });
          return;
        }
        if (typeof a.text === 'string' && a.text.trim()) {
          if (a.gone) {
            this.notes.push('A wait for text to disappear was left out (a skill waits for text to appear, or for an element to go).');
          } else if (literalOk(a.text)) {
            const text = textWithoutSecrets(this, a.text);
            if (text) this.step(c, { action: 'wait_for', text, ...timeout });
          }
          return;
        }
        if (a.ref) {
          const sel = this.selectorOf(c);
          if (sel) this.step(c, { action: 'wait_for', selector: sel, ...(a.gone ? { gone: true } : {}), ...timeout });
        }
        return;
      }
      case 'page_text':
      case 'snapshot': {
        if (c.tool === 'snapshot' && !a.ref) return; // a whole outline is for finding refs, not a result
        // A read of the whole page that had a list on it (a table's rows, results): those rows,
        // waited for (a list extract does not wait); else the page's text.
        const rows = !a.ref && typeof c.rows?.list === 'string' && c.rows.list.length <= MAX_SELECTOR && literalOk(JSON.stringify(c.rows))
          ? c.rows : null;
        if (rows) {
          this.read = { index: this.steps.length, n: c.n, wait: { action: 'wait_for', selector: rows.list },
            step: { action: 'extract', as: 'result', list: rows.list, ...(rows.fields ? { fields: rows.fields } : {}), limit: 50 } };
          return;
        }
        const sel = a.ref ? this.selectorOf(c) : 'body';
        if (!sel) return;
        this.read = { index: this.steps.length, n: c.n, step: { action: 'extract', as: 'result', selector: sel } };
        return;
      }
      case 'hover':
        this.notes.push('A hover was left out (skills have no hover step).');
        return;
      case 'upload_file':
        this.notes.push('A file upload was left out (skills cannot choose files).');
        return;
      default:
        this.notes.push(`browser_${c.tool} was left out.`);
    }
  }

  /** @param {string} match @param {string} start @returns {Draft} */
  finish(match, start) {
    const steps = [...this.steps];
    const explicit = this.o.extract;
    let ret = /** @type {string|null} */ (null);
    const as = this.params.has('result') ? 'result_' : 'result';
    if (explicit && typeof explicit === 'object') {
      const { selector, attribute, all, list, fields, limit } = explicit;
      const ex = list ? { action: 'extract', as, list, fields, ...(limit ? { limit } : {}) }
        : { action: 'extract', as, selector, ...(attribute ? { attribute } : {}), ...(all ? { all: true } : {}) };
      steps.push(ex);
      ret = as;
    } else if (this.read) {
      steps.splice(this.read.index, 0, ...(this.read.wait ? [this.read.wait] : []), { ...this.read.step, as });
      if (Number.isInteger(this.read.n)) this.calls = [...this.calls, /** @type {number} */ (this.read.n)].sort((x, y) => x - y);
      ret = as;
    }
    if (!steps.some((s) => s.action !== 'navigate' && s.action !== 'wait_for')) {
      throw new DraftError('The run has nothing a skill can repeat: no click, typing, choice, key or read on a page (with refs from browser_snapshot).');
    }
    if (ret) steps.push({ action: 'return', value: `{{${ret}}}` });
    const u = new URL(start);
    const where = `${u.host}${maskedText(u.pathname)}`;
    const did = summary(steps);
    const description = cap(this.o.description?.trim() || `Repeats a run recorded on ${where}: ${did}.`);
    const names = [...this.params.keys()];
    /** @type {any} */
    const tool = {
      name: this.o.toolName,
      ...(this.o.title ? { title: String(this.o.title).slice(0, 256) } : {}),
      description,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(names.map((n) => [n, {
          type: 'string', description: cap(this.params.get(n).description ?? `Typed into ${this.params.get(n).field}.`),
        }])),
        required: names,
      },
      steps,
    };
    /** @type {any} */
    const skill = {
      name: this.o.name,
      version: '0.1.0',
      description: cap(this.o.description?.trim() || `Recorded on ${where}.`),
      match: [match],
      ...(this.health.length ? { health: { selectors: this.health } } : {}),
      tools: [tool],
    };
    const removed = this.removed.map((r) => `Taken out as a secret: ${r}.`);
    return {
      skill, notes: [...this.notes, ...removed], calls: this.calls, removed: this.removed,
      params: names.map((n) => ({ name: n, field: this.params.get(n).field })),
    };
  }
}

const cap = (s) => (s.length > MAX_DESCRIPTION ? `${s.slice(0, MAX_DESCRIPTION - 1)}…` : s);

/** `fill, click, extract` in words, for the default description. */
function summary(steps) {
  const words = { fill: 'fill', type: 'type', click: 'click', check: 'check', select: 'choose', press: 'press', navigate: 'go to',
    wait_for: 'wait', scroll: 'scroll', extract: 'read', return: null };
  const out = [];
  for (const s of steps) {
    const w = words[s.action];
    if (w && out[out.length - 1] !== w) out.push(w);
  }
  return out.join(', ') || 'nothing';
}
