// The Servers view (docs/SERVERS.md): the user's local MCP servers as the host runs them —
// status, tools, enable/disable a server or one tool, restart, the last error in plain words —
// and which of them the current conversation may use. The host keeps them (`panel_servers`,
// answered by `agent_servers`; an `agent_servers` without id is a state push). The Inspector
// lists and calls their tools through this view's `call` and `serverTools`.
//
// Which servers a conversation uses is the panel's choice, kept per conversation in
// localStorage (`choices`): none made = every enabled server; it goes with each `panel_chat`
// as `servers`.

import { h } from './dom.js';
import { HostRequests } from './host-requests.js';
import { KnownTools } from './known-tools.js';

/** How long the host may take to answer (a `tools` may start servers; a call may take 60 s). */
const ANSWER_WITHIN_MS = 90_000;
const CHOICES_KEY = 'webmcp.servers.inConversation';
const MAX_CHOICES = 200;
/** The choice made before a new conversation has its id. */
export const NEW_CONVERSATION = '';

const STATE_WORDS = {
  running: 'running', starting: 'starting…', stopped: 'not started (starts when used)',
  crashed: 'crashed (restarts by itself)', failed: 'failed',
};

/**
 * A server's state in plain words, with its last error when it has one.
 * @param {{state: string, enabled: boolean, last_error?: string|null}} s
 */
export function stateWords(s) {
  if (!s.enabled) return 'off';
  const words = STATE_WORDS[s.state] ?? s.state;
  return s.last_error && (s.state === 'failed' || s.state === 'crashed') ? `${words}: ${s.last_error}` : words;
}

/**
 * The rows the view shows: each server with its tools, on ones first (as the host listed them)
 * then the ones switched off (by name, from servers.json).
 * @param {any[]} servers the host's `servers`
 * @param {Record<string, any[]>} tools server -> its enabled tools, as far as known
 */
export function serverRows(servers, tools) {
  return servers.map((s) => {
    const on = (tools[s.name] ?? []).map((t) => ({ name: String(t.name), enabled: true, readOnly: t.annotations?.readOnlyHint === true }));
    const off = (s.disabled_tools ?? []).filter((n) => !on.some((t) => t.name === n))
      .map((n) => ({ name: String(n), enabled: false, readOnly: false }));
    return { name: s.name, kind: s.kind, enabled: !!s.enabled, state: s.state, words: stateWords(s),
      problem: s.enabled && (s.state === 'failed' || s.state === 'crashed') ? s.last_error ?? '' : '',
      count: s.tools ?? on.length, tools: [...on, ...off] };
  });
}

/**
 * A progress notification as the tool card shows it: "half way · 1 of 2 (50%)".
 * @param {{progress: number, total?: number|null, message?: string|null}} ev
 */
export function progressText(ev) {
  const n = Number(ev.progress);
  const total = typeof ev.total === 'number' && ev.total > 0 ? ev.total : null;
  const amount = total ? `${n} of ${total} (${Math.round(Math.min(1, n / total) * 100)}%)` : String(n);
  return [ev.message ? String(ev.message).slice(0, 500) : '', amount].filter(Boolean).join(' · ');
}

/** Which servers each conversation uses: conversation id -> names; no entry = all enabled. */
export class Choices {
  /** @param {{getItem: (k: string) => string|null, setItem: (k: string, v: string) => void}|null} storage */
  constructor(storage) {
    this.storage = storage;
    /** @type {Map<string, string[]>} */
    this.map = new Map();
    try {
      const raw = JSON.parse(storage?.getItem(CHOICES_KEY) ?? '[]');
      if (Array.isArray(raw)) {
        for (const [id, names] of raw) {
          if (typeof id === 'string' && Array.isArray(names)) this.map.set(id, names.filter((n) => typeof n === 'string'));
        }
      }
    } catch { /* a broken entry: start afresh */ }
  }

  /** @param {string|null} conv @returns {string[]|null} null: every enabled server */
  get(conv) {
    return this.map.get(conv ?? NEW_CONVERSATION) ?? null;
  }

  /** @param {string|null} conv @param {string[]|null} names */
  set(conv, names) {
    const key = conv ?? NEW_CONVERSATION;
    this.map.delete(key); // the newest last: the oldest choices go first
    if (names) this.map.set(key, [...new Set(names)]);
    while (this.map.size > MAX_CHOICES) this.map.delete(/** @type {string} */ (this.map.keys().next().value));
    this.save();
  }

