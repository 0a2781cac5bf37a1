// The Chat sites view (docs/CHAT_SITES.md): the chat-site adapters (shipped and the user's), each
// *unverified* until it has worked on its live site; an adapter switched on or off, added, edited
// (checked by the host as it is typed, problems with line and field), removed; and per site:
// tools on or off, which tools its chat may use (local MCP servers', open WebMCP sites', skills),
// read-only tools run without asking, any one tool allowed to run without asking, results sent.
// The host keeps the adapters (`panel_doc` of kind `chat_sites`, answered by `doc_answer`; one
// with an empty id is a push after any change); the editor is the documents' (doc-editor.js);
// the worker keeps the per-site settings (runtime messages
// `chat_sites_state`, `chat_sites_tools`, `chat_sites_set`: background/chat-sites.js).

import { DocEditor } from './doc-editor.js';
import { h } from './dom.js';
import { HostRequests } from './host-requests.js';

const ANSWER_WITHIN_MS = 20_000;

/** A new adapter's text: the tab's host if it is a web page. @param {string|null} url */
export function newAdapterText(url) {
  let host = 'chat.example.com';
  try {
    const u = new URL(url ?? '');
    if (u.protocol === 'https:' || u.protocol === 'http:') host = u.host.toLowerCase();
  } catch { /* not a page: the example */ }
  return `${JSON.stringify({
    name: 'my-chat', title: 'My chat', version: '0.1.0', description: '',
    source: 'Where this site\'s wire format is described',
    hostnames: [host],
    request: { url: '/api/chat*', method: 'POST', message_path: 'messages[-1].content' },
    response: { kind: 'sse', text_paths: ['choices[0].delta.content'], text_mode: 'delta' },
    selectors: { input: 'textarea', send: null, last_answer: '.answer' },
  }, null, 2)}\n`;
}

/**
 * The rows the view shows: the host's adapters, each with the worker's sites for it.
 * @param {any[]} adapters the host's list (`chat-sites list --json`)
 * @param {any[]} sites the worker's `chat_sites_state` sites
 */
export function adapterRows(adapters, sites) {
  return adapters.map((a) => ({
    name: String(a.name), title: String(a.title || a.name), version: String(a.version ?? ''), origin: String(a.origin ?? ''),
    enabled: a.enabled !== false, verified: !!a.verified, verifiedOn: a.verified?.host ?? null,
    lastRoundTrip: a.verified?.host ? `${a.verified.host}, ${String(a.verified.at ?? '').replace('T', ' ').replace(/\+00:00$/, ' UTC')}` : null,
    hostnames: Array.isArray(a.hostnames) ? a.hostnames.map(String) : [], source: String(a.source ?? ''),
    error: a.error ? String(a.error) : '', removable: a.origin !== 'shipped',
    sites: sites.filter((s) => s.adapter === a.name),
  }));
}

/**
 * A site's offered tools grouped by where they come from: local servers first, then open sites.
 * @param {any[]} tools the worker's `chat_sites_tools` tools
 * @returns {{label: string, tools: any[]}[]}
 */
export function toolGroups(tools) {
  const groups = new Map();
  const sorted = [...tools].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'mcp' ? -1 : 1));
  for (const t of sorted) {
    const label = t.kind === 'mcp' ? `Local MCP server ${t.where}` : `Open site ${t.where}`;
    groups.set(label, [...(groups.get(label) ?? []), t]);
  }
  return [...groups].map(([label, list]) => ({ label, tools: list }));
}

export class ChatSitesView {
  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.visible = false;
    /** @type {any[]|null} the host's adapters, once they came */
    this.adapters = null;
    /** @type {any[]} the worker's sites and their settings */
    this.sites = [];
    /** @type {Map<string, any>} site -> its tools answer, for the sites whose tools are open */
    this.tools = new Map();
    /** Our `panel_doc` requests, by id (host-requests.js). */
    this.requests = new HostRequests(this.app, 'chat_sites', 'cs', ANSWER_WITHIN_MS);
    this.loading = false;

