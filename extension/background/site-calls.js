// Calls to the tools of pages: a `call` routed through the registry to the content script of
// the frame that has the tool (or to a skill), and answered exactly once: by the page, a
// timeout, a cancel the page does not confirm, or the tab or document going away. Every call
// carries its way back (reply.js) from the moment it comes in until its answer, in one table.
//
// A form that navigates (a declarative tool with `toolautosubmit` whose submission loads another
// document; spec issue #135): the content script says so (`result` with `navigating: true`),
// and the answer comes from the destination document once the tab has loaded it: its URL,
// title and a compact text of the page. A form that answered through `respondWith` before its
// document went keeps that answer. A form in a sub-frame answers from the frame's next document
// (the extension keeps a frame's id when it navigates; Chromium counts a sub-frame's loads as
// the tab's), as long as that document is of the form's own origin: another origin's is not
// read, and the call says the frame left.

import {
  CANCELLED_MESSAGE, TAB_CLOSED_MESSAGE, errorResult, frameResultToHost, noTabMessage,
  notFoundMessage, timeoutMessage,
} from '../lib/messages.js';
import { TIMEOUT_GRACE_MS } from '../lib/protocol.js';
import { addPart, joinParts } from '../lib/result-parts.js';
import { cleanText } from '../lib/page-text.js';
import { postToFrame } from './frame-ports.js';
import { inPage } from './page-calls.js';

/** @typedef {import('./reply.js').Reply} Reply */
/**
 * A call out to a frame, not answered yet.
 * @typedef {{stage: 'frame', reply: Reply, port: chrome.runtime.Port, lane: MessagePort|null, tabId: number,
 *   frameId: number, maxBytes: number, timer: ReturnType<typeof setTimeout>, mark?: {starts: number, loads: number},
 *   origin?: string, documentId?: string, navigating?: boolean, following?: boolean, fallback?: any,
 *   parts?: import('../lib/result-parts.js').Parts}} FrameCall
 *   lane: the frame lane the call went on, if any (its cancel goes the same way, after it);
 *   origin, documentId: the browser's, of the document the call went to;
 *   mark: the tab's loads when the call went out; navigating: the frame began leaving its
 *   document by a form submission; following: waiting for the next document; fallback: the
 *   old document's answer, if the navigation does not happen after all; parts: the pieces
 *   of a long result so far (lib/result-parts.js)
 * @typedef {{stage: 'waiting', reply: Reply}} WaitingCall for its tool (tool-waits.js)
 * @typedef {{stage: 'skill', reply: Reply}} SkillCall run by skills.js, which answers to finish()
 * @typedef {FrameCall|WaitingCall|SkillCall} Call
 */

/** How long a cancelled call waits for the page to confirm before we answer for it. */
const CANCEL_GRACE_MS = 1_000;
/** How long a form that said it navigates may take to start loading the next document. */
const NAV_START_MS = 3_000;
/** The destination document's text, at most (a compact view; browser tools read more). */
const DESTINATION_TEXT_CHARS = 4_000;
const FRAME_GONE_MESSAGE = 'The form was submitted, but the frame it was in is gone, so there is no page to answer from.';
/** A form's frame went to another origin: that document is not the site's to show. */
const FRAME_LEFT_MESSAGE = 'The form was submitted and its frame left the site: it went to a document of another origin, '
  + 'which this tool does not read. Use the browser tools to look at the tab if needed.';

