// The chat: streaming answers, tool-call cards (Run / Deny in confirm mode), conversations.

import { applyEvent, loadConversation, newChat } from '../lib/chat-events.js';
import { argsPreview, atBottom, fmtMs, h, pretty } from './dom.js';

const STATE_LABEL = {
  running: 'running…', confirm: 'waiting for you', done: 'done', error: 'failed', denied: 'denied',
};

export class ChatView {
  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.chat = newChat();
    /** @type {Map<string, HTMLElement>} item key -> its element */
    this.nodes = new Map();
    this.settings = null;
    this.lastSent = '';
    this.ready = false;

    this.convSelect = h('select', { class: 'conv-select', 'aria-label': 'Conversations', on: { change: () => this.open() } });
    this.list = h('div', { class: 'messages', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
    this.input = h('textarea', {
      class: 'composer-input', rows: 2, placeholder: 'Ask about this page…  (Enter to send, Shift+Enter for a new line)',
      'aria-label': 'Message', on: { keydown: (e) => this.onKey(e), input: () => this.sync() },
    });
    this.sendBtn = h('button', { class: 'primary send', type: 'button', on: { click: () => this.submit() } }, 'Send');
    this.stopBtn = h('button', { class: 'danger stop', type: 'button', hidden: true, on: { click: () => this.stop() } }, 'Stop');
    this.modeChip = h('span', { class: 'chip mode' });
    this.hint = h('span', { class: 'muted hint' });
    root.append(
      h('div', { class: 'toolbar' },
        this.convSelect,
        h('button', { type: 'button', class: 'ghost', title: 'Start a new conversation', on: { click: () => this.app.send({ type: 'panel_new' }) } }, 'New'),
        h('button', { type: 'button', class: 'ghost', title: 'Delete this conversation', on: { click: () => this.remove() } }, 'Delete')),
      this.list,
      h('div', { class: 'composer' },
        this.input,
        h('div', { class: 'composer-row' }, this.modeChip, this.hint, h('span', { class: 'spacer' }), this.stopBtn, this.sendBtn)),
    );
    this.render();
  }

  shown() {
    this.input.focus();
  }

  // --- from the host ------------------------------------------------------------------------

  setState(state) {
    this.ready = true;
    this.settings = state.settings;
    if (state.conversation) {
      this.chat = loadConversation(state.conversation, state.running);
      this.fillConversations(state.conversations, state.conversation.id);
      this.render();
    }
    this.sync();
  }

  setConversation(view, conversations) {
    this.chat = loadConversation(view, null);
    this.fillConversations(conversations, view.id);
    this.render();
    this.sync();
  }

  onEvent(msg) {
    const follow = atBottom(this.list);
    const changed = applyEvent(this.chat, msg);
    if (changed === null) return; // another conversation's turn
    if (this.list.querySelector('.empty')) this.list.replaceChildren();
    for (const item of changed) this.renderItem(item);
    if (msg.event.kind === 'turn_start' || follow) this.list.scrollTop = this.list.scrollHeight;
    if (msg.event.kind === 'turn_end') {
      // A turn that failed before the model said anything: give the user their text back.
      const last = this.chat.items.at(-1);
      if (last?.kind === 'notice' && last.level === 'error' && !this.input.value && this.lastSent) {
        this.input.value = this.lastSent;
      }
      this.lastSent = '';
      this.nameConversation();
    }
    this.sync();
  }

  /** A new conversation gets its title (the host's rule: the first message) in the menu. */
  nameConversation() {
    const id = this.chat.conversationId;
    const first = this.chat.items.find((i) => i.kind === 'user');
    if (!id || !first) return;
    let opt = [...this.convSelect.options].find((o) => o.value === id || o.value === '');
    if (!opt) {
      opt = h('option', { value: id });
      this.convSelect.prepend(opt);
    }
    if (opt.value === '' || opt.textContent === 'New conversation') {
      opt.value = id;
      opt.textContent = first.text.split(/\s+/).join(' ').slice(0, 80);
    }
    this.convSelect.value = id;
  }

  /** The host went away: whatever ran is lost; say so rather than spin forever. */
  hostLost() {
    if (!this.chat.running) return;
    this.onError({ message: 'The host disconnected, so this turn was lost. It reconnects by itself; send again then.' });
  }

  onError(msg) {
    if (this.chat.running === 'pending') this.chat.running = null; // the request never started a turn
    else if (msg.message.startsWith('The host disconnected')) this.chat.running = null;
    /** @type {import('../lib/chat-events.js').NoticeItem} */
    const item = { key: `e${Date.now()}`, kind: 'notice', text: msg.message, level: 'error' };
    this.chat.items.push(item);
    if (this.list.querySelector('.empty')) this.list.replaceChildren();
    this.renderItem(item);
    this.list.scrollTop = this.list.scrollHeight;
    if (this.lastSent && !this.input.value) this.input.value = this.lastSent; // nothing lost
    this.lastSent = '';
    this.sync();
  }

  showTarget() {
    if (!this.chat.items.length) this.render();
    this.sync();
  }

  // --- actions ------------------------------------------------------------------------------

  onKey(e) {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'Escape' && this.chat.running) {
      e.preventDefault();
      this.stop();
    }
  }

  submit() {
    const text = this.input.value.trim();
    if (!text || this.chat.running) return;
    const t = this.app.target;
    const sent = this.app.send({
      type: 'panel_chat', text, conversation_id: this.chat.conversationId,
      site: this.app.targetSite(), tab: t ? { id: t.id ?? null, url: t.url ?? '', title: t.title ?? '' } : null,
    });
    if (!sent) return;
    this.lastSent = text;
    this.input.value = '';
    this.chat.running = 'pending'; // until turn_start names the turn
    this.sync();
  }

