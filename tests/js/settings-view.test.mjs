// The Settings view (sidepanel/settings-view.js, in jsdom): a state that arrives while the user
// edits the form (the first one coming late, or another panel's save) never undoes their edits;
// once saved, the host's answer redraws the form and says so.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><body></body>');
globalThis.document = dom.window.document;
globalThis.Node = dom.window.Node;
const { Event } = dom.window;
const { SettingsView } = await import('../../extension/sidepanel/settings-view.js');

const PROVIDERS = [
  { id: 'deepseek', label: 'DeepSeek', model: 'deepseek-chat', base_url: 'https://api.deepseek.com', needs_key: true },
  { id: 'anthropic', label: 'Anthropic', model: 'claude', base_url: 'https://api.anthropic.com', needs_key: true },
];
const state = (provider = 'deepseek', model = '') => ({
  providers: PROVIDERS, keys: {}, keyring: { ok: true, message: 'ok' }, conversations: [],
  settings: { provider, providers: { [provider]: { model, base_url: '' } }, mode: 'confirm', tool_mode: 'auto',
    max_tool_calls: 10, call_timeout_s: 10, turn_timeout_s: 60 },
});

function view() {
  const sent = [];
  const app = { status: {}, send: (m) => { sent.push(m); return true; } };
  const root = document.createElement('div');
  document.body.replaceChildren(root);  // one view at a time: the ids are the page's
  const v = new SettingsView(root, app);
  return { v, sent };
}

/** What a person does: pick a value, which fires the events a browser fires. */
function edit(el, value) {
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

test('a state arriving while the user edits keeps their edits', () => {
  const { v } = view();
  v.setState(state());
  edit(v.providerSel, 'anthropic');
  edit(v.model, 'claude-x');
  v.setState(state('deepseek', 'other'));  // late, or from another panel
  assert.equal(document.getElementById('set-provider').value, 'anthropic');
  assert.equal(document.getElementById('set-model').value, 'claude-x');
});

test('once saved, the host\'s answer redraws the form from what it saved, and says so', () => {
  const { v, sent } = view();
  v.setState(state());
  edit(v.providerSel, 'anthropic');
  edit(v.model, 'claude-x');
  document.getElementById('save-settings').click();
  const saved = sent.find((m) => m.type === 'panel_settings').settings;
  assert.equal(saved.provider, 'anthropic');
  assert.equal(saved.providers.anthropic.model, 'claude-x');
  v.setState({ ...state('anthropic', 'claude-x'), settings: saved });
  assert.equal(document.getElementById('save-msg').textContent, 'Saved.');
  assert.equal(document.getElementById('set-provider').value, 'anthropic');
  // Nothing edited since: a later state is drawn.
  v.setState(state('deepseek', 'chat-2'));
  assert.equal(document.getElementById('set-provider').value, 'deepseek');
  assert.equal(document.getElementById('set-model').value, 'chat-2');
});