    this.msg = h('div', { class: 'form-msg', role: 'status', id: 'chat-sites-msg' });
    this.list = h('div', { class: 'chat-sites-list' });
    this.editor = new DocEditor('chat_sites', (op, fields) => this.request(op, fields));
    root.append(
      h('div', { class: 'toolbar' },
        h('span', { class: 'muted', text: 'Tools inside AI chat websites' }), h('span', { class: 'spacer' }),
        h('button', { type: 'button', id: 'chat-site-new', on: { click: () => this.editor.open(newAdapterText(this.app.target?.url ?? null)) } }, 'New adapter'),
        h('button', { type: 'button', class: 'ghost', on: { click: () => this.load() } }, 'Refresh')),
      this.msg, this.list, this.editor.root);
    this.render();
  }

  shown() {
    this.visible = true;
    void this.load();
  }

  hidden() {
    this.visible = false;
  }

  /** A `status` from the worker: the host may just have come. */
  statusChanged() {
    if (this.visible && this.adapters === null && !this.loading && this.app.status?.connected) void this.load();
  }

  async load() {
    this.loading = true;
    try {
      const r = await this.request('list');
      if (!r.ok) this.say(r.error ?? 'The host could not list the adapters.', 'error');
      await this.loadSites();
    } finally {
      this.loading = false;
    }
  }

  /** The worker's sites and settings, and the tools of the sites shown open. */
  async loadSites() {
    const r = await this.ask({ type: 'chat_sites_state' });
    if (Array.isArray(r?.sites)) this.sites = r.sites;
    for (const site of this.tools.keys()) await this.loadTools(site, false);
    this.render();
  }

  // --- the host and the worker -----------------------------------------------------------------

  /**
   * One `panel_doc` request; resolves with its `doc_answer` (or {ok: false, error}).
   * @param {'list'|'get'|'validate'|'save'|'remove'|'enable'|'disable'|'schema'} op
   * @param {{name?: string, text?: string}} [fields]
   * @returns {Promise<any>}
   */
  request(op, fields = {}) {
    return this.requests.send(op, fields);
  }


  /** `doc_answer`: a list in any answer or push is the new state; ours settles its request. */
  onAnswer(msg) {
    if (Array.isArray(msg.docs)) {
      this.adapters = msg.docs;
      void this.loadSites(); // the worker has the new adapters too: their sites may have changed
    }
    this.requests.settle(msg);
  }

  /** A runtime message to the worker; {error} when it fails. @param {any} msg */
  async ask(msg) {
    try {
      return (await chrome.runtime.sendMessage(msg)) ?? { error: 'The extension did not answer.' };
    } catch (e) {
      return { error: `The extension did not answer: ${e?.message ?? e}` };
    }
  }

  /** @param {string} site @param {boolean} [show] */
  async loadTools(site, show = true) {
    const r = await this.ask({ type: 'chat_sites_tools', site });
    if (r.error) {
      this.tools.delete(site);
      this.say(r.error, 'error');
    } else this.tools.set(site, r);
    if (show) this.render();
  }

  /** @param {string} site @param {any} change @param {HTMLInputElement} box */
  async set(site, change, box) {
    box.disabled = true;
    const r = await this.ask({ type: 'chat_sites_set', site, ...change });
    box.disabled = false;
    if (r.error) {
      box.checked = !box.checked;
      return this.say(r.error, 'error');
    }
    this.say('');
    this.sites = this.sites.map((s) => (s.site === site ? { ...s, ...r, site } : s));
    if (r.enabled) await this.loadTools(site, false);
    else this.tools.delete(site);
    this.render();
  }

  // --- showing ---------------------------------------------------------------------------------

  render() {
    if (this.adapters === null) {
      this.list.replaceChildren(h('p', { class: 'muted pad', text: this.app.status?.connected ? 'Asking the host…' : 'Waiting for the host…' }));
      return;
    }
    this.list.replaceChildren(...adapterRows(this.adapters, this.sites).map((row) => this.renderAdapter(row)));
  }

  /** @param {ReturnType<typeof adapterRows>[number]} row */
  renderAdapter(row) {
    const toggle = h('input', { type: 'checkbox', checked: row.enabled, 'aria-label': `Enable ${row.name}`,
      on: { change: () => this.act(toggle, toggle.checked ? 'enable' : 'disable', row.name) } });
    return h('article', { class: 'chat-site', 'data-name': row.name, 'data-verified': String(row.verified), 'data-enabled': String(row.enabled) },
      h('header', { class: 'skill-head' },
        h('b', { class: 'skill-name', text: row.title }), h('code', { class: 'muted', text: row.name }),
        h('span', { class: 'badge', text: row.origin }),
        h('span', { class: `pill ${row.verified ? 'done' : 'running'}`, 'data-role': 'verified', text: row.verified ? 'verified' : 'unverified',
          title: row.verified ? `Worked on ${row.verifiedOn}` : 'Not seen working on its live site yet: it follows a public description of the site\'s API.' }),
        h('span', { class: 'spacer' }), h('label', { class: 'check' }, toggle, ' Enabled')),
      h('p', { class: 'skill-match' }, row.hostnames.map((n) => h('code', { text: n }))),
      row.source ? h('p', { class: 'muted small', text: `Source: ${row.source}` }) : null,
      h('p', { class: 'muted small', 'data-role': 'last-round-trip',
        text: row.lastRoundTrip ? `Last good round trip: ${row.lastRoundTrip}` : 'No good round trip yet (with this text of the adapter).' }),
      row.error ? h('div', { class: 'card-error', text: row.error }) : null,
      row.enabled && !row.error ? row.sites.map((s) => this.renderSite(s)) : null,
      h('div', { class: 'form-actions' },
        h('button', { type: 'button', class: 'ghost small', on: { click: () => this.edit(row.name) } }, 'Edit'),
        h('span', { class: 'spacer' }),
        row.removable ? this.removeButton(row.name, row.origin) : null));
  }

  /** A site of an adapter: tools on or off, and (on) its tools and settings. @param {any} s */
  renderSite(s) {
    const on = h('input', { type: 'checkbox', checked: s.enabled, 'data-act': 'site-enable',
      on: { change: () => this.set(s.site, { enabled: on.checked }, on) } });
    const box = h('div', { class: 'chat-site-site', 'data-site': s.site, 'data-enabled': String(s.enabled) },
      h('label', { class: 'check' }, on, ' Use tools on ', h('b', { text: s.site }), s.open ? h('span', { class: 'muted', text: ' (open in a tab)' }) : null),
      s.stale ? h('div', { class: 'card-error', 'data-role': 'stale', text: `The adapter may be out of date here (${String(s.stale.at).slice(0, 19).replace('T', ' ')} UTC): ${s.stale.reason}` }) : null);
    if (!s.enabled) return box;
    const flag = (key, label, act) => {
      const b = h('input', { type: 'checkbox', checked: !!s[key], 'data-act': act, on: { change: () => this.set(s.site, { [key]: b.checked }, b) } });
      return h('label', { class: 'check' }, b, ` ${label}`);
    };
    box.append(flag('autoRun', 'Run read-only tools without asking (of local servers and skills you installed; a web page\'s own word that its tool only reads is not taken: allow such a tool one by one)', 'autorun'), flag('autoSend', 'Send results automatically', 'autosend'));
    const answer = this.tools.get(s.site);
    if (!answer) {
      box.append(h('button', { type: 'button', class: 'ghost small', 'data-act': 'tools', on: { click: () => this.loadTools(s.site) } }, 'Choose tools…'));
      return box;
    }
    const groups = toolGroups(answer.tools ?? []);
    if (!groups.length) box.append(h('p', { class: 'muted small', text: 'No tools: open a site with WebMCP tools, add a skill, or a local MCP server.' }));
    for (const g of groups) {
      box.append(h('fieldset', { class: 'nested' }, h('legend', { text: g.label }),
        h('ul', { class: 'skill-tools' }, g.tools.map((t) => this.renderTool(s.site, answer, t)))));
    }
    return box;
  }

  /** @param {string} site @param {any} answer @param {any} t */
  renderTool(site, answer, t) {
    const keys = (field, add) => {
      const set = new Set(answer[field] ?? []);
      if (add) set.add(t.key); else set.delete(t.key);
      return [...set];
    };
    const choose = h('input', { type: 'checkbox', checked: t.chosen, 'data-act': 'choose', 'data-key': t.key, 'aria-label': `Offer ${t.tool} to this chat`,
      on: { change: () => this.set(site, { chosen: keys('chosen', choose.checked) }, choose) } });
    const allow = h('input', { type: 'checkbox', checked: t.allowed, disabled: !t.chosen, 'data-act': 'allow', 'data-key': t.key,
      on: { change: () => this.set(site, { allowed: keys('allowed', allow.checked) }, allow) } });
    return h('li', { 'data-key': t.key, title: t.description || t.key },
      choose, h('code', { class: 'tool-name', text: t.name }),
      h('span', { class: `badge ${t.readOnly ? 'ro' : 'rw'}`, text: t.readOnly ? (t.trusted ? 'read-only' : 'read-only, says the page') : 'changes things',
        title: t.readOnly && !t.trusted ? 'The web page says so; auto-run does not take its word. Allow it here to run it without asking.' : '' }),
      h('label', { class: 'check small', title: 'Calls of this tool run without your click' }, allow, ' without asking'));
  }

  /** Remove asks once more on the button itself. @param {string} name @param {string} origin */
  removeButton(name, origin) {
    const b = h('button', { type: 'button', class: 'ghost small', on: { click: async () => {
      if (b.dataset.armed !== '1') {
        b.dataset.armed = '1';
        b.textContent = origin.includes('replaces') ? 'Really remove (the shipped one comes back)?' : 'Really remove?';
        b.className = 'danger small';
        return;
      }
      b.disabled = true;
      const r = await this.request('remove', { name });
      this.say(r.ok ? `Removed ${name}.` : r.error, r.ok ? 'ok' : 'error');
    } } }, 'Remove');
    return b;
  }

  /** @param {string} text @param {'ok'|'error'|''} [kind] */
  say(text, kind = '') {
    this.msg.textContent = text ?? '';
    this.msg.className = `form-msg ${kind}`;
  }

  /** @param {HTMLInputElement} box @param {'enable'|'disable'} op @param {string} name */
  async act(box, op, name) {
    box.disabled = true;
    const r = await this.request(op, { name });
    box.disabled = false;
    if (!r.ok) {
      box.checked = !box.checked;
      this.say(r.error, 'error');
    } else this.say('');
  }

  // --- the editor ------------------------------------------------------------------------------

  /** @param {string} name */
  async edit(name) {
    const r = await this.request('get', { name });
    if (!r.ok) return this.say(r.error, 'error');
    this.editor.open(r.text ?? '');
  }
}