export class SiteCalls {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   registry: import('../lib/registry.js').Registry,
   *   frames: import('./frame-ports.js').FramePorts,
   *   focus: import('./tab-focus.js').TabFocus,
   *   answer: (msg: any, reply: Reply) => boolean,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   skills?: {run: (msg: any, route: any, done: (result: any) => void) => void, cancel: (id: string) => boolean},
   *   loads?: () => import('./tab-loads.js').TabLoads|undefined,
   *   readPage?: (tabId: number) => Promise<{url?: string, title?: string, text?: string}>,
   *   waits?: import('./tool-waits.js').ToolWaits,
   * }} opts answer: a call's result, back by its reply (routes.js); skills: runs the calls of skill tools;
   *   loads: the tabs' page loads (browser-tools.js), to follow a form to the next document;
   *   readPage: a document's text (the page agent's `text` op); waits: where a call for a
   *   tool its site's settling tab has not offered (yet) waits for it
   */
  constructor({ chrome, registry, frames, focus, answer, log, skills, loads, readPage, waits }) {
    this.waits = waits ?? null;
    this.loads = loads ?? (() => undefined);
    this.readPage = readPage ?? ((tabId) => inPage(tabId, 'text'));
    this.skills = skills ?? null;
    this.chrome = chrome;
    this.registry = registry;
    this.frames = frames;
    this.focus = focus;
    this.answer = answer;
    this.log = log;
    /**
     * Every call in the worker not answered yet, by call id, with its way back: waiting for its
     * tool, run by a skill, or out to a frame.
     * @type {Map<string, Call>}
     */
    this.pending = new Map();
  }

  /**
   * A checked `call` (lib/messages.js), from the host, an MCP entry's link, the Inspector or a
   * chat site; its result goes back by `reply`.
   * @param {import('../lib/protocol.js').CallMsg} msg @param {Reply} reply
   */
  call(msg, reply) {
    const { id } = msg;
    if (this.pending.has(id)) return this.log('warning', `ignored a second call with id ${id} while the first runs`);
    const route = this.registry.route(msg.site, msg.tool);
    const waits = this.waits;
    if ('reason' in route && route.reason === 'not_found' && waits?.shouldWait(msg.site)) {
      // The site's tab is still arriving (a page loading, its skills being checked): the tool
      // may be back in a moment. The wait counts against the call's own timeout.
      const t0 = Date.now();
      /** @type {Call} */
      const waiting = { stage: 'waiting', reply };
      this.pending.set(id, waiting);
      void waits.wait(id, msg.site, msg.tool, msg.timeout_ms).then((later) => {
        if (later === null || this.pending.get(id) !== waiting) return; // cancelled (answered by cancel()) or dropped
        this.pending.delete(id);
        const left = Math.max(1, msg.timeout_ms - (Date.now() - t0));
        this.dispatch({ ...msg, timeout_ms: left }, later, reply);
      });
      return;
    }
    this.dispatch(msg, route, reply);
  }

  /**
   * Runs a call where the registry routed it, or answers why it could not.
   * @param {import('../lib/protocol.js').CallMsg} msg
   * @param {import('../lib/registry.js').Route|import('../lib/registry.js').NoRoute} route
   * @param {Reply} reply
   */
  dispatch(msg, route, reply) {
    const { id } = msg;
    if ('reason' in route) {
      const message = route.reason === 'no_tab'
        ? noTabMessage(msg.site)
        : notFoundMessage(msg.site, msg.tool, this.registry.siteTools(msg.site).map((t) => t.name));
      return void this.answer(errorResult(id, route.reason, message), reply);
    }
    if (route.skill && this.skills) {
      /** @type {Call} */
      const call = { stage: 'skill', reply };
      this.pending.set(id, call);
      // Only this call's answer: after dropAll() a later call may come with the same id.
      return this.skills.run(msg, route, (result) => this.pending.get(id) === call && this.finish(id, result));
    }
    const { tabId, frameId, windowId } = route;
    const entry = this.frames.get(tabId, frameId);
    if (!entry) return void this.answer(errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId), reply);
    const timer = setTimeout(() => this.timedOut(id, msg.timeout_ms), msg.timeout_ms + TIMEOUT_GRACE_MS);
    const sender = /** @type {any} */ (entry.port.sender);
    const lane = this.frames.laneOf(entry.port);
    this.pending.set(id, {
      stage: 'frame', reply, port: entry.port, lane, tabId, frameId, maxBytes: msg.max_bytes, timer, mark: this.loads()?.mark(tabId),
      origin: typeof sender?.origin === 'string' ? sender.origin : undefined,
      documentId: typeof sender?.documentId === 'string' ? sender.documentId : undefined,
    });
    const forwarded = postToFrame(entry.port, {
      type: 'call', id, tool: msg.tool, args: msg.args, timeout_ms: msg.timeout_ms, max_bytes: msg.max_bytes,
    }, lane);
    if (!forwarded) return this.finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
    // After forwarding, and not awaited: the user should see the tab, but not at the call's cost.
    this.focus.bring(tabId, windowId);
  }

  /**
   * A piece of a long result, before its `result`: only from the frame the call went to.
   * @param {import('./frame-ports.js').Frame} frame @param {any} msg
   */
  part(frame, msg) {
    const call = this.pending.get(msg.id);
    if (call?.stage === 'frame' && call.port === frame.port) call.parts = addPart(call.parts, msg, call.maxBytes);
  }

  /** @param {string} id @param {number} timeoutMs */
  timedOut(id, timeoutMs) {
    const call = this.pending.get(id);
    if (call?.stage !== 'frame') return;
    postToFrame(call.port, { type: 'cancel', id }, call.lane);
    this.finish(id, errorResult(id, 'timeout', timeoutMessage(timeoutMs), call.tabId));
  }

  /**
   * Stops a call: one waiting for its tool is answered `cancelled` at once, a skill's by
   * skills.js; to a frame, the cancel is forwarded and the page answers `cancelled`, or we do
   * after a short grace.
   * @param {string} id
   */
  cancel(id) {
    const call = this.pending.get(id);
    if (!call) return; // already answered
    if (call.stage === 'skill') return void this.skills?.cancel(id);
    if (call.stage === 'waiting') {
      this.waits?.cancel(id);
      return this.finish(id, errorResult(id, 'cancelled', CANCELLED_MESSAGE));
    }
    postToFrame(call.port, { type: 'cancel', id }, call.lane);
    clearTimeout(call.timer);
    call.timer = setTimeout(() => this.finish(id, errorResult(id, 'cancelled', CANCELLED_MESSAGE, call.tabId)), CANCEL_GRACE_MS);
  }

  /**
   * A frame's `result`: only the frame the call went to may answer it.
   * @param {import('./frame-ports.js').Frame} frame @param {any} msg
   */
  answered(frame, msg) {
    const call = this.pending.get(msg.id);
    if (call?.stage !== 'frame' || call.port !== frame.port) return;
    if (typeof msg.ok === 'boolean') {
      msg = joinParts(call.parts, msg, call.maxBytes);
      delete call.parts;
    }
    if (msg.navigating === true && call.mark && !call.following) {
      call.navigating = true;
      // With the old document's own words (no respondWith): the next document's answer is
      // better, if one comes; a provisional note (no `ok`) only says it is leaving.
      if (typeof msg.ok === 'boolean') {
        call.fallback = frameResultToHost(msg.id, msg, frame.tabId, call.maxBytes);
        void this.follow(msg.id, NAV_START_MS);
      }
      return;
    }
    this.finish(msg.id, frameResultToHost(msg.id, msg, frame.tabId, call.maxBytes));
  }

  /**
   * A form took its frame to another document: waits for the tab to load it, then answers
   * with it; without a navigation within `startWithinMs`, with the old document's answer.
   * @param {string} id @param {number} [startWithinMs]
   */
  async follow(id, startWithinMs = Infinity) {
    const call = this.pending.get(id);
    const loads = this.loads();
    if (call?.stage !== 'frame' || call.following || !loads || !call.mark) return;
    call.following = true;
    const how = await loads.waitLoaded(call.tabId, call.mark, { timeoutMs: 10 * 60_000, startWithinMs });
    if (this.pending.get(id) !== call) return; // answered meanwhile (timeout, cancel)
    if (how === 'no_navigation' && call.fallback) return this.finish(id, call.fallback);
    if (how !== 'loaded') return this.finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, call.tabId));
    let result;
    try {
      result = await this.landed(id, call);
    } catch (e) {
      const page = { url: '', title: '', text: `(The new page could not be read: ${String(/** @type {any} */ (e)?.message ?? e)})` };
      result = frameResultToHost(id, { ok: true, value: JSON.stringify(destination(page)) }, call.tabId, call.maxBytes);
    }
    if (this.pending.get(id) !== call) return;
    this.finish(id, result);
  }

  /**
   * The answer from where the form went: the tab's page, or (a form in a sub-frame) the frame's
   * next document. Polyfill: the call went to the sub-frame's own port. Native: it went to the
   * top frame, whose relay kept the path of the sub-frame that navigated (page/isolated/leaving.js).
   * @param {string} id @param {FrameCall} call
   */
  async landed(id, call) {
    const { tabId, maxBytes } = call;
    const answer = (/** @type {any} */ page, /** @type {boolean} */ inFrame) =>
      frameResultToHost(id, { ok: true, value: JSON.stringify(destination(page, inFrame)) }, tabId, maxBytes);
    let frameId = call.frameId;
    if (frameId === 0) {
      const path = await this.navigatedFrame(tabId, id);
      if (!path) return answer(await this.readPage(tabId), false);
      const found = await this.findFrame(tabId, path);
      if (found === null) return errorResult(id, 'tab_closed', FRAME_GONE_MESSAGE, tabId);
      frameId = found;
    }
    const page = await this.readFrame(tabId, frameId, call.origin);
    if (!page) return errorResult(id, 'tab_closed', FRAME_GONE_MESSAGE, tabId);
    // The same document still there: the tab's load was another frame's (e.g. a 204 answer).
    if (call.frameId !== 0 && page.documentId === call.documentId && call.fallback) return call.fallback;
    if (page.left) return errorResult(id, 'page_error', FRAME_LEFT_MESSAGE, tabId);
    return answer(page, true);
  }

  /**
   * Native mode: the path of the sub-frame whose navigation took a top-frame call's form away
   * (page/isolated/leaving.js `frameOf`), or null (the top frame navigated).
   * @param {number} tabId @param {string} id @returns {Promise<number[]|null>}
   */
  async navigatedFrame(tabId, id) {
    const [res] = await this.chrome.scripting.executeScript({
      target: { tabId, frameIds: [0] }, world: 'ISOLATED', args: [id],
      func: (/** @type {string} */ callId) => /** @type {any} */ (globalThis).webmcpSidecar?.leaving?.frameOf?.(callId) ?? null,
    });
    const path = /** @type {any} */ (res)?.result;
    return Array.isArray(path) && path.length > 0 && path.length <= 32 && path.every((i) => Number.isInteger(i) && i >= 0) ? path : null;
  }

  /**
   * The extension's id of the frame at `path` (a frame keeps its id when it navigates), or null.
   * @param {number} tabId @param {number[]} path @returns {Promise<number|null>}
   */
  async findFrame(tabId, path) {
    const want = JSON.stringify(path);
    const all = await this.chrome.scripting.executeScript({ target: { tabId, allFrames: true }, world: 'ISOLATED', func: framePath });
    return all.find((r) => r.frameId !== 0 && JSON.stringify(r.result) === want)?.frameId ?? null;
  }

  /**
   * A frame's document, read only when it is of `origin` (the form's own); else `{left: true}`
   * and nothing of it. Null when the frame is gone.
   * @param {number} tabId @param {number} frameId @param {string|undefined} origin
   * @returns {Promise<{left?: boolean, documentId?: string, url?: string, title?: string, text?: string}|null>}
   */
  async readFrame(tabId, frameId, origin) {
    let results;
    try {
      results = await this.chrome.scripting.executeScript({
        target: { tabId, frameIds: [frameId] }, world: 'ISOLATED', args: [origin ?? ''], func: readDocument,
      });
    } catch {
      return null; // "No frame with id …": the frame was removed
    }
    const first = /** @type {any} */ (results?.[0]);
    if (!first?.result) return null;
    return { ...first.result, documentId: first.documentId };
  }

  /** Sends a call's one and only result, the way the call came. @param {string} id @param {any} result */
  finish(id, result) {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    if (call.stage === 'frame') clearTimeout(call.timer);
    this.answer(result, call.reply);
  }

  /**
   * A way back closed (an MCP entry's link dropped): nobody can read these results any more,
   * so its calls are cancelled (their pages stop; a late answer takes the host's way).
   * @param {Reply} reply
   */
  dropReply(reply) {
    for (const [id, call] of [...this.pending]) if (call.reply === reply) this.cancel(id);
  }

  /** The frame's document went away mid-call; tell the closed tab from a reload or navigation. */
  portGone(port, tabId) {
    const ids = [];
    for (const [id, call] of this.pending) {
      if (call.stage !== 'frame' || call.port !== port) continue;
      if (call.navigating) void this.follow(id); // a form's document gave way to the next one
      else ids.push(id);
    }
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
      if (call.stage === 'frame' && call.tabId === tabId) this.finish(id, errorResult(id, 'tab_closed', TAB_CLOSED_MESSAGE, tabId));
    }
  }

  /** The host is gone: nobody can take the results of its and its entries' calls any more, so
   * stop that work in the pages. The Inspector's and chat sites' calls (answered in the worker)
   * run on. */
  dropAll() {
    for (const [id, call] of [...this.pending]) {
      if (call.reply.via !== 'host' && call.reply.via !== 'entry') continue;
      this.pending.delete(id);
      if (call.stage === 'waiting') this.waits?.cancel(id);
      if (call.stage !== 'frame') continue; // a skill runs on (its answer finds nobody)
      clearTimeout(call.timer);
      postToFrame(call.port, { type: 'cancel', id }, call.lane);
    }
  }

  /** Clears the timers (tests drop a worker this way). */
  stop() {
    this.waits?.dropAll();
    for (const call of this.pending.values()) if (call.stage === 'frame') clearTimeout(call.timer);
  }
}

