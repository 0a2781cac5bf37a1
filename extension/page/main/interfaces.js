// WebMCP Sidecar, MAIN world: what the polyfill needs to look like Chromium 156's WebMCP from the
// page: the ToolActivatedEvent / ToolCancelEvent interfaces, a queue of later tasks (Chromium
// settles registerTool, getTools and executeTool, and fires its events, in tasks of their own,
// never in the caller's microtasks), and executeTool's arguments read as its bindings read them.
// docs/WEBMCP_WPT.md, "Polyfill vs Chromium", lists what still differs.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, rApply, reTest, oCreate, oDefineProperty, oGetPrototypeOf, oToString, jsonStringify, StringC, TypeErrorC, EventC, AbortSignalC, isObj, opError, domError,
    listen,
  } = ns;
  // Captured before any page script (see base.js).
  const MessageChannelC = MessageChannel;
  const portPost = MessagePort.prototype.postMessage;
  const onmessageSet = /** @type {(this: MessagePort, v: any) => void} */ (
    /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage')).set
  );

  // ---- later tasks --------------------------------------------------------------------------
  // One message per task on a channel only this file holds; the queue is a null-prototype record
  // indexed by counters, so a page's Array.prototype patches never see it. A task's `then` runs
  // in a second listener of the same message event: Chromium calls each listener with an empty
  // stack and runs every microtask in between, as it does between a callback it made (a tool's
  // execute) and the event it fires next.
  /** @type {Record<number, () => void>} */
  const queue = oCreate(null);
  /** @type {Record<number, () => void>} */
  const thens = oCreate(null);
  let head = 0;
  let tail = 0;
  let ran = -1; // the entry the first listener ran last
  const chan = new MessageChannelC();
  /** @param {(() => void)|undefined} f */
  const call = (f) => {
    try {
      if (f) f();
    } catch {
      /* a page listener's throw is the page's business */
    }
  };
  rApply(onmessageSet, chan.port1, [
    () => {
      if (head === tail) return;
      ran = head;
      const f = queue[head];
      delete queue[head++];
      call(f);
    },
  ]);
  rApply(listen, chan.port1, [
    'message',
    () => {
      const f = thens[ran];
      delete thens[ran];
      call(f);
    },
  ]);
  /**
   * Runs `f` in a task of its own, after the ones queued before; then, in the same task once the
   * microtasks have run, `then`. @param {() => void} f @param {() => void} [then]
   */
  const task = (f, then) => {
    if (then) thens[tail] = then;
    queue[tail++] = f;
    rApply(portPost, chan.port2, [null]);
  };

  // ---- events -------------------------------------------------------------------------------
  const names = new WeakMap();
  const nameGet = WeakMap.prototype.get;
  const nameSet = WeakMap.prototype.set;

  /** @param {string} iface */
  const toolEvent = (iface) => {
    const C = class extends EventC {
      /** @param {string} type @param {{toolName?: unknown} & EventInit} [init] */
      constructor(type, init = undefined) {
        super(type, init);
        const n = isObj(init) ? /** @type {any} */ (init).toolName : undefined;
        rApply(nameSet, names, [this, n === undefined ? '' : StringC(n)]);
      }
      /** @returns {string} */
      get toolName() {
        const n = rApply(nameGet, names, [this]);
        if (n === undefined) throw new TypeErrorC('Illegal invocation');
        return n;
      }
    };
    oDefineProperty(C, 'name', { value: iface });
    oDefineProperty(C.prototype, Symbol.toStringTag, { value: iface, configurable: true });
    return C;
  };
  const ToolActivatedEvent = toolEvent('ToolActivatedEvent');
  const ToolCancelEvent = toolEvent('ToolCancelEvent');

  /** Puts an interface on window as WebIDL does (writable, configurable, not enumerable). @param {string} name @param {any} value */
  const expose = (name, value) => {
    try {
      oDefineProperty(W, name, { value, writable: true, configurable: true, enumerable: false });
    } catch {
      /* a page-planted non-configurable property (see base.js): leave it */
    }
  };

  // ---- executeTool's arguments ----------------------------------------------------------------
  const NOT_OBJECT = 'invalid input object: value is not an object';
  /** @param {string} member @param {string} why */
  const memberError = (member, why) =>
    opError('executeTool', `Failed to read the '${member}' property from 'RegisteredTool': ${why}`);

  /** A Window: this origin's, or another's (a cross-origin WindowProxy says "[object Object]"
   * and has no prototype, but is its own `window` and `self`). @param {any} v */
  const isWindow = (v) => {
    try {
      if (rApply(oToString, v, []) === '[object Window]') return true;
      return oGetPrototypeOf(v) === null && v.window === v && v.self === v;
    } catch {
      return false;
    }
  };

  /**
   * A RegisteredTool dictionary, read in the order of Chromium's bindings (members sorted by
   * name) with the same TypeErrors. @param {any} tool
   * @returns {{name: string, origin: string, window: any}}
   */
  function readRegisteredTool(tool) {
    if (tool !== undefined && tool !== null && !isObj(tool)) {
      throw opError('executeTool', "The provided value is not of type 'RegisteredTool'.");
    }
    const d = tool ?? {};
    /** @param {string} k */
    const required = (k) => {
      const v = d[k];
      if (v === undefined) throw memberError(k, 'Required member is undefined.');
      return v;
    };
    StringC(required('description'));
    const name = StringC(required('name'));
    const origin = StringC(required('origin'));
    const title = d.title;
    if (title !== undefined) StringC(title);
    const win = required('window');
    if (!isObj(win) || !isWindow(win)) {
      throw memberError('window', "Failed to convert value to 'Window'.");
    }
    return { name, origin, window: win };
  }

  /** executeTool's options. @param {unknown} options @returns {AbortSignal|undefined} */
  function readExecuteOptions(options) {
    const signal = isObj(options) ? /** @type {any} */ (options).signal : undefined;
    if (signal !== undefined && !(signal instanceof AbortSignalC)) {
      throw opError('executeTool', "Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'.");
    }
    return signal;
  }

  /**
   * executeTool's input as Chromium takes it: absent is `{}`; any object (arrays too) is written
   * by JSON.stringify (toJSON honoured), whose failure is a TypeError; the text is parsed again
   * later, and what is not an object then fails (`parseFailed`).
   * @param {unknown} input @returns {string}
   */
  function inputJson(input) {
    if (input === undefined) return '{}';
    if (input === null || (typeof input !== 'object' && typeof input !== 'function')) {
      throw opError('executeTool', NOT_OBJECT);
    }
    let s;
    try {
      s = jsonStringify(input);
    } catch (e) {
      throw opError('executeTool', StringC(isObj(e) ? /** @type {any} */ (e).message : e));
    }
    if (s === undefined) throw opError('executeTool', 'invalid input object: toJSON() returns undefined');
    return s;
  }
  const parseFailed = () => domError('Failed to parse input arguments', 'UnknownError');

  const URLC = URL;
  const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;
  /**
   * A list of origins (registerTool's `exposedTo`, getTools' `fromOrigins`) checked as Chromium
   * checks it: a sequence (not a string), each a URL of a secure origin.
   * @param {unknown} v @param {string} op @param {string} dict @param {string} member
   * @returns {string[]|undefined}
   */
  function readOrigins(v, op, dict, member) {
    if (v === undefined) return undefined;
    if (!isObj(v) || typeof (/** @type {any} */ (v)[Symbol.iterator]) !== 'function') {
      throw opError(op, `Failed to read the '${member}' property from '${dict}': The provided value cannot be converted to a sequence.`);
    }
    /** @type {string[]} */
    const list = [];
    for (const x of /** @type {Iterable<unknown>} */ (v)) list[list.length] = StringC(x);
    for (const x of list) {
      let u;
      try {
        u = new URLC(x);
      } catch {
        u = undefined;
      }
      const secure =
        u &&
        (u.protocol === 'https:' || u.protocol === 'wss:' ||
          ((u.protocol === 'http:' || u.protocol === 'ws:') && rApply(reTest, LOOPBACK, [u.hostname])));
      if (!secure) throw domError(`Only secure origins are allowed in the ${member} list.`, 'SecurityError');
    }
    return list;
  }

  /** A declarative form submitted without respondWith: "null" to the page, `text` to the extension. */
  class NoResponse {
    /** @param {string} text */
    constructor(text) {
      this.text = text;
    }
  }

  /**
   * A result as Chromium's executeTool resolves it: a string as it is ("" is "Operation
   * succeeded"), `undefined` as "undefined", a lone number/BigInt/boolean as String() writes it,
   * anything else as JSON.stringify writes it (a result it cannot write, a nested BigInt or a
   * cycle, fails the call).
   * @param {unknown} v
   */
  const nativeText = (v) => {
    if (typeof v === 'string') return v === '' ? 'Operation succeeded' : v;
    if (v instanceof NoResponse) return 'null';
    // A number, BigInt or boolean on its own is written as String() writes it (NaN is "NaN").
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return StringC(v);
    const s = jsonStringify(v);
    return s === undefined ? 'undefined' : s;
  };

  /** @param {Record<string, unknown>} a the annotations as Chromium's dictionary gives them back */
  const annotationsOut = (a) => ({
    consequentialHint: !!a.consequentialHint,
    debugging: !!a.debugging,
    readOnlyHint: !!a.readOnlyHint,
    untrustedContentHint: !!a.untrustedContentHint,
  });

  /** Chromium's rejections, word for word. */
  const unknownTool = () =>
    domError('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError');
  const toolFailed = () =>
    domError('Tool was executed but the invocation failed. For example, the script function threw an error', 'UnknownError');

  Object.assign(ns, {
    NoResponse, task, ToolActivatedEvent, ToolCancelEvent, expose, readRegisteredTool, readExecuteOptions,
    inputJson, parseFailed, readOrigins, nativeText, annotationsOut, unknownTool, toolFailed,
  });
})();