  stop() {
    if (!this.chat.running) return;
    this.app.send({ type: 'panel_stop', turn_id: this.chat.running === 'pending' ? null : this.chat.running });
  }

  open() {
    const id = this.convSelect.value;
    if (id && id !== this.chat.conversationId) this.app.send({ type: 'panel_open', conversation_id: id });
  }

  remove() {
    if (!this.chat.conversationId || this.chat.running) return;
    this.app.send({ type: 'panel_delete', conversation_id: this.chat.conversationId });
  }

  // --- rendering ----------------------------------------------------------------------------

  fillConversations(list, currentId) {
    const opts = (list ?? []).map((c) => h('option', { value: c.id, selected: c.id === currentId }, c.title));
    if (!opts.some((o) => o.value === currentId)) {
      opts.unshift(h('option', { value: currentId ?? '', selected: true }, 'New conversation'));
    }
    this.convSelect.replaceChildren(...opts);
  }

  sync() {
    const running = !!this.chat.running;
    this.stopBtn.hidden = !running;
    this.sendBtn.hidden = running;
    this.sendBtn.disabled = !this.ready || !this.input.value.trim();
    const mode = this.settings?.mode;
    this.modeChip.textContent = mode === 'confirm' ? 'Confirm changes' : mode === 'auto' ? 'Auto' : '';
    this.modeChip.title = mode === 'confirm'
      ? 'Calls to tools that change things wait for your Run / Deny (Settings)'
      : 'Every tool call runs without asking (Settings)';
    this.modeChip.hidden = !mode;
    this.hint.textContent = !this.ready
      ? (this.app.status?.connected ? 'Loading…' : 'Waiting for the host…')
      : running ? 'Working… (Esc to stop)' : '';
  }

  render() {
    this.nodes.clear();
    if (!this.chat.items.length) {
      const site = this.app.targetSite();
      const tools = this.app.siteTools(site);
      this.list.replaceChildren(h('div', { class: 'empty' },
        h('p', { class: 'empty-title', text: 'Chat with the page' }),
        h('p', { class: 'muted', text: site
          ? `Your model can use the ${tools.length} tool${tools.length === 1 ? '' : 's'} that ${site} offers. Ask it to do something there.`
          : 'Open a web page in the active tab; the agent uses the tools it offers.' }),
        tools.length ? h('ul', { class: 'tool-names' }, tools.slice(0, 8).map((t) => h('li', {}, h('code', { text: t.name })))) : null,
      ));
      return;
    }
    this.list.replaceChildren();
    for (const item of this.chat.items) this.renderItem(item);
    this.list.scrollTop = this.list.scrollHeight;
  }

  renderItem(item) {
    const old = this.nodes.get(item.key);
    if (old?.firstChild && item.kind === 'assistant') {
      // Streaming: grow the bubble in place (no new node per token, the selection survives).
      old.firstChild.textContent = item.text;
      return;
    }
    const el = this.build(item);
    if (old) old.replaceWith(el);
    else this.list.append(el);
    this.nodes.set(item.key, el);
  }

  build(item) {
    switch (item.kind) {
      case 'user': return h('div', { class: 'msg user' }, h('div', { class: 'bubble', text: item.text }));
      case 'assistant': return h('div', { class: 'msg assistant' }, h('div', { class: 'bubble', text: item.text }));
      case 'notice': return h('div', { class: `notice ${item.level}`, role: item.level === 'error' ? 'alert' : null, text: item.text });
      case 'tool': return this.card(item);
      default: return h('div');
    }
  }

  card(item) {
    const preview = argsPreview(item.args);
    /** @type {HTMLElement[]} */
    const body = [
      h('details', { class: 'section', open: item.state === 'confirm' },
        h('summary', {}, 'Arguments'), h('pre', { text: pretty(item.args) })),
    ];
    if (item.state === 'done') {
      body.push(h('details', { class: 'section' }, h('summary', {}, 'Result'), h('pre', { class: 'result', text: pretty(item.value ?? '') })));
    } else if (item.state === 'error' || item.state === 'denied') {
      body.push(h('div', { class: 'card-error', text: item.error ?? '' }));
    }
    /** @type {(HTMLElement|null)[]|null} */
    let actions = null;
    if (item.state === 'confirm') {
      const turn = item.turn_id ?? this.chat.running;
      const answer = (run) => this.app.send({ type: 'panel_confirm', turn_id: turn, call_id: item.call_id, run });
      actions = [item.reason ? h('p', { class: 'confirm-reason small', text: item.reason }) : null, h('div', { class: 'confirm' },
        h('span', { text: item.read_only ? 'Run this call?' : 'This tool can change things. Run it?' }),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'ghost deny', on: { click: () => answer(false) } }, 'Deny'),
        h('button', { type: 'button', class: 'primary run', on: { click: () => answer(true) } }, 'Run'))];
    }
    return h('article', { class: `card tool state-${item.state}`, 'data-call': item.call_id, 'data-tool': item.tool },
      h('header', {},
        h('span', { class: 'tool-icon', 'aria-hidden': 'true', text: item.read_only ? '⌕' : '⚙' }),
        h('span', { class: 'tool-name', text: item.tool }),
        preview ? h('span', { class: 'args-preview muted', text: preview }) : null,
        h('span', { class: 'spacer' }),
        item.ms != null ? h('span', { class: 'muted ms', text: fmtMs(item.ms) }) : null,
        h('span', { class: `pill ${item.state}`, text: STATE_LABEL[item.state] ?? item.state })),
      body, actions);
  }
}
