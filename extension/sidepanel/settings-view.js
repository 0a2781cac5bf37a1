// Settings: provider, model, base URL, the API key (typed here, sent once to the host's
// keyring, then forgotten), mode, limits; the connection's state; and what a build without the
// debugger (the Chrome Web Store build, Firefox) leaves out.

import { h } from './dom.js';
import { SETTINGS_RANGES } from '../lib/protocol.js';
import { browserLabel } from '../lib/browser.js';
import { browserName, buildNote } from '../lib/browser-support.js';

export class SettingsView {
  // The form's controls: render() makes them on the first agent_state, and nothing reads them
  // before that (the handlers that do are theirs; the others check `state` or the element).
  /** @type {HTMLSelectElement} */ providerSel;
  /** @type {HTMLInputElement} */ model;
  /** @type {HTMLInputElement} */ baseUrl;
  /** @type {HTMLElement} */ note;
  /** @type {HTMLElement} */ keyState;
  /** @type {HTMLInputElement} */ keyInput;
  /** @type {HTMLButtonElement} */ saveKeyBtn;
  /** @type {HTMLButtonElement} */ deleteKeyBtn;
  /** @type {HTMLElement} */ keyMsg;
  /** @type {HTMLElement} */ keyring;
  /** @type {HTMLSelectElement} */ toolMode;
  /** @type {HTMLInputElement} */ maxCalls;
  /** @type {HTMLInputElement} */ callTimeout;
  /** @type {HTMLInputElement} */ turnTimeout;
  /** @type {HTMLElement} */ saveMsg;
  /** @type {HTMLElement} */ convCount;

  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.root = root;
    /** @type {any} the host's agent_state */
    this.state = null;
    this.connection = h('div', { class: 'connection' });
    this.form = h('div', { class: 'settings-form' }, h('p', { class: 'muted', text: 'Waiting for the host…' }));
    /** Edited since the form was last drawn or saved (the key field does not count: it is sent at once). */
    this.dirty = false;
    const edited = (/** @type {Event} */ e) => { if (e.target !== this.keyInput) this.dirty = true; };
    this.form.addEventListener('input', edited);
    this.form.addEventListener('change', edited);
    root.append(this.form, h('h3', { text: 'Connection' }), this.connection);
    // A build without the debugger (the store build, Firefox) says what that leaves out.
    const note = buildNote(!!globalThis.chrome?.debugger, browserName(browserLabel(globalThis.navigator?.userAgent ?? '')));
    if (note) root.append(h('h3', { text: 'This build' }), h('p', { id: 'build-note', class: 'muted pad', text: note }));
    this.showConnection();
  }

  setState(state) {
    this.state = state;
    // A form the user is editing is not rebuilt under them (a state that comes while they type,
    // e.g. the first one arriving late, would undo their edits); the parts no one types in are.
    if (this.dirty && this.providerSel) {
      this.renderKey(this.providerSel.value);
      this.showKeyring();
      this.onConversations(state.conversations ?? []);
      return;
    }
    this.render();
  }

  onKeys(msg) {
    if (!this.state) return;
    this.state.keys = msg.keys;
    this.state.keyring = msg.keyring;
    const provider = this.providerSel?.value;
    this.renderKey(provider);
    if (msg.changed === provider) {
      this.say(this.keyMsg, msg.keys[provider] ? 'Key saved in the OS keyring.' : 'Key deleted.', 'ok');
    }
  }

  onError(msg) {
    if (msg.about === 'key' && this.keyMsg) this.say(this.keyMsg, msg.message, 'error');
    else if (this.saveMsg) this.say(this.saveMsg, msg.message, 'error');
  }

  say(el, text, kind) {
    el.textContent = text;
    el.className = `form-msg ${kind}`;
  }

  render() {
    const s = this.state.settings;
    const providers = this.state.providers;
    this.providerSel = h('select', { id: 'set-provider', on: { change: () => this.fillProvider() } },
      providers.map((p) => h('option', { value: p.id, selected: p.id === s.provider }, p.label)));
    this.model = h('input', { id: 'set-model', type: 'text', autocomplete: 'off', spellcheck: 'false' });
    this.baseUrl = h('input', { id: 'set-base-url', type: 'url', autocomplete: 'off', spellcheck: 'false' });
    this.note = h('small', { class: 'muted help' });
    this.keyState = h('div', { class: 'key-state' });
    this.keyInput = h('input', {
      id: 'set-key', type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'Paste a new API key',
      'aria-describedby': 'key-help', on: { input: () => { this.saveKeyBtn.disabled = !this.keyInput.value.trim(); }, keydown: (e) => { if (e.key === 'Enter') this.saveKey(); } },
    });
    this.saveKeyBtn = h('button', { type: 'button', class: 'primary', disabled: true, on: { click: () => this.saveKey() } }, 'Save key');
    this.deleteKeyBtn = h('button', { type: 'button', class: 'ghost', on: { click: () => this.deleteKey() } }, 'Delete key');
    this.keyMsg = h('div', { id: 'key-msg', class: 'form-msg', role: 'status' });
    this.keyring = h('div', { class: 'keyring' });
    const radio = (value, label, help) => h('label', { class: 'radio' },
      h('input', { type: 'radio', name: 'mode', value, checked: s.mode === value }), h('span', {}, h('b', { text: label }), h('small', { class: 'muted', text: ` ${help}` })));
    this.toolMode = h('select', { id: 'set-tool-mode' },
      [['auto', 'Automatic (native, else in the prompt)'], ['native', 'Native tool calling'], ['prompt', 'In the prompt (models without tool calling)']]
        .map(([v, l]) => h('option', { value: v, selected: s.tool_mode === v }, l)));
    // Bounds as the host's Settings model has them (generated into lib/generated/protocol.js).
    /** @param {string} id @param {number} value @param {keyof typeof SETTINGS_RANGES} field @param {number} step */
    const num = (id, value, field, step) => h('input', {
      id, type: 'number', value, min: SETTINGS_RANGES[field].min, max: SETTINGS_RANGES[field].max, step, class: 'num',
    });
    this.maxCalls = num('set-max-calls', s.max_tool_calls, 'max_tool_calls', 1);
    this.callTimeout = num('set-call-timeout', s.call_timeout_s, 'call_timeout_s', 1);
    this.turnTimeout = num('set-turn-timeout', s.turn_timeout_s, 'turn_timeout_s', 5);
    this.saveMsg = h('div', { id: 'save-msg', class: 'form-msg', role: 'status' });

    this.form.replaceChildren(
      h('h3', { text: 'Model' }),
      h('div', { class: 'field' }, h('label', { for: 'set-provider', class: 'field-label' }, 'Provider'), this.providerSel, this.note),
      h('div', { class: 'field' }, h('label', { for: 'set-model', class: 'field-label' }, 'Model'), this.model),
      h('div', { class: 'field' }, h('label', { for: 'set-base-url', class: 'field-label' }, 'Base URL'), this.baseUrl),
      h('h3', { text: 'API key' }),
      this.keyState,
      h('div', { class: 'field' }, h('label', { for: 'set-key', class: 'field-label' }, 'New key'),
        h('div', { class: 'row' }, this.keyInput, this.saveKeyBtn)),
      h('small', { id: 'key-help', class: 'muted help', text: 'The key goes straight to the OS keyring on this computer; the browser never keeps it.' }),
      h('div', { class: 'row' }, this.deleteKeyBtn),
      this.keyMsg, this.keyring,
      h('h3', { text: 'Behaviour' }),
      h('div', { class: 'field', role: 'radiogroup', 'aria-label': 'Mode' },
        radio('confirm', 'Confirm changes', 'ask before tools that are not read-only'),
        radio('auto', 'Auto', 'run every call without asking')),
      h('div', { class: 'field' }, h('label', { for: 'set-tool-mode', class: 'field-label' }, 'Tool calling'), this.toolMode),
      h('div', { class: 'limits' },
        h('label', { for: 'set-max-calls' }, 'Tool calls per turn', this.maxCalls),
        h('label', { for: 'set-call-timeout' }, 'Seconds per call', this.callTimeout),
        h('label', { for: 'set-turn-timeout' }, 'Seconds per turn', this.turnTimeout)),
      h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary', id: 'save-settings', on: { click: () => this.save() } }, 'Save settings'), this.saveMsg),
      h('h3', { text: 'Conversations' }),
      this.convCount = h('small', { class: 'muted help' }),
      h('div', { class: 'row' }, this.clearAllButton()),
    );
    this.fillProvider();
    this.showKeyring();
    this.onConversations(this.state.conversations ?? []);
    if (this.justSaved) this.say(this.saveMsg, 'Saved.', 'ok');
    this.justSaved = false;
    this.dirty = false;
  }

  onConversations(list) {
    if (this.state) this.state.conversations = list;
    if (this.convCount) this.convCount.textContent = `${list.length} kept on this computer (in the host's data folder).`;
  }

  /** Deletes every conversation on a second click (no modal dialog, keyboard friendly). */
  clearAllButton() {
    const btn = h('button', { type: 'button', class: 'ghost', id: 'delete-all' }, 'Delete all conversations');
    let armed = false;
    btn.addEventListener('click', () => {
      if (!armed) {
        armed = true;
        btn.textContent = 'Click again to delete them all';
        btn.classList.add('danger');
        setTimeout(() => {
          armed = false;
          btn.textContent = 'Delete all conversations';
          btn.classList.remove('danger');
        }, 4000);
        return;
      }
      this.app.send({ type: 'panel_delete', conversation_id: null });
      btn.textContent = 'Deleted';
      btn.disabled = true;
    });
    return btn;
  }

  preset(id) {
    return this.state.providers.find((p) => p.id === id);
  }

  fillProvider() {
    const id = this.providerSel.value;
    const p = this.preset(id);
    const conf = this.state.settings.providers?.[id] ?? {};
    this.model.value = conf.model ?? '';
    this.model.placeholder = p.model || 'model name';
    this.baseUrl.value = conf.base_url ?? '';
    this.baseUrl.placeholder = p.base_url || 'https://your-server/v1';
    this.note.textContent = p.note ?? '';
    this.renderKey(id);
  }

  renderKey(id) {
    if (!this.keyState) return;
    const p = this.preset(id);
    const set = !!this.state.keys?.[id];
    this.keyState.replaceChildren(
      h('span', { class: `pill ${set ? 'done' : p.needs_key ? 'error' : 'muted'}`, text: set ? 'key set' : p.needs_key ? 'no key' : 'no key needed' }),
      h('span', { class: 'muted', text: set ? ` A key for ${p.label} is in the OS keyring.` : p.needs_key ? ` ${p.label} needs an API key.` : ` ${p.label} works without a key.` }));
    this.deleteKeyBtn.hidden = !set;
  }

  showKeyring() {
    const k = this.state.keyring;
    this.keyring.replaceChildren(k.ok ? h('small', { class: 'muted', text: k.message })
      : h('div', { class: 'card-error', role: 'alert', text: k.message }));
  }

  saveKey() {
    const provider = this.providerSel.value;
    /** @type {string|null} */
    let key = this.keyInput.value.trim();
    // Forget it here at once: the field, then our copy once it is on its way.
    this.keyInput.value = '';
    this.saveKeyBtn.disabled = true;
    if (!key) return;
    const sent = this.app.send({ type: 'panel_key', provider, key });
    key = null;
    this.say(this.keyMsg, sent ? 'Saving…' : 'The host is not connected; the key was not sent.', sent ? 'muted' : 'error');
  }

  deleteKey() {
    this.app.send({ type: 'panel_key', provider: this.providerSel.value, key: null });
  }

  save() {
    const provider = this.providerSel.value;
    /** @type {[HTMLInputElement, string][]} */
    const numbers = [[this.maxCalls, 'Tool calls per turn'], [this.callTimeout, 'Seconds per call'], [this.turnTimeout, 'Seconds per turn']];
    for (const [input, label] of numbers) {
      if (!input.checkValidity() || input.value === '') {
        return this.say(this.saveMsg, `${label} must be between ${input.min} and ${input.max}.`, 'error');
      }
    }
    const providers = { ...(this.state.settings.providers ?? {}) };
    providers[provider] = { model: this.model.value.trim(), base_url: this.baseUrl.value.trim() };
    const settings = {
      provider, providers,
      mode: /** @type {HTMLInputElement|null} */ (this.form.querySelector('input[name="mode"]:checked'))?.value ?? 'confirm',
      tool_mode: this.toolMode.value,
      max_tool_calls: Number(this.maxCalls.value),
      call_timeout_s: Number(this.callTimeout.value),
      turn_timeout_s: Number(this.turnTimeout.value),
    };
    if (!this.app.send({ type: 'panel_settings', settings })) {
      return this.say(this.saveMsg, 'The host is not connected; nothing was saved.', 'error');
    }
    this.state.settings = settings;
    this.justSaved = true; // the host answers with its state, which redraws the form
    this.dirty = false;
    this.say(this.saveMsg, 'Saving…', 'muted');
  }

  showConnection() {
    const st = this.app.status;
    const rows = [];
    if (!st) rows.push(h('p', { class: 'muted', text: 'Asking the extension…' }));
    else {
      rows.push(h('p', {}, h('span', { class: `pill ${st.connected ? 'done' : 'error'}`, text: st.connected ? 'connected' : st.state }),
        h('span', { text: st.connected ? ' The host is running.' : ' The host is not connected.' })));
      if (!st.connected && st.hint) rows.push(h('div', { class: 'card-error', text: st.hint }));
      const clients = st.mcpClients ?? [];
      rows.push(h('p', { class: 'muted', text: clients.length ? `MCP clients: ${clients.join(', ')}` : 'No MCP client is using the tools right now.' }));
      const sites = Object.keys(st.sites ?? {});
      rows.push(h('p', { class: 'muted', text: `${sites.length} site${sites.length === 1 ? '' : 's'} with tools open.` }));
    }
    this.connection.replaceChildren(...rows);
  }
}
