// WebMCP Sidecar, MAIN world stub: JSON of our own data, deaf to a page's toJSON (what a tool
// returns: json-safe.js, injected on first use).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    rApply, oCreate, oKeys, oGetOwnPropertyDescriptor, oGetPrototypeOf, ObjectProto, ArrayProto,
    isArray, jsonStringify, jsonParse, StringC, NumberC, BooleanC, numValueOf, strValueOf, boolValueOf, isObj, typeError,
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
      const safe = ns.safeStringify;
      if (safe) return safe(e);
      const s = plainJson(e);
      return s === undefined ? StringC(e) : s;
    } catch {
      return 'The tool failed.';
    }
  }

  /** JSON.stringify's toJSON of `x`, but not one an array or plain object inherits (Prototype.js's). @param {any} x @returns {unknown} */
  function toJSONOf(x) {
    const proto = oGetPrototypeOf(x);
    if (isArray(x) || proto === null || oGetPrototypeOf(proto) === null) {
      const own = oGetOwnPropertyDescriptor(x, 'toJSON');
      return own && own.value;
    }
    return x.toJSON;
  }

  /**
   * JSON.stringify deaf to inherited toJSONs (toJSONOf), by string concatenation (no patched Array
   * method is called); throws where it would. With no such toJSON, JSON.stringify itself.
   * @param {unknown} v @returns {string|undefined}
   */
  function plainJson(v) {
    if (!oGetOwnPropertyDescriptor(ArrayProto, 'toJSON') && !oGetOwnPropertyDescriptor(ObjectProto, 'toJSON')) {
      return jsonStringify(v);
    }
    /** The objects being written (null prototype: no page setter sees them). */
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

  Object.assign(ns, { errorMessage, plainJson, jsonCopy, toJSONOf });
})();
