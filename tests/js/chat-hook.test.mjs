// The chat page's MAIN-world hook (extension/page/chat/hook.js) on XMLHttpRequest, in a fake
// window: the isolated side is asked about each request, a watched one's body is the isolated
// side's (the instruction block added) and its text goes over chunk by chunk as it grows, then
// `end`; a request the isolated side does not watch is sent as written and not read; a response
// that is not text (json, arraybuffer, blob) goes over whole once loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const HOOK = readFileSync(new URL('../../extension/page/chat/hook.js', import.meta.url), 'utf8');

/** A page's XHR: `send` records the body, then the text arrives in pieces (`progress`), then `loadend`. */
class FakeXHR extends EventTarget {
  static pieces = ['data: {"a":', '1}\n\n', 'data: [DONE]\n\n'];
  static sent = [];
  open(method, url) { this.method = method; this.url = url; }
  send(body) {
    FakeXHR.sent.push(body);
    this.status = 200;
    this.text = '';
    setTimeout(() => {
      for (const p of FakeXHR.pieces) {
        this.text += p;
        this.dispatchEvent(new Event('progress'));
      }
      this.dispatchEvent(new Event('loadend'));
    });
  }
  get responseText() { return this.text; }
}

function page(decide) {
  const win = new EventTarget();
  // A class per page: the hook patches its prototype.
  Object.assign(win, { fetch: async () => { throw new Error('unused'); }, XMLHttpRequest: class extends FakeXHR {}, CustomEvent, Response, TextDecoder, Request, Blob });
  const told = [];
  win.addEventListener('webmcp-sidecar:chat-page', (e) => {
    const msg = JSON.parse(e.detail);
    told.push(msg);
    if (msg.type === 'request') win.dispatchEvent(new CustomEvent('webmcp-sidecar:chat-answer', { detail: JSON.stringify(decide(msg)) }));
  });
  vm.runInNewContext(HOOK, { window: win, EventTarget, location: { href: 'https://chat.test/c/1' }, URL, Object, JSON, Symbol, String, ArrayBuffer, Uint8Array });
  return { win, told };
}

const until = async (fn) => { for (let i = 0; i < 100 && !fn(); i++) await new Promise((r) => setTimeout(r, 5)); };

test('a watched XHR: the body the isolated side gives, the answer text in chunks, then end', async () => {
  FakeXHR.sent = [];
  const { win, told } = page((msg) => ({ watch: true, body: msg.body.replace('hi', 'TOOLS\nhi') }));
  const xhr = new win.XMLHttpRequest();
  xhr.open('post', '/api/chat?x=1');
  xhr.send('{"prompt":"hi"}');
  await until(() => told.some((m) => m.type === 'end'));
  assert.deepEqual(told[0], { type: 'request', id: 1, url: 'https://chat.test/api/chat?x=1', method: 'POST', body: '{"prompt":"hi"}', bin: false });
  assert.deepEqual(FakeXHR.sent, ['{"prompt":"TOOLS\nhi"}']);
  const chunks = told.filter((m) => m.type === 'chunk').map((m) => m.text);
  assert.deepEqual(chunks, FakeXHR.pieces);
  assert.deepEqual(told.at(-1), { type: 'end', id: 1, broken: false });
});

test('an XHR not watched is sent as written and not read; a second hook does nothing', async () => {
  FakeXHR.sent = [];
  const { win, told } = page(() => ({ watch: false }));
  vm.runInNewContext(HOOK, { window: win, EventTarget, location: { href: 'https://chat.test/' }, URL, Object, JSON, Symbol });
  const xhr = new win.XMLHttpRequest();
  xhr.open('GET', 'https://other.test/x');
  xhr.send(null);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(FakeXHR.sent, [null]);
  assert.deepEqual(told.map((m) => [m.type, m.method, m.url]), [['request', 'GET', 'https://other.test/x']]);
});

test('an XHR whose responseType is json, arraybuffer or blob: its whole answer once loaded, then end', async () => {
  const answer = 'data: {"a":"é"}\n\n';
  const responses = {
    json: () => ({ a: 'é' }),
    arraybuffer: () => new TextEncoder().encode(answer).buffer,
    blob: () => new Blob([answer]),
    document: () => ({ nodeType: 9 }),
  };
  for (const [type, make] of Object.entries(responses)) {
    const { win, told } = page(() => ({ watch: true }));
    // responseText throws for these types, as in browsers; `response` is the object.
    Object.defineProperty(win.XMLHttpRequest.prototype, 'responseText', { get() { throw new Error('InvalidStateError'); } });
    const xhr = new win.XMLHttpRequest();
    xhr.responseType = type;
    Object.defineProperty(xhr, 'response', { get: make });
    xhr.open('POST', '/api/chat');
    xhr.send('{}');
    await until(() => told.some((m) => m.type === 'end'));
    const chunks = told.filter((m) => m.type === 'chunk').map((m) => m.text);
    const want = { json: ['{"a":"é"}'], arraybuffer: [answer], blob: [answer], document: [] }[type];
    assert.deepEqual(chunks, want, type);
    assert.deepEqual(told.at(-1), { type: 'end', id: 1, broken: false }, type);
  }
});

test('a binary (Connect-RPC) XHR: its body goes over byte for byte, the new one goes out as bytes, the answer whole as bytes', async () => {
  class BinaryXHR extends FakeXHR {
    get responseType() { return 'arraybuffer'; }
    get response() { return new Uint8Array([0, 0, 0, 0, 2, 0x7b, 0x7d, 0xc8, 0xff]).buffer; }
    get responseText() { throw new Error('not text'); }
  }
  FakeXHR.sent = [];
  const { win, told } = page((msg) => ({ watch: true, bin: true, binary: true, body: `${msg.body}\u00ff` }));
  Object.setPrototypeOf(win.XMLHttpRequest.prototype, BinaryXHR.prototype);
  const xhr = new win.XMLHttpRequest();
  xhr.open('POST', '/apiv2/x.ChatService/Chat');
  xhr.send(new Uint8Array([0, 0, 0, 0, 2, 0x7b, 0x7d, 0x80]));
  await until(() => told.some((m) => m.type === 'end'));
  assert.equal(told[0].body, '\u0000\u0000\u0000\u0000\u0002{}\u0080');
  assert.equal(told[0].bin, true);
  assert.deepEqual([...FakeXHR.sent[0]], [0, 0, 0, 0, 2, 0x7b, 0x7d, 0x80, 0xff]);
  const chunks = told.filter((m) => m.type === 'chunk');
  assert.deepEqual(chunks.map((m) => [...m.bin].map((c) => c.charCodeAt(0))), [[0, 0, 0, 0, 2, 0x7b, 0x7d, 0xc8, 0xff]]);
});
