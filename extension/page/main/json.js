// WebMCP Sidecar, MAIN world: JSON that never throws and never meets a page's toJSON. Tools
// return whatever they like (cycles, DOM nodes, BigInt, Maps); the result must still become JSON
// text. Our own messages, schema copies, arguments and results are written by plainJson, deaf to
// a `toJSON` a page put on Array.prototype or Object.prototype (Prototype.js's returns a string).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    rApply, oCreate, oKeys, oGetOwnPropertyDescriptor, oGetPrototypeOf, oToString, ObjectProto, ArrayProto,
    isArray, jsonStringify, jsonParse, StringC, MapC, SetC, WeakSetC, ErrorC, NodeC, ArrayBufferIsView,
    DataViewC, RegExpC, NumberC, BooleanC, numValueOf, strValueOf, boolValueOf, strToLower, elGetAttribute,
    cut, squash, isObj, typeError, MAX_DEPTH,
  } = ns;

  /** The message of anything a tool may throw. @param {unknown} e @returns {string} */
  function errorMessage(e) {
    try {
      if (typeof e === 'string') return e;
      if (isObj(e)) {
        const m = /** @type {any} */ (e).message;
        if (typeof m === 'string' && m) return m;
        const n = /** @type {any} */ (e).name;
        if (typeof n === 'string' && n) return n;
      }
      return safeStringify(e);
    } catch {
      return 'The tool failed.';
    }
  }

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
        const parts = squash(cls).split(' ');
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
   * The toJSON JSON.stringify would call on `x`, except one that an array or a plain object only
   * inherits (a page's Array.prototype.toJSON, as Prototype.js defines, returns a string).
   * @param {any} x @returns {unknown}
   */
  function toJSONOf(x) {
    const proto = oGetPrototypeOf(x);
    if (isArray(x) || proto === null || oGetPrototypeOf(proto) === null) {
      const own = oGetOwnPropertyDescriptor(x, 'toJSON');
      return own && own.value;
    }
    return x.toJSON;
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

  /**
   * JSON.stringify for our own data, deaf to a page's `toJSON` on Array.prototype or
   * Object.prototype (Prototype.js turns every array into a string that way): toJSONOf. Built by string
   * concatenation, so no patched Array method or index setter is involved. Throws a TypeError
   * where JSON.stringify would (cycles, BigInt). While neither prototype has a toJSON, it is
   * JSON.stringify itself (fast, and then the same).
   * @param {unknown} v @returns {string|undefined}
   */
  function plainJson(v) {
    if (!oGetOwnPropertyDescriptor(ArrayProto, 'toJSON') && !oGetOwnPropertyDescriptor(ObjectProto, 'toJSON')) {
      return jsonStringify(v);
    }
    /** The objects being written, a null-prototype record: no page setter can see them. */
    const stack = oCreate(null);
    let depth = 0;
    /** @param {any} x @param {string} key @returns {string|undefined} */
    const ser = (x, key) => {
      if (x !== null && typeof x === 'object') {
        const toJSON = toJSONOf(x);
        if (typeof toJSON === 'function') x = rApply(toJSON, x, [key]);
      }
      switch (typeof x) {
        case 'string':
        case 'number':
        case 'boolean':
          return jsonStringify(x);
        case 'bigint':
          throw typeError('Do not know how to serialize a BigInt');
        case 'undefined':
        case 'function':
        case 'symbol':
          return undefined;
      }
      if (x === null) return 'null';
      if (x instanceof NumberC) return jsonStringify(rApply(numValueOf, x, []));
      if (x instanceof StringC) return jsonStringify(rApply(strValueOf, x, []));
      if (x instanceof BooleanC) return jsonStringify(rApply(boolValueOf, x, []));
      for (let i = 0; i < depth; i++) if (stack[i] === x) throw typeError('Converting circular structure to JSON');
      stack[depth++] = x;
      let out = '';
      if (isArray(x)) {
        const n = x.length;
        for (let i = 0; i < n; i++) {
          const item = ser(x[i], StringC(i));
          out += (i ? ',' : '') + (item === undefined ? 'null' : item);
        }
        out = '[' + out + ']';
      } else {
        const keys = oKeys(x);
        for (let i = 0; i < keys.length; i++) {
          const item = ser(x[keys[i]], keys[i]);
          if (item !== undefined) out += (out ? ',' : '') + jsonStringify(keys[i]) + ':' + item;
        }
        out = '{' + out + '}';
      }
      stack[--depth] = undefined;
      return out;
    };
    return ser(v, '');
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

  /** A copy of a JSON-able value (schemas, inputs), or a TypeError. @param {unknown} v @param {string} what */
  function jsonCopy(v, what) {
    let s;
    try {
      s = plainJson(v);
    } catch {
      s = undefined;
    }
    if (s === undefined) throw typeError(`${what} is not JSON-serializable.`);
    return jsonParse(s);
  }

  Object.assign(ns, { errorMessage, plainJson, safeStringify, resultText, jsonCopy });
})();
