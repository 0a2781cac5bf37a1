// A WebSocket for the links' tests (loopback-link, entry-links): opened, fed and closed by hand; and
// a worker that makes its links with it.

import { startWorker, tick, tool } from './fake-chrome.mjs';

/** A WebSocket the test opens, feeds and closes by hand. */
export class FakeWS {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;
  /** @type {FakeWS[]} */ static made = [];
  constructor(url) {
    this.url = url;
    this.readyState = FakeWS.CONNECTING;
    this.sent = [];
    FakeWS.made.push(this);
  }
  send(text) {
    if (this.readyState !== FakeWS.OPEN) throw new Error('InvalidStateError');
    this.sent.push(JSON.parse(text));
  }
  close() {
    this.readyState = FakeWS.CLOSED;
    this.onclose?.({ code: 1000 });
  }
  /** The host side. */
  accept() { this.readyState = FakeWS.OPEN; this.onopen?.(); }
  receive(data) { this.onmessage?.({ data: typeof data === 'string' ? data : JSON.stringify(data) }); }
  take() { const s = this.sent; this.sent = []; return s; }
}

/**
 * A worker whose WebSocket is FakeWS, with b.com's tool `bx` open in tab 1 (`frame`).
 * @param {import('node:test').TestContext} t
 */
export async function workerWithFakeWS(t) {
  const saved = globalThis.WebSocket;
  globalThis.WebSocket = /** @type {any} */ (FakeWS);
  t.after(() => { globalThis.WebSocket = saved; });
  FakeWS.made = [];
  const w = startWorker(t);
  const frame = w.connectFrame(1, 0, 'http://b.com/');
  w.sendTools(frame, [tool('bx')]);
  await tick();
  w.fromHost();
  return { w, frame };
}
