// WebMCP Sidecar, ISOLATED world: the relay's native mode (Chromium's own WebMCP). The page's
// tools are read with getTools() — plus getTools({fromOrigins}) for the origins the document's
// iframes were given `tools` (frame-policy.js) — and read again, folded, on every change; and the
// real message of a tool's failure, which Chromium hides behind an UnknownError, is taken from
// what the MAIN world saw (page/main/native.js). Adds `webmcpSidecar.nativeTools`; relay.js
// uses it.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  if (!ns || ns.nativeTools) return;
  const { isPlainObject } = ns.frameTools;
  const MAX_ERRORS = 256;
  /** A getTools() that has not answered by then is taken as failed: one that never settles (a
   * frame going away mid-read) must not hold up every later read. */
  const READ_TIMEOUT_MS = 5000;

  const LATE = new Error('getTools() did not answer');

  /** @template T @param {Promise<T>} p @returns {Promise<T>} */
  function settles(p) {
    /** @type {ReturnType<typeof setTimeout>} */
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(LATE), READ_TIMEOUT_MS);
    });
    return /** @type {Promise<T>} */ (Promise.race([p, late])).finally(() => clearTimeout(timer));
  }

  /**
   * @param {{mc: any, native: boolean, exposingOrigins: () => string[],
   *   validateList: (list: unknown, native: boolean) => any,
   *   onList: (registered: Map<string, any>, valid: any) => void}} o
   *   onList: the tools read, by name (the page's objects, for executeTool) and as checked
   */
  function create({ mc, native, exposingOrigins, validateList, onList }) {
    /** @type {Map<string, {seq: number, message: string}>} the last failure the MAIN world saw, by tool */
    const errors = new Map();
    let seq = 0;
    /** @type {Promise<void>|null} */
    let refreshing = null;
    let again = false;

    /** The page's `native-error` events: a tool's real failure, as it went by. @param {Event} ev */
    function onPageEvent(ev) {
      let msg;
      try {
        const d = /** @type {CustomEvent} */ (ev).detail;
        if (typeof d !== 'string' || d.length > 64 * 1024) return;
        msg = JSON.parse(d);
      } catch {
        return;
      }
      if (!isPlainObject(msg) || msg.type !== 'native-error') return;
      if (typeof msg.name !== 'string' || typeof msg.message !== 'string') return;
      if (errors.size > MAX_ERRORS && !errors.has(msg.name)) errors.clear();
      errors.set(msg.name, { seq: ++seq, message: msg.message });
    }

    /** Re-reads getTools(); calls made while one read runs are folded into one more read. */
    function refresh() {
      again = true;
      if (!refreshing) {
        refreshing = (async () => {
          try {
            await readUntilSettled();
          } catch {
            /* a read failed: the next change reads again */
          } finally {
            // Whatever a read threw, the next change must start a read again.
            refreshing = null;
          }
        })();
      }
      return refreshing;
    }

    /** Reads until no change came in during the last read. */
    async function readUntilSettled() {
      while (again) {
        again = false;
        let list = [];
        try {
          list = await settles(mc.getTools());
        } catch (e) {
          // Unanswered: keep what was published (not an empty list) until the next change.
          if (e === LATE) continue;
          list = [];
        }
        if (!Array.isArray(list)) list = [];
        const from = exposingOrigins();
        if (from.length) {
          try {
            const more = await settles(mc.getTools({ fromOrigins: from }));
            // This document's own tools first: a name clash keeps the page's own.
            if (Array.isArray(more)) list = [...list, ...more.filter((t) => t && t.origin !== location.origin)];
          } catch {
            /* no exposed tools this time */
          }
        }
        const valid = validateList(list, native);
        const keep = new Set(valid.tools.map((t) => t.name));
        const map = new Map();
        for (const rt of list) {
          try {
            if (rt && keep.has(rt.name) && !map.has(rt.name)) map.set(rt.name, rt);
          } catch {
            /* skip */
          }
        }
        onList(map, valid);
      }
    }

    return {
      onPageEvent,
      refresh,
      /** Where the failures stand now (before a call). */
      errorMark: () => seq,
      /** The tool's failure the MAIN world saw after `mark`, or null. @param {string} name @param {number} mark */
      errorSince(name, mark) {
        const seen = errors.get(name);
        return seen && seen.seq > mark ? seen.message : null;
      },
    };
  }

  ns.nativeTools = Object.freeze({ create });
})();
