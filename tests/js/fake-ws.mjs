// A WebSocket for the links' tests (fast-link, entry-links): opened, fed and closed by hand.

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