  /** A new conversation got its id (its first turn began): the choice made for it moves there. */
  adopt(conv) {
    const pending = this.map.get(NEW_CONVERSATION);
    if (!conv || !pending || this.map.has(conv)) return;
    this.map.delete(NEW_CONVERSATION);
    this.set(conv, pending);
  }

  save() {
    try {
      this.storage?.setItem(CHOICES_KEY, JSON.stringify([...this.map]));
    } catch { /* storage full or off: the choice lasts while the panel is open */ }
  }
}

/**
 * What the Inspector shows of the servers: each enabled one, with its tools if it runs, else the
 * tools it had when last listed (`known`), and whether it runs.
 * @param {any[]|null} servers the host's list @param {Record<string, any[]>} live @param {Record<string, any[]>} known
 * @returns {{name: string, running: boolean, words: string, tools: any[], stale: boolean}[]}
 */
export function inspectorServers(servers, live, known) {
  return (servers ?? []).filter((s) => s.enabled).map((s) => {
    const running = s.state === 'running' && Array.isArray(live[s.name]);
    const disabled = new Set(s.disabled_tools ?? []);
    const tools = running ? live[s.name] : (known[s.name] ?? []).filter((t) => !disabled.has(t.name));
    return { name: s.name, running, words: stateWords(s), tools, stale: !running && tools.length > 0 };
  });
}

/**
 * What a `panel_chat` carries: the conversation's servers, or nothing (all enabled).
 * @param {Choices} choices @param {string|null} conv @param {any[]|null} servers the host's list
 * @returns {string[]|null}
 */
export function chatServers(choices, conv, servers) {
  const chosen = choices.get(conv);
  if (chosen === null) return null;
  if (!servers) return chosen;
  const enabled = new Set(servers.filter((s) => s.enabled).map((s) => s.name));
  return chosen.filter((n) => enabled.has(n));
}

export class ServersView {
  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.visible = false;
    /** @type {any[]|null} the host's list, once it came */
    this.servers = null;
    /** @type {Record<string, any[]>} server -> its enabled tools (from `tools` answers) */
    this.tools = {};
    this.config = '';
    this.choices = new Choices(globalThis.localStorage ?? null);
    this.known = new KnownTools(globalThis.localStorage ?? null);
    /** @type {Set<() => void>} told when the servers or their tools change (the Inspector) */
    this.listeners = new Set();
    /** Our `panel_servers` requests, by id (host-requests.js). */
    this.requests = new HostRequests(this.app, 'panel_servers', 'sv', ANSWER_WITHIN_MS);
    this.loading = false;

