// The editor of a user document (a skill, a chat-site adapter; docs/DOCUMENTS.md), one for every
// kind: its text, checked by the host as it is typed (`validate`: each problem with its line,
// column and field; a click puts the cursor there), and saved by the host (`save`). A view gives
// it the way to ask the host (its `panel_doc` requests) and adds what is its kind's own (the
// Skills view's "Test on this tab", skills-editor.js).

import { h } from './dom.js';
import { showProblems } from './problems-list.js';

/** Quiet typing this long before the text goes to the host for checking. */
const VALIDATE_AFTER_MS = 400;

/**
 * What differs between the kinds' editors: element ids (`<id>-text`, `-check`, `-save`,
 * `-save-msg`) and words.
 * @type {Record<string, {id: string, label: string, title: string, region: string, noun: string}>}
 */
export const EDITORS = {
  skills: { id: 'skill', label: 'Skill (JSON)', title: 'Editor', region: 'Skill editor', noun: 'skill' },
  chat_sites: { id: 'chat-site', label: 'Chat-site adapter (JSON)', title: 'Adapter', region: 'Adapter editor', noun: 'adapter' },
};

/**
 * @typedef {(op: 'validate'|'save', fields: {text: string}) => Promise<any>} Ask
 * @typedef {{opened?: () => void, changed?: () => void, saved?: () => void}} Hooks
 */

export class DocEditor {
  /** @param {string} kind a key of EDITORS @param {Ask} ask @param {Hooks} [hooks] */
  constructor(kind, ask, hooks = {}) {
    const e = EDITORS[kind];
    this.words = e;
    this.ask = ask;
    this.hooks = hooks;
    this.checkSeq = 0;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.timer = undefined;
    this.text = h('textarea', { id: `${e.id}-text`, class: 'skill-text', rows: 18, spellcheck: 'false', 'aria-label': e.label,
      on: { input: () => this.changed() } });
    this.check = h('div', { class: 'skill-check', id: `${e.id}-check`, 'aria-live': 'polite' });
    this.saveMsg = h('span', { class: 'form-msg', role: 'status', id: `${e.id}-save-msg` });
    this.saveBtn = h('button', { type: 'button', class: 'primary', id: `${e.id}-save`, on: { click: () => this.save() } }, 'Save');
    this.root = h('section', { class: 'skill-editor', hidden: true, 'aria-label': e.region },
      h('h3', {}, e.title), this.text, this.check,
      h('div', { class: 'form-actions' }, this.saveBtn, this.saveMsg, h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost', on: { click: () => this.close() } }, 'Close')));
  }

  /**
   * @param {string} text
   * @param {any} [checked] an answer that already holds this text's problems
   */
  open(text, checked) {
    this.root.hidden = false;
    this.text.value = text;
    this.saveMsg.textContent = '';
    this.hooks.opened?.();
    if (checked) this.show(checked);
    else void this.validate();
    this.root.scrollIntoView({ block: 'start' });
    this.text.focus();
  }

  close() {
    this.root.hidden = true;
    clearTimeout(this.timer);
  }

  changed() {
    this.saveMsg.textContent = '';
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.hooks.changed?.();
      void this.validate();
    }, VALIDATE_AFTER_MS);
  }

  /** The host's problems with the text as it is now; an older answer is dropped. */
  async validate() {
    const seq = ++this.checkSeq;
    const r = await this.ask('validate', { text: this.text.value });
    if (seq === this.checkSeq) this.show(r);
    return r;
  }

  /** @param {any} r a `validate` or `save` answer */
  show(r) {
    showProblems(this.check, this.text, r, this.words.noun);
  }

  async save() {
    this.saveBtn.disabled = true;
    const r = await this.ask('save', { text: this.text.value });
    this.saveBtn.disabled = false;
    this.show(r);
    this.saveMsg.className = `form-msg ${r.ok ? 'ok' : 'error'}`;
    this.saveMsg.textContent = r.ok ? 'Saved.' : r.problems?.length ? 'Not saved: fix the problems first.' : (r.error ?? 'Not saved.');
    if (r.ok) this.hooks.saved?.();
  }
}
