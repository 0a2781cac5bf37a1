// Calls to the tools of pages: a `call` routed through the registry to the content script of
// the frame that has the tool, and answered exactly once: by the page, a timeout, a cancel the
// page does not confirm, or the tab or document going away.

import {
  CANCELLED_MESSAGE, TAB_CLOSED_MESSAGE, errorResult, frameResultToHost, noTabMessage,
  notFoundMessage, timeoutMessage,
} from '../lib/messages.js';
import { TIMEOUT_GRACE_MS } from '../lib/protocol.js';
import { postToFrame } from './frame-ports.js';

/** How long a cancelled call waits for the page to confirm before we answer for it. */
const CANCEL_GRACE_MS = 1_000;

export class SiteCalls {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   registry: import('../lib/registry.js').Registry,
   *   frames: import('./frame-ports.js').FramePorts,
   *   focus: import('./tab-focus.js').TabFocus,
   *   send: (msg: any) => boolean,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   skills?: {run: (msg: any, route: any) => void, cancel: (id: string) => boolean},
   * }} opts send: to the host (routes.js's toHost); skills: runs the calls of skill tools
   */
  constructor({ chrome, registry, frames, focus, send, log, skills }) {
    this.skills = skills ?? null;
    this.chrome = chrome;
    this.registry = registry;
    this.frames = frames;
    this.focus = focus;
    this.send = send;
    this.log = log;
    /**
     * Calls forwarded to a frame and not answered yet, by call id.
     * @type {Map<string, {port: chrome.runtime.Port, tabId: number, maxBytes: number,
     *   timer: ReturnType<typeof setTimeout>}>}
     */
    this.pending = new Map();
  }

  /** A checked `call` (lib/messages.js), from the host or the Inspector. @param {import('../lib/protocol.js').CallMsg} msg */
  call(msg) {
    const { id } = msg;
    if (this.pending.has(id)) return this.log('warning', `ignored a second call with id ${id} while the first runs`);
    const route = this.registry.route(msg.site, msg.tool);
    if ('reason' in route) {
      const message = route.reason === 'no_tab'
        ? noTabMessage(msg.site)
        : notFoundMessage(msg.site, msg.tool, this.registry.siteTools(msg.site).map((t) => t.name));
      return void this.send(errorResult(id, route.reason, message));
    }
    if (route.skill && this.skills) return this.skills.run(msg, route);
    const { tabId, frameId, windowId } = route;
    const entry = this.frames.get(tabId, frameId);
    if (!entry) return void this.send(errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
    const timer = setTimeout(() => this.timedOut(id, msg.timeout_ms), msg.timeout_ms + TIMEOUT_GRACE_MS);
    this.pending.set(id, { port: entry.port, tabId, maxBytes: msg.max_bytes, timer });
    const forwarded = postToFrame(entry.port, {
      type: 'call', id, tool: msg.tool, args: msg.args, timeout_ms: msg.timeout_ms, max_bytes: msg.max_bytes,
    });
    if (!forwarded) return this.finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
    // After forwarding, and not awaited: the user should see the tab, but not at the call's cost.
    this.focus.bring(tabId, windowId);
  }

  /** @param {string} id @param {number} timeoutMs */
  timedOut(id, timeoutMs) {
    const call = this.pending.get(id);
    if (!call) return;
    postToFrame(call.port, { type: 'cancel', id });
    this.finish(id, errorResult(id, 'timeout', timeoutMessage(timeoutMs), call.tabId));
  }

  /** Forwards the cancel; the page answers `cancelled`, or we do after a short grace. @param {string} id */
  cancel(id) {
    const call = this.pending.get(id);
    if (!call) return void this.skills?.cancel(id); // a skill's call, or already answered
    postToFrame(call.port, { type: 'cancel', id });
    clearTimeout(call.timer);
    call.timer = setTimeout(() => this.finish(id, errorResult(id, 'cancelled', CANCELLED_MESSAGE, call.tabId)), CANCEL_GRACE_MS);
  }

  /**
   * A frame's `result`: only the frame the call went to may answer it.
   * @param {import('./frame-ports.js').Frame} frame @param {any} msg
   */
  answered(frame, msg) {
    const call = this.pending.get(msg.id);
    if (call && call.port === frame.port) this.finish(msg.id, frameResultToHost(msg.id, msg, frame.tabId, call.maxBytes));
  }

  /** Sends a call's one and only result. */
  finish(id, result) {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    this.send(result);
  }

  /** The frame's document went away mid-call; tell the closed tab from a reload or navigation. */
  portGone(port, tabId) {
    const ids = [];
    for (const [id, call] of this.pending) if (call.port === port) ids.push(id);
    if (!ids.length) return;
    const answer = (message) => { for (const id of ids) this.finish(id, errorResult(id, 'tab_closed', message, tabId)); };
    this.chrome.tabs.get(tabId).then(
      () => answer('The page running the call was reloaded or left before the tool answered.'),
      () => answer(TAB_CLOSED_MESSAGE),
    );
  }

  /** @param {number} tabId */
  tabClosed(tabId) {
    for (const [id, call] of this.pending) {
      if (call.tabId === tabId) this.finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
    }
  }

  /** The host is gone: nobody can take these results any more, so stop the work in the pages. */
  dropAll() {
    for (const [id, call] of this.pending) {
      clearTimeout(call.timer);
      postToFrame(call.port, { type: 'cancel', id });
    }
    this.pending.clear();
  }

  /** Clears the timers (tests drop a worker this way). */
  stop() {
    for (const call of this.pending.values()) clearTimeout(call.timer);
  }
}
