// A replica chat page (tests/support/chat_replica.py, chat.html): posts the whole conversation to
// api/chat and renders the streamed answer, as chat websites do. It reads its own formats and
// `other`. The query string says how it behaves, as different real sites do (copied onto the
// <html> element's data-*, so a test can read it back):
// - transport: `fetch` (a streamed body) or `xhr` (XMLHttpRequest, the answer read from
//   `responseText` as it grows, in `onprogress`; with xhr-type `arraybuffer` or `blob`, read
//   whole from `response` once loaded, as sites that ask for bytes do);
// - input: `plain` (a textarea whose DOM value is the message), `react` (a controlled
//   textarea: the message is the page's own state, updated only from `input` events the way
//   React's onChange is, with React's value tracker; the DOM is rendered from that state a moment
//   later and the send button is disabled while it is empty), or `editable` (a contenteditable
//   editor whose model is updated from `input` events, as ProseMirror-, Lexical- and Quill-like
//   editors keep their own document; sending sends the model, not the DOM);
// - trusted=only: the send button and Enter answer only trusted (user) events, as a site
//   guarding against scripts may;
// - protocol: a real site's request (protocols.js) to that site's endpoint, whose answer comes in
//   that site's format; the page shows only how many bytes came (nothing a DOM reading could
//   take a call from: a card then proves the adapter read the stream).
// `window.replica.draft` is the message as the page would send it, for the tests.
const settings = document.documentElement.dataset;
for (const [key, value] of new URLSearchParams(location.search)) {
  settings[key.replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
}
const { transport = 'fetch', input: inputKind = 'plain', trusted = '', xhrType = '', protocol = '' } = settings;
const ignored = (e) => trusted === 'only' && !e.isTrusted;
if (inputKind === 'editable') {
  const editor = Object.assign(document.createElement('div'), { id: 'input', contentEditable: 'true' });
  editor.setAttribute('role', 'textbox');
  document.getElementById('input').replaceWith(editor);
}
const input = document.getElementById('input');
const sendButton = document.getElementById('send');
const log = document.getElementById('log');
const messages = [];

function textOf(obj) {
  return obj?.choices?.[0]?.delta?.content ?? obj?.message?.content ?? obj?.delta_text ?? '';
}

// --- the input box ------------------------------------------------------------------------------

const nativeValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value');
let draft = '';
let tracked = ''; // React's value tracker: the last value the page itself knows of
let renderTimer = 0;

/** The page's re-render, a moment after a change (as React batches): DOM from state, the button. */
function scheduleRender() {
  clearTimeout(renderTimer);
  renderTimer = setTimeout(() => {
    if (inputKind === 'react' && nativeValue.get.call(input) !== draft) input.value = draft;
    if (inputKind === 'editable' && input.innerText.replace(/\n$/, '') !== draft) input.textContent = draft;
    sendButton.disabled = !draft.trim();
  }, 30);
}

if (inputKind === 'react') {
  // React's tracker: a value set through the element's own `value` is remembered, so the input
  // event that follows it changes nothing; only a value the tracker has not seen updates state.
  Object.defineProperty(input, 'value', {
    configurable: true,
    get() { return nativeValue.get.call(this); },
    set(v) { tracked = String(v); nativeValue.set.call(this, v); },
  });
  input.addEventListener('input', () => {
    const now = nativeValue.get.call(input);
    if (now === tracked) return;
    tracked = now;
    draft = now;
    scheduleRender();
  });
  sendButton.disabled = true;
} else if (inputKind === 'editable') {
  input.addEventListener('input', () => {
    draft = input.innerText.replace(/\n$/, '');
    scheduleRender();
  });
  sendButton.disabled = true;
}

function takeMessage() {
  let text;
  if (inputKind === 'plain') {
    text = input.value.trim();
    input.value = '';
  } else {
    text = draft.trim();
    draft = '';
    scheduleRender();
  }
  return text;
}

window.replica = {
  get draft() { return inputKind === 'plain' ? input.value : draft; },
};

// --- the answer -------------------------------------------------------------------------------

/** Turns the answer's text as it grows into lines, and their text into the answer shown. */
function answerView() {
  const answer = document.createElement('div');
  answer.className = 'answer';
  log.append(answer);
  let buf = '';
  let full = '';
  return {
    push(more) {
      buf += more;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (let line of lines) {
        line = line.startsWith('data: ') ? line.slice(6) : line;
        if (!line.trim() || line === '[DONE]') continue;
        try { full += textOf(JSON.parse(line)); } catch { /* not ours */ }
        answer.textContent = full;
      }
    },
    get full() { return full; },
  };
}

async function viaFetch(body) {
  const res = await fetch('api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const view = answerView();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    view.push(decoder.decode(value, { stream: true }));
  }
  return view.full;
}

function viaXhr(body) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const view = answerView();
    let seen = 0;
    const more = () => {
      view.push(xhr.responseText.slice(seen));
      seen = xhr.responseText.length;
    };
    xhr.open('POST', 'api/chat');
    xhr.setRequestHeader('Content-Type', 'application/json');
    if (xhrType) {
      xhr.responseType = xhrType;
      xhr.onload = async () => {
        view.push(xhrType === 'blob' ? await xhr.response.text() : new TextDecoder().decode(xhr.response));
        resolve(view.full);
      };
      xhr.onerror = () => reject(new Error('the chat request failed'));
      xhr.send(body);
      return;
    }
    xhr.onprogress = more;
    xhr.onload = () => { more(); resolve(view.full); };
    xhr.onerror = () => reject(new Error('the chat request failed'));
    xhr.send(body);
  });
}

async function viaProtocol(text) {
  const p = window.replicaProtocols[protocol];
  const res = await fetch(p.url, { method: 'POST', headers: { 'Content-Type': p.type ?? 'application/json' }, body: p.body(text) });
  const answer = document.createElement('div');
  answer.className = 'answer';
  log.append(answer);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let received = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    received += decoder.decode(value, { stream: true });
    // A site read from the page (`show`) shows its answer; the others only a count.
    answer.textContent = p.show ? p.show(received) : `An answer of ${bytes} bytes.`;
  }
  return answer.textContent;
}

async function send() {
  const text = takeMessage();
  if (!text) return;
  messages.push({ role: 'user', content: text });
  const mine = document.createElement('div');
  mine.className = 'user';
  mine.textContent = text;
  log.append(mine);
  const body = JSON.stringify({ messages, stream: true });
  const full = await (protocol ? viaProtocol(text) : transport === 'xhr' ? viaXhr(body) : viaFetch(body));
  messages.push({ role: 'assistant', content: full });
  document.body.dataset.answers = String(document.querySelectorAll('.answer').length);
  if (inputKind !== 'plain') scheduleRender(); // a re-render: a DOM the state does not know is undone
}

sendButton.addEventListener('click', (e) => { if (!ignored(e)) send(); });
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !ignored(e)) { e.preventDefault(); send(); }
});
