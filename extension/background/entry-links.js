// Entry links: a loopback WebSocket from the worker to each MCP entry that offered one (the
// entry's end: mcp_server/entry_link.py; the offer comes through the host, `entry_link`, with the
// entry's connection id; the socket: loopback-link.js). An entry sends its site calls and their cancels on its link, and a
// call's result goes back on the link it came on, so the host is not on the way
// (bench/README.md, "The entry link"). A link carries only its own entry's calls (ids that begin
// with its connection id); when it closes, the calls it brought that still run are cancelled:
// nobody can read their results any more. Tokens live in the links only: never stored or logged.

import { callPrefix, isCallOf } from '../lib/call-ids.js';
import { sliceIntoChunks } from '../lib/chunks.js';
import { RESULT_PART_CHARS } from '../lib/protocol.js';
import { LoopbackLink } from './loopback-link.js';

/** Links at once: one per MCP entry of this browser's host; more offers are refused. */
export const MAX_ENTRY_LINKS = 16;

/** @typedef {{link: LoopbackLink, calls: Set<string>}} Linked */

export class EntryLinks {
  /**
   * @param {{
   *   WebSocket?: typeof globalThis.WebSocket,
   *   onMessage: (raw: any) => void,
   *   cancel: (id: string) => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   * }} opts onMessage: a call or cancel from an entry (routed as the host's); cancel: stop a call
   */
  constructor({ WebSocket = globalThis.WebSocket, onMessage, cancel, log }) {
    this.WebSocket = WebSocket;
    this.onMessage = onMessage;
    this.cancel = cancel;
    this.log = log;
    /** Connection id -> its link and the calls it brought that are not answered yet. @type {Map<string, Linked>} */
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
    /** @type {Linked} */
    const linked = {
      calls: new Set(),
      link: new LoopbackLink({
        WebSocket: this.WebSocket,
        log: this.log,
        name: 'entry link',
        onMessage: (raw) => {
          if (this.links.get(conn) !== linked) return;
          if (!isCallOf(raw.id, conn)) {
            this.refused++;
            return this.log('warning', `ignored a ${raw.type} on the entry link of ${conn}: not one of its calls`);
          }
          if (raw.type === 'call') linked.calls.add(raw.id);
          this.onMessage(raw);
        },
        onClose: () => this.drop(conn, linked),
      }),
    };
    this.links.set(conn, linked);
    linked.link.open(port, token);
    if (!linked.link.ws) this.drop(conn, linked); // not even made (e.g. a port Chromium refuses)
  }

  /**
   * A result, back on the link its call came on; false when no open link brought that call
   * (then it takes the host's way). A result longer than RESULT_PART_CHARS goes in `chunk`s of
   * that many units whose `cid` is the call's id, so the entry joins them and a bad piece fails
   * that call only (mcp_server/entry_link.py); a unit is at most 6 bytes in a frame, far below
   * MAX_LINK_FRAME.
   * @param {string} id @param {string} text the result's JSON
   */
  postResult(id, text) {
    const linked = this.owner(id);
    if (!linked?.calls.delete(id)) return false;
    if (text.length <= RESULT_PART_CHARS) return linked.link.postText(text);
    if (!linked.link.isOpen()) return false;
    for (const chunk of sliceIntoChunks(text, id, RESULT_PART_CHARS)) linked.link.postText(JSON.stringify(chunk));
    return true;
  }

  /** @param {string} id */
  owner(id) {
    return this.links.get(callPrefix(id));
  }

  /** Closes one entry's link (its running calls are cancelled). @param {string} conn */
  close(conn) {
    const linked = this.links.get(conn);
    if (!linked) return;
    this.drop(conn, linked);
    linked.link.close();
  }

  /** A link is gone: forgotten, and the calls it brought are cancelled. @param {string} conn @param {Linked} linked */
  drop(conn, linked) {
    if (this.links.get(conn) !== linked) return;
    this.links.delete(conn);
    for (const id of linked.calls) this.cancel(id);
    linked.calls.clear();
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
