// A replica chat page (tests/support/chat_replica.py): posts the whole conversation to api/chat
// and renders the streamed answer, as chat websites do. It reads its own formats and `other`.
const kind = document.documentElement.dataset.kind;
const input = document.getElementById('input');
const log = document.getElementById('log');
const messages = [];

function textOf(obj) {
  return obj?.choices?.[0]?.delta?.content ?? obj?.message?.content ?? obj?.delta_text ?? '';
}

async function send() {
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  messages.push({ role: 'user', content: text });
  const mine = document.createElement('div');
  mine.className = 'user';
  mine.textContent = text;
  log.append(mine);
  const res = await fetch('api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages, stream: true }) });
  const answer = document.createElement('div');
  answer.className = 'answer';
  log.append(answer);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let full = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    const lines = buf.split('\n');
    buf = lines.pop();
    for (let line of lines) {
      line = line.startsWith('data: ') ? line.slice(6) : line;
      if (!line.trim() || line === '[DONE]') continue;
      try { full += textOf(JSON.parse(line)); } catch { /* not ours */ }
      answer.textContent = full;
    }
  }
  messages.push({ role: 'assistant', content: full });
  document.body.dataset.answers = String(document.querySelectorAll('.answer').length);
}

document.getElementById('send').addEventListener('click', send);
input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); } });
