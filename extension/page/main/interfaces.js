// WebMCP Sidecar, MAIN world: what the polyfill needs to look like Chromium 156's WebMCP from the
// page: the ToolActivatedEvent / ToolCancelEvent interfaces, a queue of later tasks (Chromium
// settles registerTool, getTools and executeTool, and fires its events, in tasks of their own,
// never in the caller's microtasks), and executeTool's arguments read as its bindings read them.
// docs/ARCHITECTURE.md, "Polyfill vs Chromium", lists what still differs.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js did not run: another copy owns the page
  const {
    W, rApply, oCreate, oDefineProperty, oToString, jsonStringify, StringC, TypeErrorC, EventC, AbortSignalC, isObj, opError, domError,
  } = ns;
  // Captured before any page script (see base.js).
  const MessageChannelC = MessageChannel;
  const portPost = MessagePort.prototype.postMessage;
  const onmessageSet = /** @type {(this: MessagePort, v: any) => void} */ (
    /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage')).set
  );

  // ---- later tasks --------------------------------------------------------------------------
  // One message per task on a channel only this file holds; the queue is a null-prototype record
  // indexed by counters, so a page's Array.prototype patches never see it.
  /** @type {Record<number, () => void>} */
  const queue = oCreate(null);
  let head = 0;
  let tail = 0;
  const chan = new MessageChannelC();
  rApply(onmessageSet, chan.port1, [
    () => {
      if (head === tail) return;
      const f = queue[head];
      delete queue[head++];
      try {
        f();
      } catch {
        /* a page listener's throw is the page's business */
      }
    },
  ]);
  /** Runs `f` in a task of its own, after the ones queued before. @param {() => void} f */
  const task = (f) => {
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
    if (!isObj(win) || rApply(oToString, win, []) !== '[object Window]') {
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

  /** Chromium's rejections, word for word. */
  const unknownTool = () =>
    domError('The operation failed for an unknown transient reason (e.g. out of memory).', 'UnknownError');
  const toolFailed = () =>
    domError('Tool was executed but the invocation failed. For example, the script function threw an error', 'UnknownError');

  /** A declarative form submitted without respondWith: "null" to the page, `text` to the extension. */
  class NoResponse {
    /** @param {string} text */
    constructor(text) {
      this.text = text;
    }
  }

  Object.assign(ns, {
    NoResponse, task, ToolActivatedEvent, ToolCancelEvent, expose, readRegisteredTool, readExecuteOptions, inputJson, parseFailed,
    unknownTool, toolFailed,
  });
})();
