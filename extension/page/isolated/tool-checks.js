// Checks on the tool data a page hands over, written once for the isolated-world content script
// (page/isolated/validate.js) and lib/tools.js, which imports this classic script for its side
// effect (`webmcpSidecar.toolChecks`): UTF-8 sizes, text cut into pieces, the depth and size walk of a schema,
// canonical JSON for diffing tool lists, and the report of what was dropped.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};

  /** @param {unknown} v */
  const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

  /** UTF-8 length of a string, without allocating. @param {string} s */
  function utf8Length(s) {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) continue;
      if (c < 0x800) n += 1;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 2; // a pair: 2 units, 4 bytes
        i++;
      } else n += 2;
    }
    return n;
  }

  /**
   * `text` in pieces of at most `size` UTF-16 units (size >= 2), never cutting a surrogate pair
   * in two: each piece is then well-formed for any serializer on the way.
   * @param {string} text @param {number} size @returns {string[]}
   */
  function textPieces(text, size) {
    const out = [];
    for (let i = 0; i < text.length; ) {
      let end = Math.min(i + size, text.length);
      const c = text.charCodeAt(end - 1);
      if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
      out.push(text.slice(i, end));
      i = end;
    }
    return out.length ? out : [''];
  }

  /**
   * Whether a JSON value stays within `maxDepth` levels of objects/arrays (the value itself is
   * level 1) and `maxBytes` of compact UTF-8 JSON. The walk is iterative and gives up early: every
   * value costs at least one byte of JSON, so no more than `maxBytes` values are ever visited.
   * @param {unknown} value @param {number} maxDepth @param {number} maxBytes
   * @returns {{why: 'deep'|'big'} | {json: string|undefined}} what is wrong, or the compact JSON
   */
  function checkJson(value, maxDepth, maxBytes) {
    /** @type {[unknown, number][]} */
    const stack = [[value, 1]];
    let visited = 0;
    while (stack.length) {
      const [v, depth] = /** @type {[any, number]} */ (stack.pop());
      if (v === null || typeof v !== 'object') continue;
      if (depth > maxDepth) return { why: 'deep' };
      const items = Array.isArray(v) ? v : Object.values(v);
      visited += items.length;
      if (visited > maxBytes) return { why: 'big' };
      for (const x of items) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
    }
    let json;
    try {
      json = JSON.stringify(value);
    } catch {
      return { why: 'big' }; // not JSON at all (cannot happen for what a port or an event carried)
    }
    // Cheap first: a UTF-16 unit is at most 3 UTF-8 bytes.
    if (json !== undefined && json.length * 3 > maxBytes && utf8Length(json) > maxBytes) return { why: 'big' };
    return { json };
  }

  /**
   * JSON with object keys sorted at every level, so equal values give equal text whatever the
   * order a page built its schema in.
   * @param {unknown} value
   * @returns {string}
   */
  function canonicalJson(value) {
    return JSON.stringify(value, (_key, v) => {
      if (!isPlainObject(v)) return v;
      /** @type {Record<string, unknown>} */
      const sorted = Object.create(null); // so that a "__proto__" key stays a key
      for (const k of Object.keys(v).sort()) sorted[k] = v[k];
      return sorted;
    });
  }

  /** Names kept per drop report to show as examples. */
  const MAX_DROP_EXAMPLES = 16;

  /**
   * What was left out of a tool list, by reason (`count, bytes, deep, big, name`), with a few
   * names, so the Inspector and the host can say so.
   * @typedef {{count: Record<string, number>, some: {name: string, why: string}[]}} Dropped
   */

  /** An empty drop report. @returns {Dropped} */
  const noDrops = () => ({ count: {}, some: [] });

  /** @param {Dropped} d @param {unknown} name @param {string} why */
  function addDrop(d, name, why) {
    d.count[why] = (d.count[why] ?? 0) + 1;
    if (d.some.length < MAX_DROP_EXAMPLES) d.some.push({ name: typeof name === 'string' ? name.slice(0, 128) : '', why });
  }

  ns.toolChecks = Object.freeze({ utf8Length, textPieces, checkJson, canonicalJson, MAX_DROP_EXAMPLES, noDrops, addDrop });
})();