    this.msg = h('div', { class: 'form-msg', role: 'status' });
    this.useBox = h('div', { class: 'servers-use' });
    this.list = h('div', { class: 'servers-list' });
    this.foot = h('p', { class: 'muted small pad' });
    root.append(
      h('div', { class: 'toolbar' },
        h('span', { class: 'muted', text: 'Your local MCP servers' }), h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost', title: 'Ask the host again and list the tools (starts the servers)',
          on: { click: () => this.load(true) } }, 'Refresh')),
      this.msg, this.useBox, this.list, this.foot);
    this.render();
  }

  shown() {
    this.visible = true;
    if (this.app.status?.connected) void this.load(true);
  }

  hidden() {
    this.visible = false;
  }

  /**
   * A `status` from the worker: the host may just have come. The list is asked for at once (the
   * Inspector shows the configured servers); their tools, which start them, only while this view
   * is shown.
   */
  statusChanged() {
    if (this.servers === null && !this.loading && this.app.status?.connected) void this.load(this.visible);
  }

  /** The list, then (with `withTools`) every enabled server's tools, which starts them. */
  async load(withTools) {
    this.loading = true;
    try {
      const r = await this.request('list');
      if (!r.ok) return this.say(r.error ?? 'The host could not list the servers.', 'error');
      this.say('');
      if (withTools && this.servers?.some((s) => s.enabled)) {
        const t = await this.request('tools');
        if (!t.ok) this.say(t.error ?? 'Listing the tools failed.', 'error');
      }
    } finally {
      this.loading = false;
    }
  }

  // --- the host --------------------------------------------------------------------------------

  /**
   * One `panel_servers` request; resolves with its `agent_servers` answer (or {ok: false, error}).
   * @param {'list'|'tools'|'enable'|'disable'|'restart'|'call'} op
   * @param {{server?: string, tool?: string, args?: any}} [fields]
   * @returns {Promise<any>}
   */
  request(op, fields = {}) {
    return this.requests.send(op, fields);
  }


  /** `agent_servers`: any answer or push brings the state; ours also settles its request. */
  onAnswer(msg) {
    let changed = false;
    if (Array.isArray(msg.servers)) {
      this.servers = msg.servers;
      // Tools of servers no longer running or listed are gone; a push says so by the count.
      const live = new Set(msg.servers.filter((s) => s.enabled && s.state === 'running').map((s) => s.name));
      for (const name of Object.keys(this.tools)) if (!live.has(name)) delete this.tools[name];
      changed = true;
    }
    if (msg.tools && typeof msg.tools === 'object') {
      Object.assign(this.tools, msg.tools);
      this.known.remember(msg.tools);
      changed = true;
    }
    if (Array.isArray(msg.servers)) this.known.keepOnly(msg.servers.map((s) => s.name));
    if (typeof msg.config === 'string') this.config = msg.config;
    // A server that came up (or changed its tools) since we last listed them: list again.
    if (!msg.id && this.servers?.some((s) => s.enabled && s.state === 'running' && s.tools !== (this.tools[s.name]?.length ?? -1))) {
      if (!this.loading) void this.request('tools');
    }
    if (changed) {
      this.render();
      for (const fn of this.listeners) fn();
    }
    this.requests.settle(msg);
  }

  /** Tools for the Inspector: server -> its enabled tools (running servers). */
  serverTools() {
    return this.tools;
  }

  /** The enabled servers for the Inspector: running ones' tools, else their last known ones. */
  inspectorServers() {
    return inspectorServers(this.servers, this.tools, this.known.tools);
  }

  /** The Inspector's "Start": the server starts and its tools are listed (the user asked). @param {string} server */
  start(server) {
    return this.request('tools', { server });
  }

  /**
   * A call by hand (the Inspector): resolves like an `inspect_result`'s `result` and `ms`.
   * @returns {Promise<{result: {ok: boolean, value?: string, error?: {code: string, message: string}}, ms: number|null}>}
   */
  async call(server, tool, args) {
    const r = await this.request('call', { server, tool, args });
    if (!r.ok || !r.result) return { result: { ok: false, error: { code: 'server_error', message: r.error ?? 'failed' } }, ms: null };
    return { result: r.result, ms: r.result.ms ?? null };
  }

  // --- the chat: which servers a conversation uses, and progress on its cards ------------------

  /** What the next `panel_chat` of conversation `conv` carries as `servers` (null: all). */
  forChat(conv) {
    return chatServers(this.choices, conv, this.servers);
  }

  /** `agent_event`s: a new conversation's id takes its choice; progress goes to its card. */
  onChatEvent(msg) {
    const ev = msg?.event;
    if (ev?.kind === 'turn_start') this.choices.adopt(msg.conversation_id);
    if (ev?.kind !== 'progress' || typeof ev.call_id !== 'string') return;
    const card = document.querySelector(`#view-chat .card[data-call="${CSS.escape(ev.call_id)}"]`);
    if (!card) return;
    let line = card.querySelector('.progress');
    if (!line) {
      line = h('p', { class: 'progress muted small', role: 'status' });
      card.append(line);
    }
    line.textContent = progressText(ev);
  }

  // --- showing ---------------------------------------------------------------------------------

  render() {
    this.renderUse();
    if (this.servers === null) {
      this.list.replaceChildren(h('p', { class: 'muted pad', text: this.app.status?.connected ? 'Asking the host…' : 'Waiting for the host…' }));
    } else if (!this.servers.length) {
      this.list.replaceChildren(h('div', { class: 'empty' },
        h('p', { class: 'empty-title', text: 'No local MCP servers' }),
        h('p', { class: 'muted', text: 'Add the servers you use with Claude Desktop or Cursor: `webmcp-sidecar servers import --from claude-desktop`, ' +
          'or `webmcp-sidecar servers add NAME -- COMMAND ARGS…`. Their tools then show here, in the Inspector, and for the agent.' })));
    } else {
      this.list.replaceChildren(...serverRows(this.servers, this.tools).map((row) => this.renderServer(row)));
    }
    this.foot.textContent = this.config ? `Configured in ${this.config}` : '';
  }

  /** The current conversation's servers: a box per enabled server. */
  renderUse() {
    const enabled = (this.servers ?? []).filter((s) => s.enabled);
    if (!enabled.length) return void this.useBox.replaceChildren();
    const conv = this.app.conversationId?.() ?? null;
    const chosen = this.choices.get(conv);
    const boxes = enabled.map((s) => {
      const box = h('input', { type: 'checkbox', checked: chosen === null || chosen.includes(s.name), 'data-server': s.name,
        on: { change: () => {
          const names = [...this.useBox.querySelectorAll('input[data-server]')]
            .filter((b) => /** @type {HTMLInputElement} */ (b).checked).map((b) => /** @type {HTMLElement} */ (b).dataset.server ?? '');
          this.choices.set(conv, names.length === enabled.length ? null : names);
          this.renderUse();
        } } });
      return h('label', { class: 'check' }, box, ` ${s.name}`);
    });
    this.useBox.replaceChildren(h('fieldset', { class: 'nested' },
      h('legend', {}, conv ? 'Used in this conversation' : 'Used in the next conversation'),
      h('div', { class: 'servers-use-boxes' }, boxes),
      h('small', { class: 'muted help', text: chosen === null ? 'All enabled servers (the default).' : 'Only the servers ticked.' })));
  }

  /** @param {ReturnType<typeof serverRows>[number]} row */
  renderServer(row) {
    const name = row.name;
    const toggle = h('input', { type: 'checkbox', checked: row.enabled, 'aria-label': `Enable ${name}`,
      on: { change: () => this.act(toggle, toggle.checked ? 'enable' : 'disable', { server: name }) } });
    const restart = h('button', { type: 'button', class: 'ghost small', disabled: !row.enabled,
      on: { click: () => this.act(restart, 'restart', { server: name }) } }, 'Restart');
    const pill = row.state === 'running' ? 'done' : row.problem ? 'error' : row.state === 'starting' ? 'running' : '';
    return h('article', { class: 'server', 'data-server': name, 'data-state': row.state, 'data-enabled': String(row.enabled) },
      h('header', { class: 'skill-head' },
        h('b', { class: 'skill-name', text: name }), h('span', { class: 'badge', text: row.kind }),
        h('span', { class: `pill ${pill}`, text: row.enabled ? row.state : 'off' }),
        h('span', { class: 'spacer' }), restart, h('label', { class: 'check' }, toggle, ' Enabled')),
      h('p', { class: 'muted small server-state', text: row.enabled && row.state === 'running' ? `${row.count} tool${row.count === 1 ? '' : 's'}` : row.words }),
      row.problem ? h('div', { class: 'card-error', role: 'alert', text: row.problem }) : null,
      row.tools.length ? h('ul', { class: 'skill-tools' }, row.tools.map((t) => {
        const box = h('input', { type: 'checkbox', checked: t.enabled, disabled: !row.enabled, 'aria-label': `Enable tool ${t.name}`,
          on: { change: () => this.act(box, box.checked ? 'enable' : 'disable', { server: name, tool: t.name }) } });
        return h('li', { 'data-tool': t.name }, box, h('code', { class: 'tool-name', text: t.name }),
          t.enabled ? h('span', { class: `badge ${t.readOnly ? 'ro' : 'rw'}`, text: t.readOnly ? 'read-only' : 'changes things' })
            : h('span', { class: 'badge', text: 'off' }));
      })) : null);
  }

  /** @param {HTMLInputElement|HTMLButtonElement} el @param {'enable'|'disable'|'restart'} op @param {any} fields */
  async act(el, op, fields) {
    el.disabled = true;
    const r = await this.request(op, fields);
    el.disabled = false;
    if (!r.ok) {
      if (el instanceof HTMLInputElement) el.checked = !el.checked;
      return this.say(r.error ?? 'That did not work.', 'error');
    }
    this.say('');
    // A server or tool switched on: list its tools now (this starts it).
    if (op !== 'disable') await this.request('tools', op === 'enable' && !fields.tool ? { server: fields.server } : {});
  }

  /** @param {string} text @param {'ok'|'error'|''} [kind] */
  say(text, kind = '') {
    this.msg.textContent = text ?? '';
    this.msg.className = `form-msg ${kind}`;
  }
}