/**
 * What a call gets from the document a form navigated to: where the tab (or the form's frame)
 * is now and a compact text of the page (capped; the browser tools read the rest).
 * @param {{url?: string, title?: string, text?: string}} page
 * @param {boolean} [inFrame] the form was in a sub-frame, and this is the frame's document
 */
export function destination(page, inFrame = false) {
  const text = cleanText(page?.text ?? '');
  const cut = text.length > DESTINATION_TEXT_CHARS;
  return {
    submitted: true,
    note: inFrame
      ? 'The form was submitted and its frame went to another document; this is that document (the page around it stayed).'
      : 'The form was submitted and the page went to another document; this is that document.',
    ...(inFrame ? { frame: true } : {}),
    url: String(page?.url ?? ''),
    title: String(page?.title ?? ''),
    text: cut ? `${text.slice(0, DESTINATION_TEXT_CHARS)}…` : text,
    ...(cut ? { truncated: true } : {}),
  };
}

/** Runs in a frame: its path of child indices under the top frame (as page/isolated/leaving.js). */
function framePath() {
  const path = [];
  try {
    // Frames, in the page: the worker's types have no Window.
    for (let cur = /** @type {any} */ (globalThis).window; cur !== cur.top; cur = cur.parent) {
      const up = cur.parent;
      let i = 0;
      while (i < up.frames.length && up.frames[i] !== cur) i++;
      if (i === up.frames.length || path.length >= 32) return null;
      path.unshift(i);
    }
  } catch {
    return null;
  }
  return path;
}

/**
 * Runs in a frame: its document, when it is of `origin`; of another origin, only that it is.
 * @param {string} origin
 */
function readDocument(origin) {
  const g = /** @type {any} */ (globalThis);
  if (!origin || g.origin !== origin) return { left: true };
  return { url: g.location.href, title: g.document.title, text: g.document.body?.innerText ?? '' };
}
