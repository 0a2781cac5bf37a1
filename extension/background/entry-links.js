// Entry links: a loopback WebSocket from the worker to each MCP entry that offered one (the
// entry's end: mcp_server/entry_link.py; the offer comes through the host, `entry_link`, with the
// entry's connection id; the socket: loopback-link.js). An entry sends its site calls and their
// cancels on its link; each call comes with the link's reply (reply.js), so its result goes back
// on the link it came on and the host is not on the way (bench/README.md, "The entry link"). A
// link carries only its own entry's calls (ids that begin with its connection id). When a link
// closes, the calls whose reply it is that still run are cancelled (nobody can read their
// results any more). Tokens live in the links only: never stored or logged.

import { isCallOf } from '../lib/call-ids.js';
import { sliceIntoChunks } from '../lib/chunks.js';
import { RESULT_PART_CHARS } from '../lib/protocol.js';
import { LoopbackLink } from './loopback-link.js';

/** Links at once: one per MCP entry of this browser's host; more offers are refused. */
export const MAX_ENTRY_LINKS = 16;

/** @typedef {import('./reply.js').Reply} Reply */
/** @typedef {{link: LoopbackLink, reply: Reply}} Linked */

export class EntryLinks {
  /**
   * @param {{
   *   WebSocket?: typeof globalThis.WebSocket,
   *   onMessage: (raw: any, reply: Reply) => void,
   *   dropped: (reply: Reply) => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   * }} opts onMessage: a call or cancel from an entry, with its link's reply (routed as the
   *   host's); dropped: a link is gone, stop the calls whose reply it is
   */
  constructor({ WebSocket = globalThis.WebSocket, onMessage, dropped, log }) {
    this.WebSocket = WebSocket;
    this.onMessage = onMessage;
    this.dropped = dropped;
    this.log = log;
    /** Connection id -> its link and the link's reply. @type {Map<string, Linked>} */
    this.links = new Map();
    /** Messages refused for naming another entry's call. */
    this.refused = 0;
  }

  /**
   * Opens the link an entry offered (checked by lib/messages.js), closing an older one of it.
   * @param {string} conn @param {number} port @param {string} token
   */
  open(conn, port, token) {
    this.close(conn);
    if (this.links.size >= MAX_ENTRY_LINKS) {
      return this.log('warning', `entry link of ${conn} not opened: ${MAX_ENTRY_LINKS} are open already`);
    }
    const link = new LoopbackLink({
      WebSocket: this.WebSocket,
      log: this.log,
      name: 'entry link',
      onMessage: (raw) => {
        if (this.links.get(conn) !== linked) return;
        if (!isCallOf(raw.id, conn)) {
          this.refused++;
          return this.log('warning', `ignored a ${raw.type} on the entry link of ${conn}: not one of its calls`);
        }
        this.onMessage(raw, linked.reply);
      },
      onClose: () => this.drop(conn, linked),
    });
    /** @type {Linked} */
    const linked = { link, reply: linkReply(link) };
    this.links.set(conn, linked);
    linked.link.open(port, token);
    if (!linked.link.ws) this.drop(conn, linked); // not even made (e.g. a port Chromium refuses)
  }

  /** Closes one entry's link (its running calls are cancelled). @param {string} conn */
  close(conn) {
    const linked = this.links.get(conn);
    if (!linked) return;
    this.drop(conn, linked);
    linked.link.close();
  }

  /** A link is gone: forgotten, and the calls whose reply it is are cancelled. @param {string} conn @param {Linked} linked */
  drop(conn, linked) {
    if (this.links.get(conn) !== linked) return;
    this.links.delete(conn);
    this.dropped(linked.reply);
  }

  /** The host went: every entry link with it (the entries offer new ones to the next host). */
  closeAll() {
    for (const conn of [...this.links.keys()]) this.close(conn);
  }

  /** {connection id: 'open'|'connecting'}, for the worker's status. */
  state() {
    return Object.fromEntries([...this.links].map(([conn, { link }]) => [conn, link.state()]));
  }
}

/**
 * The way back on an entry's link. A result longer than RESULT_PART_CHARS goes in `chunk`s of
 * that many units whose `cid` is the call's id, so the entry joins them and a bad piece fails
 * that call only (mcp_server/entry_link.py); a unit is at most 6 bytes in a frame, far below
 * MAX_LINK_FRAME. Measured whole, envelope and all. False when the link is no longer open (the
 * result then takes the host's way: routes.js).
 * @param {LoopbackLink} link @returns {Reply}
 */
function linkReply(link) {
  return {
    via: 'entry',
    post(msg) {
      if (!link.isOpen()) return false;
      const text = JSON.stringify(msg);
      if (text.length <= RESULT_PART_CHARS) return link.postText(text);
      for (const chunk of sliceIntoChunks(text, msg.id, RESULT_PART_CHARS)) link.postText(JSON.stringify(chunk));
      return true;
    },
  };
}
