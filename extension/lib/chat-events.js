// The chat's state, reduced from the host's agent events (and rebuilt from a stored
// conversation). Pure: the panel renders what changed.

/**
 * @typedef {{key: string, kind: 'user', text: string}} UserItem
 * @typedef {{key: string, kind: 'assistant', text: string}} AssistantItem
 * @typedef {{key: string, kind: 'tool', call_id: string, tool: string, site: string|null,
 *   args: any, read_only: boolean, state: 'running'|'confirm'|'done'|'error'|'denied',
 *   value?: string|null, error?: string|null, ms?: number|null, turn_id?: string,
 *   reason?: string|null}} ToolItem
 * @typedef {{key: string, kind: 'notice', text: string, level: 'info'|'error'}} NoticeItem
 * @typedef {UserItem|AssistantItem|ToolItem|NoticeItem} Item
 * @typedef {{items: Item[], running: string|null, conversationId: string|null,
 *   stats: any, _seq: number, _open: AssistantItem|null}} ChatState
 */

/** @param {string|null} [conversationId] @returns {ChatState} */
export function newChat(conversationId = null) {
  return { items: [], running: null, conversationId, stats: null, _seq: 0, _open: null };
}

/**
 * A stored conversation (`ConversationView` from the host) as chat state.
 * @param {{id: string, items: any[]}} view
 * @param {string|null} [running] the turn still running, if any
 */
export function loadConversation(view, running = null) {
  const state = newChat(view.id);
  for (const item of view.items ?? []) state.items.push({ ...item, key: `k${++state._seq}` });
  state.running = running;
  return state;
}

/**
 * Applies one `agent_event` message. Returns the items that changed (to re-render), or null
 * when the event belongs to another conversation.
 * @param {ChatState} state
 * @param {{conversation_id: string, turn_id: string, event: any}} msg
 * @returns {Item[]|null}
 */
export function applyEvent(state, msg) {
  if (state.conversationId && msg.conversation_id !== state.conversationId) return null;
  state.conversationId = msg.conversation_id;
  const ev = msg.event;
  const push = (item) => {
    item.key = `k${++state._seq}`;
    state.items.push(item);
    return [item];
  };
  switch (ev.kind) {
    case 'turn_start':
      state.running = msg.turn_id;
      state.stats = null;
      state._open = null;
      return push({ kind: 'user', text: ev.text });
    case 'text': {
      if (!state._open) {
        state._open = /** @type {AssistantItem} */ ({ kind: 'assistant', text: '' });
        push(state._open);
      }
      state._open.text += ev.text;
      return [state._open];
    }
    case 'tool_call':
      state._open = null;
      return push({
        kind: 'tool', call_id: ev.call_id, tool: ev.tool, site: ev.site ?? null, args: ev.args ?? {},
        read_only: !!ev.read_only, state: 'running', turn_id: msg.turn_id,
      });
    case 'confirm': {
      const card = findCard(state, ev.call_id);
      if (!card) return [];
      card.state = 'confirm';
      card.reason = typeof ev.reason === 'string' ? ev.reason : null; // why it is asked (host's words)
      return [card];
    }
    case 'tool_result': {
      const card = findCard(state, ev.call_id);
      if (!card) return [];
      card.state = ev.denied ? 'denied' : ev.ok ? 'done' : 'error';
      card.value = ev.value ?? null;
      card.error = ev.error ?? null;
      card.ms = ev.ms ?? null;
      return [card];
    }
    case 'notice':
      state._open = null;
      return push({ kind: 'notice', text: ev.text, level: 'info' });
    case 'error':
      state._open = null;
      return push({ kind: 'notice', text: ev.message, level: 'error', code: ev.code });
    case 'turn_end': {
      state.running = null;
      state.stats = ev.stats ?? null;
      state._open = null;
      const changed = [];
      for (const item of state.items) {
        if (item.kind === 'tool' && (item.state === 'running' || item.state === 'confirm')) {
          item.state = 'error';
          item.error = item.error ?? 'Stopped before it finished.';
          changed.push(item);
        }
      }
      if (ev.reason === 'stopped') changed.push(...push({ kind: 'notice', text: 'Stopped.', level: 'info' }));
      return changed;
    }
    default:
      return [];
  }
}

function findCard(state, callId) {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === 'tool' && it.call_id === callId) return it;
  }
  return null;
}
