// The Skills view (docs/SKILLS.md): the installed skills, how they fare on the current tab, each
// skill and tool switched on or off, import and export, and the editor (skills-editor.js). The
// host keeps the skills (`panel_doc` of kind `skills`, answered by `doc_answer`); the worker says what they
// do on a tab (`skills_status`, a runtime message: background/skills-panel.js).

import { exportFileName, skillRows, TOOL_STATES } from '../lib/skills/view-model.js';
import { h } from './dom.js';
import { HostRequests } from './host-requests.js';
import { SkillsEditor } from './skills-editor.js';

/** How long the host may take to answer a `panel_doc` before the view gives up on it. */
const ANSWER_WITHIN_MS = 20_000;

export class SkillsView {
  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.visible = false;
    this.listing = false;
    /** @type {any[]|null} the host's list, once it came */
    this.skills = null;
    /** @type {any} the worker's `skills_status` answer for the target tab */
    this.here = null;
    this.hereJson = '';
    /** Our `panel_doc` requests, by id (host-requests.js). */
    this.requests = new HostRequests(this.app, 'skills', 'sk', ANSWER_WITHIN_MS);

    const file = h('input', { type: 'file', accept: '.json,application/json', hidden: true, 'aria-label': 'Skill file to import',
      on: { change: () => this.importFile(file) } });
    this.file = file;
    this.msg = h('div', { class: 'form-msg', role: 'status', id: 'skills-msg' });
    this.hereBox = h('div', { class: 'skills-here', 'aria-live': 'polite' });
    this.list = h('div', { class: 'skills-list' });
    this.editor = new SkillsEditor(this);
    root.append(
      h('div', { class: 'toolbar' },
        h('button', { type: 'button', on: { click: () => this.editor.openNew() } }, 'New'),
        h('button', { type: 'button', on: { click: () => file.click() } }, 'Import…'), file,
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost', title: 'Ask the host and look at the tab again',
          on: { click: () => this.refresh() } }, 'Refresh')),
      this.msg, this.hereBox, this.list, this.editor.root);
  }

  shown() {
    this.visible = true;
    // Before the host is connected, statusChanged() asks for the list once it is.
    if (this.app.status?.connected) void this.request('list');
    void this.refreshHere(true);
  }

  hidden() {
    this.visible = false;
  }

  /** Refresh: the list from the host, and a fresh look at the tab. */
  refresh() {
    void this.request('list').then((r) => this.say(r.ok ? '' : r.error, r.ok ? '' : 'error'));
    void this.refreshHere(true);
  }

  /** A `status` from the worker (every 2 s, and on registry changes). */
  statusChanged() {
    if (!this.visible) return;
    if (this.skills === null && !this.listing && this.app.status?.connected) {
      this.listing = true;
      void this.request('list').then(() => { this.listing = false; });
    }
    void this.refreshHere(false);
  }

  /** The panel's target tab changed. */
  targetChanged() {
    if (this.visible && this.app.target?.id !== this.here?.tabId) void this.refreshHere(true);
  }

  // --- the host --------------------------------------------------------------------------------

  /**
   * One `panel_doc` request; resolves with its `doc_answer` (or {ok: false, error}).
   * @param {'list'|'get'|'validate'|'save'|'remove'|'enable'|'disable'|'schema'} op
   * @param {{name?: string, tool?: string, text?: string}} [fields]
   * @returns {Promise<any>}
   */
  request(op, fields = {}) {
    return this.requests.send(op, fields);
  }


  /** `doc_answer`: any panel's change brings the new list; ours also settles its request. */
  onAnswer(msg) {
    if (Array.isArray(msg.docs)) {
      this.skills = msg.docs;
      this.render();
    }
    this.requests.settle(msg);
  }

  // --- the worker ------------------------------------------------------------------------------

  /** @param {boolean} fresh match and health-check the tab again first */
  async refreshHere(fresh) {
    const tabId = this.app.target?.id;
    if (typeof tabId !== 'number') return this.setHere(null);
    let r;
    try {
      r = await chrome.runtime.sendMessage({ type: 'skills_status', tabId, fresh });
    } catch {
      return; // the worker is restarting; the next status asks again
    }
    if (r && !r.error && this.app.target?.id === tabId) this.setHere(r);
  }

  setHere(here) {
    const json = JSON.stringify(here);
    if (json === this.hereJson) return;
    this.here = here;
    this.hereJson = json;
    this.render();
  }

  // --- showing ---------------------------------------------------------------------------------

  render() {
    const rows = skillRows(this.skills ?? [], this.here);
    this.renderHere(rows);
    if (this.skills === null) {
      this.list.replaceChildren(h('p', { class: 'muted pad', text: 'Waiting for the host…' }));
    } else if (!rows.length) {
      this.list.replaceChildren(h('div', { class: 'empty' },
        h('p', { class: 'empty-title', text: 'No skills installed' }),
        h('p', { class: 'muted', text: 'A skill gives a site without WebMCP its own tools. Import a .skill.json file, ' +
          'start a new one, or use `webmcp-sidecar skills add FILE`.' })));
    } else {
      this.list.replaceChildren(...rows.map((row) => this.renderSkill(row)));
    }
  }

  /** @param {import('../lib/skills/view-model.js').SkillRow[]} rows */
  renderHere(rows) {
    const site = this.here?.site ?? this.app.targetSite();
    const matching = rows.filter((r) => r.here);
    const hidden = Array.isArray(this.here?.hidden) ? this.here.hidden : [];
    this.hereBox.replaceChildren(h('div', {},
      !site ? h('p', { class: 'muted', text: 'No web page in the active tab.' })
        : !matching.length ? h('p', { class: 'muted', text: `No enabled skill matches ${site}.` })
          : h('p', {}, h('span', { class: 'muted', text: `On ${site}: ` }), matching.map((r, i) => [i ? ', ' : '',
            h('b', { text: r.name }), r.here?.healthy ? ' (healthy)' : ` (not healthy: ${r.here?.reason ?? 'the health check failed'})`])),
      hidden.length ? h('p', { class: 'muted skills-hidden', text: `Hidden by the page's own tools of the same name: ${hidden.join(', ')}` }) : null));
  }

  /** @param {import('../lib/skills/view-model.js').SkillRow} row */
  renderSkill(row) {
    const name = row.name;
    const toggle = h('input', { type: 'checkbox', checked: row.enabled, 'aria-label': `Enable ${name}`,
      on: { change: () => this.setEnabled(toggle, name, null, toggle.checked) } });
    const here = row.here
      ? row.here.healthy ? h('span', { class: 'pill done', text: 'healthy on this tab' })
        : h('span', { class: 'pill error', title: row.here.reason ?? '', text: 'not healthy here' })
      : null;
    return h('article', { class: 'skill', 'data-skill': name, 'data-enabled': String(row.enabled) },
      h('header', { class: 'skill-head' },
        h('b', { class: 'skill-name', text: name }), row.version ? h('span', { class: 'muted', text: row.version }) : null,
        here, h('span', { class: 'spacer' }), h('label', { class: 'check' }, toggle, ' Enabled')),
      row.description ? h('p', { class: 'muted skill-desc', text: row.description }) : null,
      row.match.length ? h('p', { class: 'skill-match' }, row.match.map((m) => h('code', { text: m }))) : null,
      row.error ? h('div', { class: 'card-error', text: row.error }) : null,
      row.here && !row.here.healthy && row.here.reason ? h('p', { class: 'notice error', text: row.here.reason }) : null,
      row.tools.length ? h('ul', { class: 'skill-tools' }, row.tools.map((t) => {
        const box = h('input', { type: 'checkbox', checked: t.enabled, disabled: !row.enabled, 'aria-label': `Enable tool ${t.name}`,
          on: { change: () => this.setEnabled(box, name, t.name, box.checked) } });
        const [label, help] = TOOL_STATES[t.state];
        return h('li', { 'data-tool': t.name, 'data-state': t.state },
          box, h('code', { class: 'tool-name', text: t.name }),
          label ? h('span', { class: `badge state-${t.state}`, title: help, text: label }) : null);
      })) : null,
      h('div', { class: 'form-actions' },
        h('button', { type: 'button', class: 'ghost small', on: { click: () => this.edit(name) } }, 'Edit'),
        h('button', { type: 'button', class: 'ghost small', on: { click: () => this.exportSkill(name) } }, 'Export'),
        h('span', { class: 'spacer' }),
        this.removeButton(name)));
  }

  /** Remove asks once more on the button itself (no dialog in a side panel). @param {string} name */
  removeButton(name) {
    const b = h('button', { type: 'button', class: 'ghost small', on: { click: async () => {
      if (b.dataset.armed !== '1') {
        b.dataset.armed = '1';
        b.textContent = 'Really remove?';
        b.className = 'danger small';
        return;
      }
      b.disabled = true;
      const r = await this.request('remove', { name });
      this.say(r.ok ? `Removed ${name}.` : r.error, r.ok ? 'ok' : 'error');
      void this.refreshHere(true);
    } } }, 'Remove');
    return b;
  }

  /** @param {string} text @param {'ok'|'error'|''} [kind] */
  say(text, kind = '') {
    this.msg.textContent = text ?? '';
    this.msg.className = `form-msg ${kind}`;
  }

  // --- actions ---------------------------------------------------------------------------------

  /** @param {HTMLInputElement} box @param {string} name @param {string|null} tool @param {boolean} on */
  async setEnabled(box, name, tool, on) {
    box.disabled = true;
    const r = await this.request(on ? 'enable' : 'disable', tool ? { name, tool } : { name });
    if (!r.ok) {
      box.checked = !on;
      box.disabled = false;
      this.say(r.error, 'error');
      return;
    }
    this.say('');
    void this.refreshHere(true);
  }

  /** @param {string} name */
  async edit(name) {
    const r = await this.request('get', { name });
    if (!r.ok) return this.say(r.error, 'error');
    this.say('');
    this.editor.open(r.text ?? '');
  }

  /** Downloads the skill's file as the host keeps it. @param {string} name */
  async exportSkill(name) {
    const r = await this.request('get', { name });
    if (!r.ok) return this.say(r.error, 'error');
    const url = URL.createObjectURL(new Blob([r.text ?? ''], { type: 'application/json' }));
    const a = h('a', { href: url, download: exportFileName(name) });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  /** Import: the file is saved at once; a file with problems opens in the editor with them. */
  async importFile(/** @type {HTMLInputElement} */ input) {
    const f = input.files?.[0];
    input.value = '';
    if (!f) return;
    if (f.size > 256 * 1024) return this.say(`${f.name} is over 256 KiB: not a skill.`, 'error');
    const text = await f.text();
    const r = await this.request('save', { text });
    if (r.ok) {
      this.say(`Imported ${f.name}.`, 'ok');
      void this.refreshHere(true);
      return;
    }
    this.say(`${f.name} was not imported${r.problems?.length ? ': see its problems in the editor' : `: ${r.error}`}.`, 'error');
    if (r.problems?.length) this.editor.open(text, r);
  }
}
