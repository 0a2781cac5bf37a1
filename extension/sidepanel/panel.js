// The side panel: one port to the service worker (`webmcp-panel`), eight views. The worker
// relays `panel_*` messages to the host and hands back its `agent_*` messages; the Inspector
// and the operation log live in the worker itself, so they work without the host.

import { pickTarget } from '../lib/target-tab.js';
import { siteOf } from '../lib/site.js';
import { ChatSitesView } from './chat-sites-view.js';
import { ChatView } from './chat-view.js';
import { h, one } from './dom.js';
import { InspectorView } from './inspector-view.js';
import { LogView } from './log-view.js';
import { ServersView } from './servers-view.js';
import { SessionsView } from './sessions-view.js';
import { SettingsView } from './settings-view.js';
import { SkillsView } from './skills-view.js';

const PORT_NAME = 'webmcp-panel';
const STATUS_EVERY_MS = 2000;
const params = new URLSearchParams(location.search);
// ?tab=ID pins the panel to a tab (tests, or a panel opened in a tab of its own).
const pinnedTab = params.has('tab') ? Number(params.get('tab')) : null;

/** Shared state and the way views talk to the worker. */
export const app = {
  /** @type {chrome.runtime.Port|null} */ port: null,
  /** @type {any} */ status: null,
  /** @type {{id?: number, url?: string, title?: string}|null} */ target: null,
  /** @param {any} msg */
  send(msg) {
    if (!app.port) return false;
    if (msg?.type === 'panel_chat' && !('servers' in msg)) {
      // The local MCP servers this conversation uses (the Servers view keeps the choice).
      const servers = views.servers.forChat(msg.conversation_id ?? null);
      if (servers) msg = { ...msg, servers };
    }
    try {
      app.port.postMessage(msg);
      return true;
    } catch {
      return false;
    }
  },
  targetSite() {
    return app.target?.url ? siteOf(app.target.url) : null;
  },
  siteTools(site) {
    return (site && app.status?.sites?.[site]) || [];
  },
  /** @returns {string|null} the conversation the chat shows (null: a new one) */
  conversationId() {
    return views.chat.chat.conversationId ?? null;
  },
  /** @type {ServersView|null} the user's local MCP servers (the Inspector lists their tools) */
  servers: null,
};

const views = {
  chat: new ChatView(one('#view-chat'), app),
  inspector: new InspectorView(one('#view-inspector'), app),
  log: new LogView(one('#view-log'), app, one('#log-count')),
  sessions: new SessionsView(one('#view-sessions')),
  skills: new SkillsView(one('#view-skills'), app),
  servers: new ServersView(one('#view-servers'), app),
  chatsites: new ChatSitesView(one('#view-chatsites'), app),
  settings: new SettingsView(one('#view-settings'), app),
};

/** The views of the kinds of documents, by kind (`doc_answer` names one). */
const docViews = { skills: views.skills, chat_sites: views.chatsites };

app.servers = views.servers;
views.servers.listeners.add(() => views.inspector.update());

// --- the port ------------------------------------------------------------------------------

function connect() {
  const port = chrome.runtime.connect({ name: PORT_NAME });
  app.port = port;
  port.onMessage.addListener(onMessage);
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError;
    if (app.port === port) app.port = null;
    showConnection(null);
    setTimeout(connect, 500); // the worker restarted: greet the new one
  });
  app.send({ type: 'hello' });
  app.send({ type: 'panel_hello' });
}

function onMessage(msg) {
  switch (msg?.type) {
    case 'status': {
      const wasConnected = app.status?.connected;
      const wasMismatch = app.status?.state === 'mismatch';
      app.status = msg;
      showConnection(msg);
      showTarget();
      views.inspector.update();
      views.settings.showConnection();
      views.chat.showTarget();
      views.skills.statusChanged();
      views.servers.statusChanged();
      views.chatsites.statusChanged();
      // The host just came (back): ask it for the agent's state.
      if (msg.connected && !wasConnected && !views.settings.state) app.send({ type: 'panel_hello' });
      if (!msg.connected && msg.state === 'disconnected') views.chat.hostLost();
      // Extension and host speak different protocols: say so where the user looks, once.
      if (msg.state === 'mismatch' && !wasMismatch && msg.hint) views.chat.onError({ message: msg.hint });
      return;
    }
    case 'oplog': return views.log.upsert(msg.entry);
    case 'oplog_all': return views.log.replace(msg.entries);
    case 'inspect_result': return views.inspector.onResult(msg);
    case 'agent_state':
      views.settings.setState(msg);
      views.chat.setState(msg);
      return;
    case 'agent_keys': return views.settings.onKeys(msg);
    case 'doc_answer': return docViews[msg.kind]?.onAnswer(msg);
    case 'agent_servers': return views.servers.onAnswer(msg);
    case 'agent_conversation':
      views.settings.onConversations(msg.conversations);
      return views.chat.setConversation(msg.conversation, msg.conversations);
    case 'agent_event':
      views.chat.onEvent(msg);
      return views.servers.onChatEvent(msg); // progress on the card, after the card exists
    case 'agent_error':
      if (msg.about === 'key' || msg.about === 'settings') return views.settings.onError(msg);
      return views.chat.onError(msg);
    default:
  }
}

