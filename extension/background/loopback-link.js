// A loopback link: a WebSocket from the worker to a server on 127.0.0.1 that offered it (an MCP
// entry's, wire/link_server.py; entry-links.js makes one per entry). The offer (port and token)
// comes over the native port, checked by lib/messages.js. The server sends calls and cancels on
// it; the worker sends results back (each call's reply: entry-links.js). The token lives in this object only: never
// stored, logged or shown.

import { LINK_HOST, LINK_PATH_PREFIX } from '../lib/generated/protocol.js';

/** The URL of a checked offer. @param {number} port @param {string} token */
export const linkUrl = (port, token) => `ws://${LINK_HOST}:${port}${LINK_PATH_PREFIX}${token}`;

/** What the server sends over the link; anything else is refused (the native port carries it). */
const FROM_LINK = new Set(['call', 'cancel']);

export class LoopbackLink {
  /**
   * @param {{
   *   WebSocket?: typeof globalThis.WebSocket,
   *   onMessage: (raw: any) => void,
   *   onClose?: () => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   name: string,
   * }} opts onMessage: each message from the server (the same shapes as the native port's);
   *   onClose: the socket closed (or never opened); name: the link's, in log lines
   */
  constructor({ WebSocket = globalThis.WebSocket, onMessage, onClose, log, name }) {
    this.WebSocket = WebSocket;
    this.onMessage = onMessage;
    this.onClose = onClose ?? (() => {});
    this.log = log;
    this.name = name;
    /** @type {WebSocket|null} */
    this.ws = null;
  }

  /** Opens the offered link, closing any older one. @param {number} port @param {string} token */
  open(port, token) {
    this.close();
    let ws;
    try {
      ws = new this.WebSocket(linkUrl(port, token));
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
   * One message to the server, already encoded (native-link.js measures it first); false when
   * the link is not open (then use the native port).
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
