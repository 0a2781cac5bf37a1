// The path syntax of chat-site adapters (docs/CHAT_SITES.md; the host checks it in
// chat_sites/paths.py): steps joined by `.`: `key`, `["any key"]`, `[N]` (negative from the end),
// `@json` (the value is a string of JSON: go on inside it), and for reading only, `[*]` (every
// item of a list) and `[?key=value]` (the items of a list whose `key` is `value`). A classic script, so the chat page's
// isolated-world files can load it; lib/chat/index.js imports it for the worker and the tests.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  const chat = ns.chat ??= {};

  const MAX_PATH = 256;
  const MAX_STEPS = 16;
  /** The `@json` step (a quoted key "@json" is a key, not this). */
  const JSON_STEP = Object.freeze({ json: true });
  /** `[*]`: every item of a list. */
  const ALL_STEP = Object.freeze({ all: true });
  const TOKEN = /\.?([A-Za-z0-9_$-]+|@json)|\[(-?\d{1,6})\]|\[("(?:[^"\\]|\\.)*")\]|\[(\*)\]|\[\?([A-Za-z0-9_$-]+)=([A-Za-z0-9_.:$ -]{0,64})\]/y;

  /**
   * The steps of a path, or null when it is not one.
   * @param {string} path @returns {(string|number|object)[] | null}
   */
  function parsePath(path) {
    if (typeof path !== 'string' || !path || path.length > MAX_PATH) return null;
    /** @type {(string|number|object)[]} */
    const steps = [];
    let at = 0;
    while (at < path.length) {
      TOKEN.lastIndex = at;
      const m = TOKEN.exec(path);
      if (!m) return null;
      const dotted = m[0].startsWith('.');
      if (m[1] !== undefined && (at === 0 ? dotted : !dotted)) return null;
      if (m[1] !== undefined) steps.push(m[1] === '@json' ? JSON_STEP : m[1]);
      else if (m[2] !== undefined) steps.push(Number(m[2]));
      else if (m[4] !== undefined) steps.push(ALL_STEP);
      else if (m[5] !== undefined) steps.push(Object.freeze({ key: m[5], is: m[6] }));
      else {
        try { steps.push(String(JSON.parse(m[3]))); } catch { return null; }
      }
      at = TOKEN.lastIndex;
    }
    return steps.length <= MAX_STEPS ? steps : null;
  }

  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  /** One step down, or undefined. */
  function down(v, step) {
    if (step === JSON_STEP) {
      if (typeof v !== 'string') return undefined;
      try { return JSON.parse(v); } catch { return undefined; }
    }
    if (typeof step === 'number') {
      if (!Array.isArray(v)) return undefined;
      return v[step < 0 ? v.length + step : step];
    }
    return v && typeof v === 'object' && !Array.isArray(v) && own(v, step) ? v[step] : undefined;
  }

  /** Whether a path only names one place (no `[*]` or `[?k=v]`): one a value can be written at. */
  const single = (steps) => steps.every((s) => typeof s !== 'object' || s === JSON_STEP);

  /** The value at `steps` in `v` (the first, for a path of many), or undefined. */
  function getPath(v, steps) {
    return single(steps) ? one(v, steps) : getAll(v, steps)[0];
  }
  function one(v, steps) {
    let cur = v;
    for (const step of steps) {
      cur = down(cur, step);
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  /** Every value at `steps` in `v`, in document order (`[*]` and `[?k=v]` fan out). */
  function getAll(v, steps, from = 0, out = []) {
    let cur = v;
    for (let i = from; i < steps.length; i++) {
      const step = steps[i];
      if (typeof step === 'object' && step !== JSON_STEP) {
        if (!Array.isArray(cur)) return out;
        for (const item of cur) {
          const keep = step === ALL_STEP || (item && typeof item === 'object' && own(item, step.key) && String(item[step.key]) === step.is);
          if (keep) getAll(item, steps, i + 1, out);
          if (out.length >= MAX_MATCHES) break;
        }
        return out;
      }
      cur = down(cur, step);
      if (cur === undefined) return out;
    }
    out.push(cur);
    return out;
  }
  const MAX_MATCHES = 10_000;

  /**
   * `v` with the value at `steps` replaced by `fn(old)` (a copy along the path; `@json` steps
   * are parsed and written back as JSON text); undefined when the path is not there.
   */
  function updatePath(v, steps, fn) {
    if (!single(steps)) return undefined;
    if (!steps.length) return fn(v);
    const [step, ...rest] = steps;
    const inner = down(v, step);
    if (inner === undefined) return undefined;
    const changed = updatePath(inner, rest, fn);
    if (changed === undefined) return undefined;
    if (step === JSON_STEP) return JSON.stringify(changed);
    if (typeof step === 'number') {
      const copy = v.slice();
      copy[step < 0 ? v.length + step : step] = changed;
      return copy;
    }
    return { ...v, [step]: changed };
  }

  chat.path = Object.freeze({ parsePath, getPath, getAll, updatePath, single, JSON_STEP, ALL_STEP });
})();