// --- header: connection and target tab ------------------------------------------------------

function showConnection(status) {
  const el = one('#conn');
  const state = status ? (status.connected ? 'connected' : status.state) : 'disconnected';
  el.dataset.state = state;
  const clients = status?.mcpClients?.length ?? 0;
  const label = state === 'connected'
    ? `Host connected${clients ? ` · ${clients} MCP client${clients > 1 ? 's' : ''}` : ''}`
    : state === 'connecting' ? 'Connecting to the host…'
      : state === 'mismatch' ? "Host and extension don't match" : 'Host not connected';
  one('.label', el).textContent = label;
  el.title = status?.hint ?? label;
}

async function refreshTarget() {
  try {
    const tabs = await chrome.tabs.query({});
    app.target = pickTarget(tabs, pinnedTab);
  } catch {
    app.target = null;
  }
  showTarget();
  views.chat.showTarget();
  views.inspector.update();
  views.skills.targetChanged();
}

function showTarget() {
  const el = one('#target');
  const site = app.targetSite();
  const tools = app.siteTools(site);
  el.replaceChildren(
    site
      ? h('span', {}, h('span', { class: 'muted' }, 'Page: '), h('b', { text: site }),
        h('span', { class: 'muted' }, ` · ${tools.length} tool${tools.length === 1 ? '' : 's'}`))
      : h('span', { class: 'muted', text: 'No web page in the active tab' }),
  );
  if (app.target?.title) el.title = `${app.target.title}\n${app.target.url}`;
}

let targetTimer = 0;
const scheduleTarget = () => {
  clearTimeout(targetTimer);
  targetTimer = setTimeout(refreshTarget, 50);
};
chrome.tabs.onActivated.addListener(scheduleTarget);
chrome.tabs.onRemoved.addListener(scheduleTarget);
chrome.tabs.onUpdated.addListener((_id, info) => { if (info.url || info.title || info.status) scheduleTarget(); });
chrome.windows?.onFocusChanged?.addListener(scheduleTarget);

// --- tabs (keyboard: arrows within the tab list, Alt+1..8 anywhere) --------------------------

const tabButtons = [.../** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('[role="tab"]'))];

function selectTab(button, focus = false) {
  for (const b of tabButtons) {
    const on = b === button;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
    one(`#${b.getAttribute('aria-controls')}`).hidden = !on;
  }
  if (focus) button.focus();
  const name = button.id.replace('tab-', '');
  for (const [other, view] of Object.entries(views)) if (other !== name) /** @type {any} */ (view).hidden?.();
  views[name]?.shown?.();
  document.body.dataset.view = name;
}

for (const b of tabButtons) b.addEventListener('click', () => selectTab(b));
one('.tabs').addEventListener('keydown', (e) => {
  const i = tabButtons.indexOf(/** @type {any} */ (document.activeElement));
  if (i < 0) return;
  const next = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0
    : e.key === 'End' ? tabButtons.length - 1 : null;
  if (next === null) return;
  e.preventDefault();
  selectTab(tabButtons[(next + tabButtons.length) % tabButtons.length], true);
});
document.addEventListener('keydown', (e) => {
  if (e.altKey && e.key >= '1' && e.key <= String(tabButtons.length)) {
    e.preventDefault();
    selectTab(tabButtons[Number(e.key) - 1], true);
  }
});
if (params.get('view')) {
  const b = document.getElementById(`tab-${params.get('view')}`);
  if (b) selectTab(b);
} else document.body.dataset.view = 'chat';

// "Save as skill" (log and Sessions views, skill-draft.js): the draft opens in the Skills editor.
document.addEventListener('webmcp-skill-draft', (e) => {
  const detail = /** @type {CustomEvent} */ (e).detail;
  if (typeof detail?.text !== 'string') return;
  e.preventDefault();
  selectTab(/** @type {HTMLButtonElement} */ (one('#tab-skills')));
  views.skills.editor.open(detail.text);
});

// For debugging and the benchmarks (bench/agent.py), as the worker's globalThis.sidecar.
globalThis.sidecarPanel = { app, views };

connect();
refreshTarget();
setInterval(() => app.send({ type: 'status' }), STATUS_EVERY_MS);
