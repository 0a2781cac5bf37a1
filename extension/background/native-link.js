// The native link: the one port to the host (connectNative), reopened with backoff when it
// closes; big messages split into chunks on the way out, chunks joined on the way in.
// What a message means is not this module's business: routes.js decides that.

import { Backoff } from '../lib/backoff.js';
import { frameBytesBound, Reassembler, sliceIntoChunks, splitIntoChunks } from '../lib/chunks.js';
import { explainNativeError } from '../lib/native-errors.js';
import {
  BROWSER_TO_HOST_SPLIT, HOST_NAME, PROTOCOL_VERSION, RESULT_PART_CHARS, versionMismatch,
} from '../lib/protocol.js';

/** A port open this long counts as working even if the host said nothing, and resets the backoff. */
const STABLE_MS = 5_000;

export class NativeLink {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   onMessage: (raw: any) => void,
   *   onOpen: () => void,
   *   onDown: () => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   entries?: import('./entry-links.js').EntryLinks,
   * }} opts
   *   onMessage: every message from the host (chunks included: routes.js joins them with join());
   *   onOpen: a port just opened (send the greeting); onDown: it closed (stop the work for it);
   *   entries: the MCP entries' own links (entry-links.js): they close with the port
   */
  constructor({ chrome, onMessage, onOpen, onDown, log, entries }) {
    this.chrome = chrome;
    this.entries = entries ?? null;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onDown = onDown;
    this.log = log;
    /** @type {chrome.runtime.Port|null} */
    this.port = null;
    /** The host has spoken, or the port has stayed open a while. */
    this.connected = false;
    /** @type {string|null} */ this.lastError = null;
    /** @type {string|null} */ this.hint = null;
    /** Set when the host speaks another protocol (its `host_hello`): what to tell the user. @type {string|null} */
    this.mismatch = null;
    /** @type {ReturnType<typeof setTimeout>|null} */ this.reconnectTimer = null;
    /** @type {ReturnType<typeof setTimeout>|null} */ this.stableTimer = null;
    this.retryAt = 0;
    this.stopped = false;
    this.backoff = new Backoff();
    this.reassembler = new Reassembler();
    this.chunkCounter = 0;
  }

  connect() {
    if (this.port || this.stopped) return;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    let port;
    try {
      port = this.chrome.runtime.connectNative(HOST_NAME);
    } catch (e) {
      this.down(String(e?.message ?? e));
      return;
    }
    this.port = port;
    this.connected = false;
    this.mismatch = null;
    this.reassembler.reset();
    port.onMessage.addListener((raw) => {
      this.markConnected();
      this.onMessage(raw);
    });
    port.onDisconnect.addListener(() => {
      const message = this.chrome.runtime.lastError?.message;
      if (this.port === port) this.down(message);
    });
    this.onOpen();
    // Only a link that lasts resets the backoff: a host that answers and then crashes must
    // not be restarted four times a second.
    this.stableTimer = setTimeout(() => {
      this.markConnected();
      this.backoff.reset();
    }, STABLE_MS);
  }

  markConnected() {
    if (this.connected || !this.port) return;
    this.connected = true;
    this.lastError = null;
    this.hint = null;
  }

  /**
   * The host's `host_hello` (checked): a host of another protocol gets no call routed to it
   * (routes.js answers them with `mismatch`), and the panel's status says what to do.
   * @param {{protocol: number, host_version?: string}} msg
   */
  hostHello(msg) {
    this.mismatch = msg.protocol === PROTOCOL_VERSION ? null : versionMismatch(PROTOCOL_VERSION, msg.protocol);
    if (this.mismatch) this.log('error', this.mismatch);
  }

  /** @param {string|undefined} message chrome.runtime.lastError.message, if any */
  down(message) {
    this.port = null;
    this.entries?.closeAll(); // its entries' links go with its host (they offer new ones to the next)
    this.connected = false;
    this.mismatch = null;
    if (this.stableTimer) clearTimeout(this.stableTimer);
    this.stableTimer = null;
    this.lastError = message ?? 'The connection to the host closed.';
    this.hint = explainNativeError(message);
    this.reassembler.reset();
    this.onDown();
    if (!this.reconnectTimer && !this.stopped) {
      const delay = this.backoff.next();
      this.retryAt = Date.now() + delay;
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        this.connect();
      }, delay);
    }
  }

  /**
   * Sends a message to the host; false when there is no host. A result here is one whose call
   * came through the host (or whose entry link closed: reply.js), a long one in 64 Ki-unit
   * chunks. Only a result and a tool list, whose sizes a page controls, are encoded here, to be
   * measured (and split into chunks if too long).
   * @param {any} msg
   */
  send(msg) {
    const port = this.port;
    if (!port) return false;
    try {
      if (msg.type === 'result') {
        // Measured whole, so a long error message is a long result too. A result longer than
        // RESULT_PART_CHARS goes in chunks of that many units (wire/constants.py says why); every
        // frame stays far below the browser->host limit (a unit takes at most 6 bytes escaped).
        const text = JSON.stringify(msg);
        if (text.length > RESULT_PART_CHARS) {
          for (const chunk of sliceIntoChunks(text, `sw${++this.chunkCounter}`, RESULT_PART_CHARS)) {
            port.postMessage(chunk);
          }
        } else {
          port.postMessage(msg);
        }
        return true;
      }
      if (msg.type === 'registry' || msg.type === 'site_tools') {
        const text = JSON.stringify(msg);
        if (frameBytesBound(text) > BROWSER_TO_HOST_SPLIT) {
          for (const chunk of splitIntoChunks(text, `sw${++this.chunkCounter}`, BROWSER_TO_HOST_SPLIT)) {
            port.postMessage(chunk);
          }
          return true;
        }
      }
      port.postMessage(msg);
      return true;
    } catch {
      return false; // the port just closed; onDisconnect deals with it
    }
  }

  /**
   * Adds a (checked) `chunk` from the host; the whole message once its last piece is in,
   * else undefined (still waiting, or not joinable: logged).
   * @param {any} msg
   */
  join(msg) {
    let text;
    try {
      text = this.reassembler.push(msg);
    } catch (e) {
      this.log('warning', String(e?.message ?? e));
      return undefined;
    }
    if (text === null) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      this.log('warning', `chunked message ${msg.cid} is not valid JSON; ignored`);
      return undefined;
    }
  }

  /** The link's part of the worker's status. */
  state() {
    if (this.port && this.mismatch) {
      return { connected: false, state: 'mismatch', lastError: this.mismatch, hint: this.mismatch, retryInMs: null };
    }
    return {
      connected: this.connected,
      state: this.port ? (this.connected ? 'connected' : 'connecting') : 'disconnected',
      lastError: this.lastError,
      hint: this.hint,
      retryInMs: !this.port && this.reconnectTimer ? Math.max(0, this.retryAt - Date.now()) : null,
      entryLinks: this.entries?.state() ?? {},
    };
  }

  /** No more reconnects or timers (tests drop a worker this way; Chrome just ends it). */
  stop() {
    this.stopped = true;
    this.entries?.closeAll();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.stableTimer) clearTimeout(this.stableTimer);
    this.reconnectTimer = null;
    this.stableTimer = null;
  }
}
