// The chat page's input box (extension/page/chat/input.js) in a jsdom window, run as the classic
// script the isolated world runs. jsdom has no working execCommand, so this is the fallback path
// (the e2e test covers execCommand in Chromium): pages that keep the message in their own state
// get it from the events an editor listens to, and sending waits for the send button.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { JSDOM, VirtualConsole } from 'jsdom';

const INPUT = readFileSync(new URL('../../extension/page/chat/input.js', import.meta.url), 'utf8');

function page(body) {
  const dom = new JSDOM(`<!doctype html><body>${body}</body>`, { runScripts: 'outside-only', url: 'https://chat.test/', virtualConsole: new VirtualConsole() });
  const win = dom.window;
  win.eval(INPUT);
  return { win, doc: win.document, box: win.webmcpSidecar.chatInput };
}

/** A React-controlled textarea: its own `value` setter feeds the tracker; state only from input events. */
function reactLike(win, el) {
  const native = Object.getOwnPropertyDescriptor(win.HTMLTextAreaElement.prototype, 'value');
  const st = { tracked: '', state: '', events: [] };
  Object.defineProperty(el, 'value', { configurable: true, get() { return native.get.call(this); }, set(v) { st.tracked = String(v); native.set.call(this, v); } });
  el.addEventListener('input', (e) => {
    st.events.push(e.inputType);
    const now = native.get.call(el);
    if (now !== st.tracked) { st.tracked = now; st.state = now; }
  });
  return st;
}

test('a controlled textarea: the value goes past its tracker, its state gets the text', () => {
  const { win, doc, box } = page('<textarea id="in"></textarea>');
  const el = doc.getElementById('in');
  const st = reactLike(win, el);
  assert.equal(box.put(el, 'hello\n\n[tool_result add]\n5\n[/tool_result]'), true);
  assert.equal(st.state, 'hello\n\n[tool_result add]\n5\n[/tool_result]');
  assert.deepEqual(st.events, ['insertText']);
  assert.equal(box.textOf(el), st.state);
});

test('a contenteditable editor that takes beforeinput into its model and cancels it', () => {
  const { doc, box } = page('<div id="in" contenteditable="true"></div>');
  const el = doc.getElementById('in');
  let model = '';
  el.addEventListener('beforeinput', (e) => {
    if (e.inputType !== 'insertText') return;
    e.preventDefault();
    model = e.data;
    el.textContent = model; // the editor renders its model
  });
  assert.equal(box.put(el, 'the result'), true);
  assert.equal(model, 'the result');
});

test('a contenteditable editor that reads the DOM on input', () => {
  const { doc, box } = page('<div id="in" contenteditable="true">old</div>');
  const el = doc.getElementById('in');
  let model = 'old';
  el.addEventListener('input', () => { model = el.textContent; });
  assert.equal(box.put(el, 'new text'), true);
  assert.equal(model, 'new text');
});

test('send waits for the send button to be enabled, then clicks it once', async () => {
  const { doc, box } = page('<textarea id="in">result</textarea><button id="send" disabled>Send</button>');
  const el = doc.getElementById('in');
  const button = doc.getElementById('send');
  let clicks = 0;
  button.addEventListener('click', () => { clicks++; el.value = ''; });
  setTimeout(() => { button.disabled = false; }, 120); // the page re-renders a moment later
  assert.equal(await box.send(el, '#send'), 'sent');
  assert.equal(clicks, 1);
});

test('no send button: Enter on the box; a box that does not empty is reported as unsure', async () => {
  const { doc, box } = page('<textarea id="in">result</textarea>');
  const el = doc.getElementById('in');
  const keys = [];
  let listening = true;
  el.addEventListener('keydown', (e) => {
    keys.push([e.key, e.keyCode]);
    if (listening && e.key === 'Enter') el.value = '';
  });
  assert.equal(await box.send(el, null), 'sent');
  assert.deepEqual(keys, [['Enter', 13]]);
  listening = false;
  el.value = 'still here';
  assert.equal(await box.send(el, null), 'unsure'); // a page that ignored it: the user sends
});

test('an editor that took the edit its own way gets no second insertion', () => {
  const { doc, box } = page('<div id="in" contenteditable="true"></div>');
  const el = doc.getElementById('in');
  // Its insertText makes the text its own (here: a bullet in front), as formatting editors may.
  doc.execCommand = (cmd, _ui, text) => { el.textContent = `• ${text}`; return cmd === 'insertText'; };
  const seen = [];
  el.addEventListener('beforeinput', (e) => seen.push(e.type));
  el.addEventListener('input', (e) => seen.push(e.type));
  assert.equal(box.put(el, 'the result'), false); // the caller tells the user to check the box
  assert.equal(el.textContent, '• the result');
  assert.deepEqual(seen, []);
});

test('execCommand that takes: one insertion, spacing as the editor lays it out', () => {
  const { doc, box } = page('<div id="in" contenteditable="true">old</div>');
  const el = doc.getElementById('in');
  let calls = 0;
  // Paragraphs for line breaks, as ProseMirror-like editors render them.
  doc.execCommand = (_cmd, _ui, text) => { calls++; el.innerHTML = text.split('\n').map((l) => `<p>${l}</p>`).join(''); return true; };
  assert.equal(box.put(el, 'a\n\n[tool_result x]\n5\n[/tool_result]'), true);
  assert.equal(calls, 1);
});
