// WebMCP Sidecar, ISOLATED world: what a call answers. A result as text within the call's
// max_bytes, or an error code (the protocol's list) with plain words; a page's error message is
// trimmed and capped, never empty.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  const { utf8Length } = ns.toolChecks;

  const MAX_ERROR = 4 * 1024;

  /** @typedef {{ok: true, value: string} | {ok: false, error: {code: string, message: string}}} Outcome */

  /** "17.2 MB", "16 MB", "900 KB", "12 bytes". @param {number} n */
  function formatBytes(n) {
    /** @param {number} x */
    const one = (x) => {
      const s = x.toFixed(1);
      return s.endsWith('.0') ? s.slice(0, -2) : s;
    };
    if (n >= 1024 * 1024) return one(n / (1024 * 1024)) + ' MB';
    if (n >= 1024) return one(n / 1024) + ' KB';
    return n + (n === 1 ? ' byte' : ' bytes');
  }

  /** @param {unknown} e */
  function messageOf(e) {
    let m;
    try {
      m = typeof e === 'string' ? e : e && typeof (/** @type {any} */ (e).message) === 'string' ? /** @type {any} */ (e).message : String(e);
    } catch {
      m = '';
    }
    m = m.trim();
    if (!m) return ns.protocol.NO_REASON_TEXT;
    return m.length > MAX_ERROR ? m.slice(0, MAX_ERROR) : m;
  }

  /** @param {string} code @param {string} message @returns {Outcome} */
  const fail = (code, message) => ({ ok: false, error: { code, message } });

  /** @param {unknown} value @param {number} maxBytes @returns {Outcome} */
  function success(value, maxBytes) {
    let v = value;
    if (typeof v !== 'string') {
      try {
        v = v === undefined ? 'undefined' : JSON.stringify(v) ?? 'undefined';
      } catch {
        return fail('page_error', 'The page returned a result that is not JSON.');
      }
    }
    const s = /** @type {string} */ (v);
    // Cheap first: a UTF-16 unit is at most 3 UTF-8 bytes.
    if (s.length * 3 > maxBytes) {
      const n = utf8Length(s);
      if (n > maxBytes) {
        return fail('too_large', `The tool's result is ${formatBytes(n)}, over the ${formatBytes(maxBytes)} limit.`);
      }
    }
    return { ok: true, value: s };
  }

  ns.outcomes = Object.freeze({ fail, success, messageOf, formatBytes });
})();
