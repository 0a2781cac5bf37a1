// The request each real chat site's page sends (tests/support/chat_protocols.py serves the
// answers), for the replica page's `?protocol=` (chat.js): the endpoint and the body around the
// user's message, as in the sources docs/CHAT_SITES.md names. Kimi's is a Connect-RPC envelope:
// a flags byte, a 4-byte big-endian length, the JSON message, sent as bytes.
const connect = (message) => {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(5 + json.length);
  new DataView(out.buffer).setUint32(1, json.length);
  out.set(json, 5);
  return out;
};
window.replicaProtocols = {
  deepseek: {
    url: '/api/v0/chat/completion',
    body: (text) => JSON.stringify({ chat_session_id: 's1', parent_message_id: null, prompt: text, ref_file_ids: [], thinking_enabled: true, search_enabled: false }),
  },
  chatgpt: {
    url: '/backend-anon/f/conversation',
    body: (text) => JSON.stringify({ action: 'next', messages: [{ id: 'm1', author: { role: 'user' }, content: { content_type: 'text', parts: [text] } }], model: 'auto' }),
  },
  doubao: {
    url: '/chat/completion?aid=497858&device_platform=web',
    body: (text) => JSON.stringify({ client_meta: { conversation_id: '' }, messages: [{ local_message_id: 'l1',
      content_block: [{ block_type: 10000, content: { text_block: { text } }, block_id: 'b0' }], message_status: 0 }], option: { need_deep_think: 1 } }),
  },
  claude: {
    url: '/api/organizations/o1/chat_conversations/c1/completion',
    body: (text) => JSON.stringify({ prompt: text, timezone: 'UTC', attachments: [], files: [] }),
  },
  'doubao-samantha': {
    url: '/samantha/chat/completion?aid=497858',
    body: (text) => JSON.stringify({ messages: [{ content: JSON.stringify({ text }), content_type: 2001, attachments: [] }], completion_option: { is_regen: false } }),
  },
  gemini: {
    // An account other than the first: /u/1/. The answer is shown as text (the adapter reads the page).
    url: '/u/1/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?bl=x&_reqid=1&rt=c',
    type: 'application/x-www-form-urlencoded;charset=UTF-8',
    body: (text) => new URLSearchParams({ 'f.req': JSON.stringify([null, JSON.stringify([[text, 0, null, null, null, null, 0], ['en'], ['', '', '']])]), at: 'x' }).toString(),
    /** The answer so far in the text received so far: the last `wrb.fr` item's [4][0][1][0]. */
    show: (received) => {
      let text = '';
      for (const line of received.split('\n')) {
        if (!line.startsWith('[[')) continue;
        try { text = JSON.parse(JSON.parse(line)[0][2])[4][0][1][0]; } catch { /* a partial line */ }
      }
      return text;
    },
  },
  qwen: {
    url: '/api/v2/chat/completions?chat_id=c1',
    body: (text) => JSON.stringify({ stream: true, chat_id: 'c1', model: 'qwen3-max', messages: [{ role: 'user', content: text, chat_type: 't2t' }] }),
  },
  tongyi: {
    // The live site posts to another host (qianwen.biz.aliyun.com); the replica serves the same
    // path at its own origin (tests/e2e/test_chat_sites.py, shipped_on_replica).
    url: '/dialog/conversation',
    body: (text) => JSON.stringify({ model: '', action: 'next', mode: 'chat', sessionId: '', sessionType: 'text_chat',
      parentMsgId: '', contents: [{ content: text, contentType: 'text', role: 'user' }] }),
  },
  kimi: {
    url: '/apiv2/kimi.gateway.chat.v1.ChatService/Chat',
    type: 'application/connect+json',
    body: (text) => connect({ scenario: 'SCENARIO_K2D5', message: { role: 'user', blocks: [{ message_id: '', text: { content: text } }] }, options: { thinking: true } }),
  },
};
