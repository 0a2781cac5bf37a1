// The fast link: a WebSocket to the host on the loopback interface, beside the native port
// (the host's end: native_host/fast_link.py). Chromium's native messaging delivers about one
// message in ten several milliseconds late; this socket does not (bench/README.md, "The fast
// link"). The host offers it over the native port (`fast_link`: port and token, checked by
// lib/messages.js) and sends site calls over it; the worker sends results over it
// (native-link.js). Anything else, and everything while it is not open, takes the native port.
// The token lives in this object only: never stored, logged or shown.

/** The URL of a checked offer. @param {number} port @param {string} token */
export const fastLinkUrl = (port, token) => `ws://127.0.0.1:${port}/link/${token}`;

/** What the host sends over the link; anything else is refused (the native port carries it). */
const FROM_LINK = new Set(['call', 'cancel']);

export class FastLink {
  /**
   * @param {{
   *   WebSocket?: typeof globalThis.WebSocket,
   *   onMessage: (raw: any) => void,
   *   onClose?: () => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   name?: string,
   * }} opts onMessage: each message from the host (the same as the native port's); onClose:
   *   the socket closed (or never opened); name: the link's, in log lines (entry-links.js
   *   makes one of these per MCP entry)
   */
  constructor({ WebSocket = globalThis.WebSocket, onMessage, onClose, log, name = 'fast link' }) {
    this.WebSocket = WebSocket;
    this.onMessage = onMessage;
    this.onClose = onClose ?? (() => {});
    this.log = log;
    this.name = name;
    /** @type {WebSocket|null} */
    this.ws = null;
  }

  /** Opens the link the host offered, closing any older one. @param {number} port @param {string} token */
  open(port, token) {
    this.close();
    let ws;
    try {
      ws = new this.WebSocket(fastLinkUrl(port, token));
    } catch (e) {
      this.log('warning', `${this.name} not opened, its messages take the slower way: ${e?.message ?? e}`);
      return;
    }
    this.ws = ws;
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return this.log('warning', `ignored a binary frame on the ${this.name}`);
      let raw;
      try {
        raw = JSON.parse(ev.data);
      } catch {
        return this.log('warning', `ignored a frame that is not JSON on the ${this.name}`);
      }
      if (!FROM_LINK.has(raw?.type)) {
        return this.log('warning', `ignored a ${String(raw?.type).slice(0, 40)} message on the ${this.name}: it carries calls only`);
      }
      this.onMessage(raw);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      this.onClose();
    };
  }

  isOpen() {
    return this.ws !== null && this.ws.readyState === this.WebSocket.OPEN;
  }

  /**
   * One message to the host, already encoded (native-link.js measures it first); false when the
   * link is not open (then use the native port).
   * @param {string} text
   */
  postText(text) {
    if (!this.isOpen()) return false;
    /** @type {WebSocket} */ (this.ws).send(text);
    return true;
  }

  /** 'open', 'connecting' or 'closed', for the worker's status. */
  state() {
    if (!this.ws) return 'closed';
    return this.ws.readyState === this.WebSocket.OPEN ? 'open' : 'connecting';
  }

  close() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      try {
        ws.close();
      } catch {
        // already closing
      }
    }
  }
}
