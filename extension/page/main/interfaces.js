// WebMCP Sidecar, MAIN world (injected on first use, polyfill mode): what the polyfill needs to
// look like Chromium 156's WebMCP from the page (the interfaces themselves are surface.js's): a
// queue of later tasks (Chromium
// settles registerTool, getTools and executeTool, and fires its events, in tasks of their own,
// never in the caller's microtasks), and executeTool's arguments read as its bindings read them.
// docs/WEBMCP_WPT.md, "Polyfill vs Chromium", lists what still differs.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const {
    rApply, oCreate, oGetPrototypeOf, oToString, jsonStringify, StringC, AbortSignalC, isObj, opError, domError,
    listen, MessageChannelC, portPost, onmessageSet,
  } = ns;

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
    NoResponse, task, readRegisteredTool, readExecuteOptions, inputJson, parseFailed, nativeText, annotationsOut, unknownTool, toolFailed,
  });
})();
