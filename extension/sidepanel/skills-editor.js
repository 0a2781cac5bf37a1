// The Skills view's editor: the documents' editor (doc-editor.js) and what is a skill's own, a
// draft tried on the panel's tab before saving: "Test on this tab" health-checks the draft there,
// then calls one of its tools with arguments from the Inspector's form (lib/schema-form.js and
// the Inspector's field builder).

import { formModel, initialRaw, toArgs } from '../lib/schema-form.js';
import { draftTools, newSkillText } from '../lib/skills/view-model.js';
import { DocEditor } from './doc-editor.js';
import { h, pretty } from './dom.js';
import { InspectorView } from './inspector-view.js';

export class SkillsEditor {
  /** @param {import('./skills-view.js').SkillsView} view */
  constructor(view) {
    this.view = view;
    this.doc = new DocEditor('skills', (op, fields) => view.request(op, fields), {
      opened: () => {
        this.result.replaceChildren();
        this.refreshTools();
      },
      changed: () => this.refreshTools(),
      saved: () => void view.refreshHere(true),
    });
    this.text = this.doc.text;
    // The Inspector's field builder, on ids of its own so the two views' labels never meet.
    this.fields = Object.create(InspectorView.prototype);
    this.fields.seq = 1_000_000;
    /** the selected tool's form: its model and raw values */
    this.model = null;
    this.raw = { value: null };
    this.toolsJson = '';
    /** @type {Map<string, any>} the draft's tools' input schemas */
    this.schemas = new Map();

    this.tool = h('select', { id: 'skill-test-tool', 'aria-label': 'Tool to test', on: { change: () => this.buildForm() } });
    this.form = h('div', { class: 'form skill-test-form' });
    this.result = h('div', { class: 'skill-test-result', 'aria-live': 'polite' });
    this.testBtn = h('button', { type: 'button', class: 'primary', id: 'skill-test', on: { click: () => this.test() } }, 'Test on this tab');
    this.root = this.doc.root;
    this.root.append(
      h('h3', {}, 'Test on this tab'),
      h('p', { class: 'muted help', text: 'Runs the text above (saved or not) on the tab in view: its match and health ' +
        'check, then the tool with these arguments. The tool really acts on the page.' }),
      h('div', { class: 'field' }, h('label', { for: 'skill-test-tool', class: 'field-label' }, 'Tool'), this.tool),
      this.form,
      h('div', { class: 'form-actions' }, h('span', { class: 'spacer' }), this.testBtn),
      this.result);
  }

  openNew() {
    this.open(newSkillText(this.view.app.target?.url ?? null));
  }

  /**
   * @param {string} text
   * @param {any} [checked] an answer that already holds this text's problems
   */
  open(text, checked) {
    this.doc.open(text, checked);
  }

  close() {
    this.doc.close();
  }

  // --- Test on this tab ------------------------------------------------------------------------

  /** The tool list of the text as it is; the form stays as typed while its tool's schema does. */
  refreshTools() {
    const d = draftTools(this.text.value);
    const tools = d.ok ? d.tools : [];
    const json = JSON.stringify(tools);
    if (json === this.toolsJson) return;
    this.toolsJson = json;
    const before = this.tool.value;
    this.tool.replaceChildren(h('option', { value: '' }, '(health check only)'),
      ...tools.map((t) => h('option', { value: t.name, selected: t.name === before }, t.name)));
    this.schemas = new Map(tools.map((t) => [t.name, t.inputSchema]));
    this.buildForm();
  }

  buildForm() {
    const schema = this.schemas.get(this.tool.value);
    if (!schema) {
      this.model = null;
      this.form.replaceChildren();
      return;
    }
    this.model = formModel(schema);
    this.raw = { value: initialRaw(this.model) };
    this.form.replaceChildren(this.fields.field(this.model, this.raw, 'value', '', true));
  }

  async test() {
    const tabId = this.view.app.target?.id;
    if (typeof tabId !== 'number') return this.fail('No web page in the active tab.');
    let args = {};
    if (this.model) {
      const a = toArgs(this.model, this.raw.value);
      if (!a.ok) {
        return void this.result.replaceChildren(h('ul', { class: 'card-error' }, a.errors.map((e) => h('li', { text: `${e.path} ${e.message}` }))));
      }
      args = a.value;
    }
    this.testBtn.disabled = true;
    this.result.replaceChildren(h('p', { class: 'muted', text: 'Checking the skill…' }));
    try {
      const checked = await this.doc.validate();
      if (!checked.ok) return this.fail(checked.problems?.length ? 'Fix the problems above first.' : checked.error);
      this.result.replaceChildren(h('p', { class: 'muted', text: this.tool.value ? `Running ${this.tool.value}…` : 'Checking the page…' }));
      let r;
      try {
        r = await chrome.runtime.sendMessage({ type: 'skills_try', tabId, text: this.text.value, tool: this.tool.value || null, args });
      } catch (e) {
        return this.fail(`The extension did not answer: ${e?.message ?? e}`);
      }
      this.showTry(r);
    } finally {
      this.testBtn.disabled = false;
    }
  }

  /** @param {any} r Skills.tryDraft's answer, or {error} */
  showTry(r) {
    if (!r || (r.error && r.ok === undefined && r.healthy === undefined)) return this.fail(r?.error ?? 'No answer.');
    const ran = r.ok !== undefined;
    this.result.replaceChildren(h('div', {},
      h('ul', { class: 'skill-try-checks' },
        h('li', { 'data-check': 'match', class: r.matched ? 'ok' : 'warn',
          text: r.matched ? 'Its match patterns cover this tab.' : "Its match patterns don't cover this tab: once saved, it won't apply here." }),
        h('li', { 'data-check': 'health', class: r.healthy ? 'ok' : 'error',
          text: r.healthy ? 'Health check passed.' : `Health check failed: ${r.reason ?? 'the page did not pass it'}` })),
      ran ? h('div', { class: 'result-head' },
        h('span', { class: `pill ${r.ok ? 'done' : 'error'}`, text: r.ok ? 'ok' : r.error?.code ?? 'error' }),
        h('span', { class: 'muted', text: this.tool.value })) : null,
      ran ? (r.ok ? h('pre', { class: 'result', text: pretty(r.value ?? null) })
        : h('div', { class: 'card-error', text: r.error?.message ?? 'failed' })) : null));
  }

  /** @param {string} text */
  fail(text) {
    this.result.replaceChildren(h('div', { class: 'card-error', text }));
  }
}
