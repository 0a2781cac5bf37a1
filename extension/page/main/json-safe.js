// WebMCP Sidecar, MAIN world (injected on first use, polyfill mode): JSON that never throws.
// Tools return whatever they like (cycles, DOM nodes, BigInt, Maps); the result must still become
// JSON text (json.js's plainJson writes it, deaf to a page's toJSON on the prototypes).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  ns.late(); // base.js: what the injected files take besides, first of them (lib/page-files.js)
  const {
    rApply, oKeys, oToString, isArray, StringC, MapC, SetC, WeakSetC, ErrorC, NodeC, ArrayBufferIsView,
    DataViewC, RegExpC, NumberC, BooleanC, strToLower, strSplit, elGetAttribute, cut, squash, isObj, MAX_DEPTH,
    plainJson, toJSONOf,
  } = ns;

  // ---- safe JSON ---------------------------------------------------------------------------
  // Tools return whatever they like; the result must still become JSON text, never throw.

  /** @param {any} n @returns {string} */
  function describeNode(n) {
    const type = n.nodeType;
    if (type === 1) {
      let s = '<' + rApply(strToLower, StringC(n.localName || n.nodeName), []);
      const id = rApply(elGetAttribute, n, ['id']);
      if (id) s += '#' + cut(id, 64);
      const cls = rApply(elGetAttribute, n, ['class']);
      if (cls) {
        const parts = rApply(strSplit, squash(cls), [' ']);
        s += '.' + parts.slice(0, 4).join('.');
      }
      return s + '>';
    }
    if (type === 3) return '#text "' + cut(squash(StringC(n.data)), 80) + '"';
    if (type === 8) return '#comment';
    if (type === 9) return '#document';
    if (type === 11) return '#document-fragment';
    return '#' + StringC(n.nodeName);
  }

  /** @param {any} v */
  function isNode(v) {
    if (v instanceof NodeC) return true;
    // Nodes of another same-origin frame are not `instanceof` ours.
    try {
      return (
        typeof v.nodeType === 'number' &&
        typeof v.nodeName === 'string' &&
        typeof v.cloneNode === 'function'
      );
    } catch {
      return false;
    }
  }

  /**
   * A JSON-safe copy of `v`: cycles become "[Circular]", functions and symbols vanish, DOM nodes
   * become a short description, BigInt a string, Map/Set plain objects/arrays, Error
   * {name, message}; toJSON (Date) is honoured as JSON.stringify would (see toJSONOf).
   * @param {any} v @param {string} key @param {WeakSet<object>} stack @param {number} depth
   * @returns {any}
   */
  function toSafe(v, key, stack, depth) {
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'number':
        return v;
      case 'bigint':
        return StringC(v);
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return null;
    if (stack.has(v)) return '[Circular]';
    if (depth > MAX_DEPTH) return '[Too deep]';
    stack.add(v);
    try {
      const toJSON = toJSONOf(v);
      if (typeof toJSON === 'function') {
        const j = rApply(toJSON, v, [key]);
        return j === v ? toSafePlain(v, stack, depth) : toSafe(j, key, stack, depth + 1);
      }
      if (isNode(v)) return describeNode(v);
      try {
        if (v === v.window) return '[Window]';
      } catch {
        /* a cross-origin object */
      }
      if (v instanceof ErrorC || rApply(oToString, v, []) === '[object Error]') {
        return { name: StringC(v.name), message: StringC(v.message) };
      }
      if (v instanceof MapC) {
        let plainKeys = true;
        for (const k of v.keys()) {
          if (typeof k !== 'string' && typeof k !== 'number') {
            plainKeys = false;
            break;
          }
        }
        if (plainKeys) {
          /** @type {Record<string, any>} */
          const o = {};
          for (const [k, x] of v) o[k] = toSafe(x, StringC(k), stack, depth + 1);
          return o;
        }
        const a = [];
        for (const [k, x] of v) {
          a.push([toSafe(k, '0', stack, depth + 1), toSafe(x, '1', stack, depth + 1)]);
        }
        return a;
      }
      if (v instanceof SetC) {
        const a = [];
        for (const x of v) a.push(toSafe(x, StringC(a.length), stack, depth + 1));
        return a;
      }
      if (ArrayBufferIsView(v) && !(v instanceof DataViewC)) {
        const a = [];
        for (let i = 0; i < v.length; i++) a.push(toSafe(v[i], StringC(i), stack, depth + 1));
        return a;
      }
      if (v instanceof RegExpC) return StringC(v);
      if (v instanceof NumberC || v instanceof StringC || v instanceof BooleanC) {
        return toSafe(v.valueOf(), key, stack, depth + 1);
      }
      return toSafePlain(v, stack, depth);
    } catch {
      return '[Unserializable]';
    } finally {
      stack.delete(v);
    }
  }

  /** @param {any} v @param {WeakSet<object>} stack @param {number} depth */
  function toSafePlain(v, stack, depth) {
    if (isArray(v)) {
      const a = [];
      for (let i = 0; i < v.length; i++) {
        let x;
        try {
          x = toSafe(v[i], StringC(i), stack, depth + 1);
        } catch {
          x = '[Unserializable]';
        }
        a.push(x === undefined ? null : x);
      }
      return a;
    }
    /** @type {Record<string, any>} */
    const o = {};
    for (const k of oKeys(v)) {
      try {
        const x = toSafe(v[k], k, stack, depth + 1);
        if (x !== undefined) o[k] = x;
      } catch {
        /* a throwing getter: leave the key out */
      }
    }
    return o;
  }

  /** JSON text of any value, never throwing. @param {unknown} v */
  function safeStringify(v) {
    if (v === undefined) return 'undefined';
    const s = plainJson(toSafe(v, '', new WeakSetC(), 0));
    return s === undefined ? 'undefined' : s;
  }

  /**
   * A tool's result as Chromium 156's executeTool resolves it: a string is passed through as it
   * is (an empty one becomes "Operation succeeded"), anything else is its JSON text,
   * `undefined` is "undefined".
   * @param {unknown} v
   */
  function resultText(v) {
    if (typeof v === 'string') return v === '' ? 'Operation succeeded' : v;
    return safeStringify(v);
  }

  /**
   * A tool's result as Chromium 156's executeTool resolves it: a string is passed through as it
   * is (an empty one becomes "Operation succeeded"), anything else is its JSON text,
   * `undefined` is "undefined".
   * @param {unknown} v
   */
  function resultText(v) {
    if (typeof v === 'string') return v === '' ? 'Operation succeeded' : v;
    return safeStringify(v);
  }

  Object.assign(ns, { safeStringify, resultText });
})();
