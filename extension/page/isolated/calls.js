// WebMCP Sidecar, ISOLATED world: the calls the service worker asks this frame to run. Each gets
// one answer ever (a result, in parts when long, or an error; a timeout, a cancel), from the
// page's tool: native, Chromium's executeTool() here; polyfill, the MAIN world's, through the
// relay's CustomEvent channel under a per-frame id of its own. Adds `webmcpSidecar.calls`;
// relay.js creates one per frame and feeds it the port's `call`/`cancel` and the page's `result`.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  if (!ns || ns.calls) return;
  const { isPlainObject } = ns.frameTools;
  const { fail, success, messageOf } = ns.outcomes;
  const { textPieces } = ns.toolChecks;
  const { watch: watchLeaving } = ns.leaving;
  const { DEFAULT_TIMEOUT_MS, DEFAULT_MAX_BYTES, RESULT_PART_CHARS, timeoutText } = ns.protocol;

  /**
   * @typedef {{ok: true, value: string} | {ok: false, error: {code: string, message: string}}} Outcome
   * @typedef {{id: string, done: boolean, timer: any, local?: string, maxBytes: number,
   *            abort: () => void, reply: (msg: unknown) => void, nav?: any, window?: any}} Call
   *   reply: the call's way back to the worker, the one it came on (the port, or the frame lane);
   *   nav: the navigate event of a form submission that began during the call;
   *   window: native, the frame whose tool runs (its `window` in getTools())
   */

  /**
   * @param {{native: boolean, mc: any, send: (msg: unknown) => void, toPage: (msg: unknown) => void,
   *   hasTool: (name: string) => boolean, nativeTool: (name: string) => any,
   *   nativeTools: {refresh: () => Promise<void>, errorMark: () => number,
   *     errorSince: (name: string, mark: number) => string|null}}} o
   *   send: to the worker on the port (a call's answer takes its own reply: start());
   *   toPage: to the MAIN world (polyfill);
   *   hasTool: polyfill, whether the frame's validated list has it now;
   *   nativeTool: native, the RegisteredTool object by name (executeTool needs it)
   */
  function create({ native, mc, send, toPage, hasTool, nativeTool, nativeTools }) {
    /** @type {Map<string, Call>} calls in flight, by the service worker's id */
    const pending = new Map();
    /** @type {Map<string, Call>} polyfill: the same calls by the id the page sees */
    const byLocal = new Map();
    /** @type {Set<string>} ids already answered, so that each id gets one reply ever */
    const answered = new Set();
    let localSeq = 0;

    /**
     * @param {Call} call @param {Outcome} outcome
     * @param {boolean} [noResponse] a form submitted without respondWith: when its submission is
     *   taking this document away, the worker answers from the next one (`navigating`)
     */
    function finish(call, outcome, noResponse = false) {
      if (call.done) return;
      call.done = true;
      clearTimeout(call.timer);
      pending.delete(call.id);
      if (call.local !== undefined) byLocal.delete(call.local);
      answered.add(call.id);
      if (answered.size > 4096) answered.delete(/** @type {string} */ (answered.values().next().value)); // the oldest: there is one
      if (!outcome.ok) {
        call.reply({ type: 'result', id: call.id, ok: false, error: outcome.error });
        return;
      }
      // A long value goes in parts, which the worker joins (lib/result-parts.js): Chromium carries
      // many small messages much faster than one big one.
      const rest = outcome.value.length > RESULT_PART_CHARS ? textPieces(outcome.value, RESULT_PART_CHARS) : [outcome.value];
      const value = /** @type {string} */ (rest.pop());
      rest.forEach((data, seq) => call.reply({ type: 'result_part', id: call.id, seq, data }));
      const parts = rest.length ? { parts: rest.length } : {};
      call.reply(noResponse && leaving(call)
        ? { type: 'result', id: call.id, ok: true, value, ...parts, navigating: true }
        : { type: 'result', id: call.id, ok: true, value, ...parts });
    }

    // A form that navigates: background/site-calls.js follows it to the next document (leaving.js).
    // Its pagehide listener goes in now, before the relay's (which drops the calls on bfcache).
    // Its notice takes the port whatever way the call came: the port's disconnect follows it at
    // once and must not overtake it.
    const leaving = watchLeaving(() => pending.values(), send);

    /** Aborts the calls in flight without replying: their port is gone. */
    function drop() {
      for (const call of [...pending.values()]) {
        call.done = true;
        clearTimeout(call.timer);
        try {
          call.abort();
        } catch {
          /* nothing to abort */
        }
      }
      pending.clear();
      byLocal.clear();
    }

    /**
     * A `call` from the worker, answered by `reply` (the way it came: the port, or the lane).
     * @param {any} msg @param {(msg: unknown) => void} [reply]
     */
    async function start(msg, reply = send) {
      const id = msg.id;
      if (typeof id !== 'string' || !id || pending.has(id) || answered.has(id)) return;
      const timeoutMs = Number.isFinite(msg.timeout_ms) && msg.timeout_ms > 0 ? msg.timeout_ms : DEFAULT_TIMEOUT_MS;
      const maxBytes = Number.isFinite(msg.max_bytes) && msg.max_bytes > 0 ? msg.max_bytes : DEFAULT_MAX_BYTES;
      /** @type {Call} */
      const call = { id, done: false, timer: 0, maxBytes, abort: () => {}, reply };
      pending.set(id, call);
      call.timer = setTimeout(() => {
        call.abort();
        finish(call, fail('timeout', timeoutText('The page', timeoutMs)));
      }, timeoutMs);

      const name = msg.tool;
      let args = msg.args;
      if (args === undefined || args === null) args = {};
      if (!isPlainObject(args)) {
        finish(call, fail('invalid_args', 'The arguments must be a JSON object.'));
        return;
      }
      if (typeof name !== 'string') {
        finish(call, fail('not_found', 'The call names no tool.'));
        return;
      }

      if (native) {
        let rt = nativeTool(name);
        if (!rt) {
          await nativeTools.refresh(); // registered a moment ago, before toolchange reached us?
          rt = nativeTool(name);
        }
        if (call.done) return;
        if (!rt) {
          finish(call, fail('not_found', `This page has no tool named "${name}" now.`));
          return;
        }
        const ac = new AbortController();
        call.abort = () => ac.abort();
        // Another frame's navigation during the call is not this tool's (leaving.js).
        if (rt.window && typeof rt.window === 'object') call.window = rt.window;
        const mark = nativeTools.errorMark();
        try {
          const value = await mc.executeTool(rt, args, { signal: ac.signal });
          // null: what Chromium 156 gives for a form submitted without respondWith (or whose
          // submission navigates: it drops respondWith then).
          finish(call, success(value, maxBytes), value === null || value === 'null');
        } catch (e) {
          // Chromium hides what the tool threw behind an UnknownError; the MAIN world reported
          // the real message as it went by (page/main/native.js).
          const seen = nativeTools.errorSince(name, mark);
          const masked = e instanceof DOMException && e.name === 'UnknownError';
          finish(call, fail('page_error', messageOf(masked && seen !== null ? seen : e)));
        }
        return;
      }

      if (!hasTool(name)) {
        finish(call, fail('not_found', `This page has no tool named "${name}" now.`));
        return;
      }
      // The page sees a per-frame counter, never the ids of the extension or the host.
      const local = String(++localSeq);
      call.local = local;
      byLocal.set(local, call);
      call.abort = () => toPage({ type: 'cancel', id: local });
      toPage({ type: 'call', id: local, name, args });
    }

    /** The port's `cancel`. @param {unknown} id */
    function cancel(id) {
      if (typeof id !== 'string') return;
      const call = pending.get(id);
      if (!call) return;
      call.abort();
      finish(call, fail('cancelled', 'The call was cancelled.'));
    }

    /** Polyfill: the MAIN world's `result` (already parsed, a plain object). @param {any} msg */
    function pageResult(msg) {
      const call = typeof msg.id === 'string' ? byLocal.get(msg.id) : undefined;
      if (!call) return;
      if (msg.ok === true) {
        if (typeof msg.value !== 'string') finish(call, fail('page_error', 'The page returned an invalid result.'));
        else finish(call, success(msg.value, call.maxBytes), msg.noResponse === true);
      } else {
        finish(call, fail('page_error', messageOf(typeof msg.error === 'string' ? msg.error : '')));
      }
    }

    return { start, cancel, drop, pageResult };
  }

  ns.calls = Object.freeze({ create });
})();
