// WebMCP Sidecar: MAIN-world script (document_start, every frame).
//
// Runs in the page's own world, so the page can see, call and spoof everything here: it holds no
// secret and no extension identity, speaks JSON only, and never evals (the page's CSP applies).
//
// - Native WebMCP (Chromium with the WebMCP feature): leave `document.modelContext` alone except
//   for a thin `registerTool` wrapper that keeps thrown errors' messages (Chromium replaces them
//   with an opaque UnknownError) and repairs results Chromium cannot serialize. The ISOLATED
//   content script sees native tools directly, so no channel traffic is needed.
// - Otherwise: a polyfill of the current spec on `document.modelContext`, plus declarative
//   `<form toolname>` tools, reported to the ISOLATED content script over CustomEvents on
//   `window` (see docs/ARCHITECTURE.md, "MAIN world <-> content script").
// - Both modes: the legacy `navigator.modelContext` surface (registerTool, unregisterTool,
//   provideContext, clearContext) that older sites still use.
(() => {
  'use strict';

  const MARK = Symbol.for('webmcp-sidecar.main-world');
  // Double injection (extension reload, a second copy of the script): the first copy owns the page.
  if (/** @type {any} */ (window)[MARK]) return;
  try {
    Object.defineProperty(window, MARK, { value: true });
  } catch {
    return;
  }

  // ---- builtins, captured before page scripts run so that a page overwriting them later can
  // neither break the channel nor observe more than the events it can already see.
  const W = window;
  const D = document;
  const R = Reflect;
  const rApply = R.apply;
  const O = Object;
  const oCreate = O.create;
  const oKeys = O.keys;
  const oFreeze = O.freeze;
  const oDefineProperty = O.defineProperty;
  const oGetOwnPropertyDescriptor = O.getOwnPropertyDescriptor;
  const oGetPrototypeOf = O.getPrototypeOf;
  const oToString = O.prototype.toString;
  const ObjectProto = O.prototype;
  const ArrayProto = Array.prototype;
  const isArray = Array.isArray;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const StringC = String;
  const PromiseC = Promise;
  const MapC = Map;
  const SetC = Set;
  const WeakSetC = WeakSet;
  const ErrorC = Error;
  const TypeErrorC = TypeError;
  const DOMExceptionC = DOMException;
  const EventC = Event;
  const CustomEventC = CustomEvent;
  const EventTargetC = EventTarget;
  const AbortControllerC = AbortController;
  const AbortSignalC = AbortSignal;
  const NodeC = Node;
  const MutationObserverC = MutationObserver;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const DataViewC = DataView;
  const RegExpC = RegExp;
  const NumberC = Number;
  const BooleanC = Boolean;
  const numIsFinite = Number.isFinite;
  const numValueOf = Number.prototype.valueOf;
  const strValueOf = String.prototype.valueOf;
  const boolValueOf = Boolean.prototype.valueOf;
  const queueMicro = queueMicrotask;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const detailOf = /** @type {() => any} */ (
    oGetOwnPropertyDescriptor(CustomEvent.prototype, 'detail')?.get
  );
  const strTrim = String.prototype.trim;
  const strSlice = String.prototype.slice;
  const strReplace = String.prototype.replace;
  const strToLower = String.prototype.toLowerCase;
  const reTest = RegExp.prototype.test;

  /** @param {any} obj @param {string} prop */
  const setterOf = (obj, prop) => oGetOwnPropertyDescriptor(obj, prop)?.set;
  const inputValueSet = setterOf(HTMLInputElement.prototype, 'value');
  const inputCheckedSet = setterOf(HTMLInputElement.prototype, 'checked');
  const textareaValueSet = setterOf(HTMLTextAreaElement.prototype, 'value');
  const selectValueSet = setterOf(HTMLSelectElement.prototype, 'value');
  const optionSelectedSet = setterOf(HTMLOptionElement.prototype, 'selected');
  const elClick = HTMLElement.prototype.click;
  const formRequestSubmit = HTMLFormElement.prototype.requestSubmit;
  const formElementsGet = oGetOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements')?.get;
  const elGetAttribute = Element.prototype.getAttribute;
  const elHasAttribute = Element.prototype.hasAttribute;
  const elClosest = Element.prototype.closest;
  const elMatches = Element.prototype.matches;
  const elQuerySelector = Element.prototype.querySelector;
  const docQuerySelectorAll = Document.prototype.querySelectorAll;

  const PAGE_EVENT = 'webmcp-sidecar:page'; // MAIN -> ISOLATED
  const EXT_EVENT = 'webmcp-sidecar:ext'; // ISOLATED -> MAIN
  const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
  const MAX_DEPTH = 200;

  /** @param {unknown} name */
  const validName = (name) => typeof name === 'string' && rApply(reTest, NAME_RE, [name]);
  /** @param {string} s @param {number} n */
  const cut = (s, n) => (s.length > n ? rApply(strSlice, s, [0, n]) + '…' : s);
  /** @param {string} s */
  const squash = (s) => rApply(strTrim, rApply(strReplace, s, [/\s+/g, ' ']), []);
  /** @param {unknown} v */
  const isObj = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');

  /** @param {string} msg */
  const typeError = (msg) => new TypeErrorC(msg);
  /** @param {string} op @param {string} msg */
  const opError = (op, msg) => typeError(`Failed to execute '${op}' on 'ModelContext': ${msg}`);
  /** @param {string} msg @param {string} name */
  const domError = (msg, name) => new DOMExceptionC(msg, name);
  /** @param {AbortSignal} signal */
  const abortReason = (signal) =>
    signal.reason !== undefined
      ? signal.reason
      : domError('signal is aborted without reason', 'AbortError');

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

  // ---- shared helpers ----------------------------------------------------------------------

  /** Runs `cb` and hands back its result: there is no separate UI to ask the user in. */
  const requestUserInteraction = {
    /** @param {unknown} cb */
    async requestUserInteraction(cb) {
      if (typeof cb !== 'function') throw typeError('The callback provided is not a function.');
      return await cb();
    },
  }.requestUserInteraction;

  /**
   * Reads a tool dict in the order Chromium's bindings do and throws like them.
   * @param {any} tool @param {string} op
   */
  function readToolDict(tool, op) {
    if (!isObj(tool)) throw opError(op, "The provided value is not of type 'ModelContextTool'.");
    const annotations = tool.annotations;
    const description = tool.description;
    if (description === undefined) {
      throw opError(op, "Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.");
    }
    const execute = tool.execute;
    if (execute === undefined) {
      throw opError(op, "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.");
    }
    if (typeof execute !== 'function') {
      throw opError(op, "Failed to read the 'execute' property from 'ModelContextTool': The provided value is not a function.");
    }
    const inputSchema = tool.inputSchema;
    if (inputSchema !== undefined && inputSchema !== null && !isObj(inputSchema)) {
      throw opError(op, "Failed to read the 'inputSchema' property from 'ModelContextTool': Failed to convert value to 'object'.");
    }
    const name = tool.name;
    if (name === undefined) {
      throw opError(op, "Failed to read the 'name' property from 'ModelContextTool': Required member is undefined.");
    }
    const title = tool.title;
    /** @type {Record<string, boolean|string|number>|undefined} */
    let ann;
    if (isObj(annotations)) {
      ann = {};
      for (const k of oKeys(annotations)) {
        const x = annotations[k];
        if (typeof x === 'boolean' || typeof x === 'string' || typeof x === 'number') ann[k] = x;
      }
    }
    return {
      name: StringC(name),
      title: title === undefined || title === null ? '' : StringC(title),
      description: StringC(description),
      inputSchema: inputSchema ? jsonCopy(inputSchema, 'inputSchema') : undefined,
      annotations: ann,
      execute,
      tool,
    };
  }

  /** @param {string} name */
  function checkNewName(name) {
    if (!validName(name)) throw domError('Invalid tool name', 'InvalidStateError');
  }

  // ======================================================================================
  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) installNative(nativeMC);
  else installPolyfill();

  // ---- native mode ---------------------------------------------------------------------
  /** @param {any} mc */
  function installNative(mc) {
    const proto = oGetPrototypeOf(mc);
    const desc = oGetOwnPropertyDescriptor(proto, 'registerTool');
    const original = desc && desc.value;
    if (typeof original !== 'function') return;

    /** @param {unknown} e */
    const errorResult = (e) => ({
      content: [{ type: 'text', text: 'Error: ' + errorMessage(e) }],
      isError: true,
    });

    /** Chromium fails the call on results JSON.stringify rejects (cycles, BigInt): repair those. */
    const nativeSafe = (/** @type {unknown} */ r) => {
      if (!isObj(r) && typeof r !== 'bigint') return r;
      try {
        jsonStringify(r);
        return r;
      } catch {
        return jsonParse(safeStringify(r));
      }
    };

    /** @param {any} tool */
    const wrapTool = (tool) => {
      const exec = tool.execute;
      if (typeof exec !== 'function') return tool;
      /** @param {unknown} input @param {any} client */
      const execute = function execute(input, client) {
        if (isObj(client) && typeof client.requestUserInteraction !== 'function') {
          try {
            client.requestUserInteraction = requestUserInteraction;
          } catch {
            /* frozen client: leave it */
          }
        }
        let r;
        try {
          r = rApply(exec, tool, [input, client]);
        } catch (e) {
          return errorResult(e);
        }
        if (isObj(r) && typeof (/** @type {any} */ (r).then) === 'function') {
          return (async () => {
            try {
              return nativeSafe(await r);
            } catch (e) {
              return errorResult(e);
            }
          })();
        }
        return nativeSafe(r);
      };
      // Inherit every other member (getters and prototype members included) from the page's
      // object: Chromium reads the dict with ordinary property gets.
      const w = oCreate(tool);
      oDefineProperty(w, 'execute', { value: execute, enumerable: true, writable: true, configurable: true });
      return w;
    };

    const wrapped = {
      /** Same name, length and return value as the native method. @param {any} tool */
      registerTool(tool) {
        const args = [];
        for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
        try {
          if (isObj(tool)) args[0] = wrapTool(tool);
        } catch {
          args[0] = tool; // a hostile getter: let Chromium report it
        }
        return rApply(original, this, args);
      },
    }.registerTool;
    oDefineProperty(proto, 'registerTool', { ...desc, value: wrapped });

    // Legacy surface, forwarded to the native API. An AbortController per name lets
    // unregisterTool / provideContext / clearContext take a tool back.
    /** @type {Map<string, {ac: AbortController, provided: boolean}>} */
    const legacy = new MapC();
    /** @param {string} name */
    const drop = (name) => {
      const e = legacy.get(name);
      if (!e) return;
      legacy.delete(name);
      e.ac.abort();
    };
    /** @param {any} tool @param {boolean} provided */
    const add = (tool, provided) => {
      const name = StringC(tool.name);
      const ac = new AbortControllerC();
      const entry = { ac, provided };
      legacy.set(name, entry);
      let p;
      try {
        p = rApply(wrapped, mc, [tool, { signal: ac.signal }]);
      } catch {
        p = undefined;
      }
      // A clash with a tool registered through document.modelContext only shows up here,
      // asynchronously: forget the name so that it can be registered again.
      (async () => {
        try {
          await p;
        } catch {
          if (legacy.get(name) === entry) legacy.delete(name);
        }
      })();
    };
    installLegacy({
      registerTool(tool) {
        const t = readToolDict(tool, 'registerTool');
        checkNewName(t.name);
        if (legacy.has(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
        add(tool, false);
        const name = t.name;
        return oFreeze({ unregister: () => drop(name) });
      },
      unregisterTool(name) {
        drop(StringC(name));
      },
      provideContext(context) {
        const list = readToolList(context);
        const seen = new SetC();
        for (const t of list) {
          checkNewName(t.name);
          const held = legacy.get(t.name);
          if (seen.has(t.name) || (held && !held.provided)) {
            throw domError('Duplicate tool name', 'InvalidStateError');
          }
          seen.add(t.name);
        }
        for (const [name, e] of [...legacy]) if (e.provided) drop(name);
        for (const t of list) add(t.tool, true);
      },
      clearContext() {
        for (const name of [...legacy.keys()]) drop(name);
      },
    });
  }

  /** @param {any} context */
  function readToolList(context) {
    const tools = isObj(context) ? context.tools : undefined;
    if (tools === undefined || tools === null) return [];
    if (!isObj(tools) || typeof tools[Symbol.iterator] !== 'function') {
      throw typeError("Failed to execute 'provideContext' on 'ModelContext': tools is not iterable.");
    }
    const out = [];
    for (const tool of tools) out.push(readToolDict(tool, 'provideContext'));
    return out;
  }

  /**
   * Installs `navigator.modelContext` (old drafts) unless the browser has one of its own.
   * @param {{registerTool(tool: any): any, unregisterTool(name: any): void, provideContext(context: any): void, clearContext(): void}} impl
   */
  function installLegacy(impl) {
    if ('modelContext' in navigator) return;
    class ModelContextLegacy {
      /** @param {any} tool */
      registerTool(tool) {
        return impl.registerTool(tool);
      }
      /** @param {any} name */
      unregisterTool(name) {
        impl.unregisterTool(name);
      }
      /** @param {any} context */
      provideContext(context) {
        impl.provideContext(context);
      }
      clearContext() {
        impl.clearContext();
      }
    }
    oDefineProperty(ModelContextLegacy.prototype, Symbol.toStringTag, { value: 'ModelContext', configurable: true });
    const instance = new ModelContextLegacy();
    const getter = oGetOwnPropertyDescriptor(
      {
        get modelContext() {
          return instance;
        },
      },
      'modelContext',
    )?.get;
    oDefineProperty(Navigator.prototype, 'modelContext', { get: getter, enumerable: true, configurable: true });
  }

  // ---- polyfill mode -------------------------------------------------------------------
  function installPolyfill() {
    /**
     * @typedef {{
     *   name: string, title: string, description: string, inputSchema?: any, annotations?: any,
     *   source: 'polyfill'|'legacy'|'declarative', execute: Function, tool: any,
     *   provided?: boolean, form?: HTMLFormElement, key?: string
     * }} Entry
     */
    /** @type {Map<string, Entry>} */
    const tools = new MapC();
    /** @type {Map<string, AbortController>} calls from the extension, by channel id */
    const calls = new MapC();
    /** @type {Record<string, Function|null>} */
    const handlers = { toolchange: null, toolactivated: null, toolcancel: null };
    let changeQueued = false;
    /** @type {any} */
    let mc;

    /** @param {unknown} msg */
    const post = (msg) => {
      try {
        rApply(dispatch, W, [new CustomEventC(PAGE_EVENT, { detail: plainJson(msg) })]);
      } catch {
        /* nothing to report to */
      }
    };

    /** @param {string} type @param {string} [toolName] */
    const fire = (type, toolName) => {
      try {
        const ev = new EventC(type);
        if (toolName !== undefined) oDefineProperty(ev, 'toolName', { value: toolName, enumerable: true });
        rApply(dispatch, mc, [ev]);
      } catch {
        /* a throwing listener is the page's business */
      }
    };

    const announce = () => {
      const list = [];
      for (const e of tools.values()) {
        list.push({
          name: e.name,
          title: e.title || undefined,
          description: e.description,
          inputSchema: e.inputSchema,
          annotations: e.annotations,
          source: e.source,
        });
      }
      post({ type: 'tools', tools: list });
    };

    // Several changes in one task make one `toolchange` and one `tools` message.
    const changed = () => {
      if (changeQueued) return;
      changeQueued = true;
      queueMicro(() => {
        changeQueued = false;
        announce();
        fire('toolchange');
      });
    };

    /** @param {Entry} e */
    const add = (e) => {
      tools.set(e.name, e);
      changed();
    };
    /** @param {Entry} e */
    const remove = (e) => {
      if (tools.get(e.name) !== e) return;
      tools.delete(e.name);
      changed();
    };

    /**
     * Runs a tool: fires toolactivated, gives it a client whose signal aborts on cancel.
     * @param {Entry} e @param {any} input @param {AbortSignal|undefined} signal
     */
    const run = (e, input, signal) =>
      new PromiseC((resolve, reject) => {
        const ac = new AbortControllerC();
        const client = { requestUserInteraction, signal: ac.signal };
        let settled = false;
        const onAbort = () => {
          if (settled) return;
          settled = true;
          const reason = signal ? abortReason(signal) : undefined;
          ac.abort(reason);
          fire('toolcancel', e.name);
          reject(reason);
        };
        if (signal) {
          if (signal.aborted) return reject(abortReason(signal)); // never started: no events
          rApply(listen, signal, ['abort', onAbort, { once: true }]);
        }
        fire('toolactivated', e.name);
        (async () => {
          try {
            const v = await rApply(e.execute, e.tool, [input, client]);
            if (!settled) {
              settled = true;
              resolve(v);
            }
          } catch (err) {
            if (!settled) {
              settled = true;
              reject(err);
            }
          } finally {
            if (signal) rApply(unlisten, signal, ['abort', onAbort]);
          }
        })();
      });

    class ModelContext extends EventTargetC {
      /**
       * @param {any} tool
       * @param {{signal?: AbortSignal, exposedTo?: unknown}} [options]
       * @returns {Promise<void>}
       */
      registerTool(tool, options = undefined) {
        return new PromiseC((resolve) => {
          const t = readToolDict(tool, 'registerTool');
          const signal = isObj(options) ? /** @type {any} */ (options).signal : undefined;
          if (signal !== undefined && !(signal instanceof AbortSignalC)) {
            throw opError('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
          }
          if (signal && signal.aborted) throw abortReason(signal);
          checkNewName(t.name);
          if (tools.has(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
          /** @type {Entry} */
          const e = { ...t, source: 'polyfill' };
          add(e);
          if (signal) rApply(listen, signal, ['abort', () => remove(e), { once: true }]);
          resolve(undefined);
        });
      }

      /** @returns {Promise<any[]>} */
      getTools() {
        const out = [];
        for (const e of tools.values()) {
          /** @type {Record<string, any>} */
          const r = { name: e.name, title: e.title, description: e.description };
          if (e.inputSchema !== undefined) r.inputSchema = jsonParse(plainJson(e.inputSchema));
          if (e.annotations !== undefined) r.annotations = { ...e.annotations };
          r.origin = location.origin;
          r.window = W;
          out.push(r);
        }
        return PromiseC.resolve(out);
      }

      /**
       * @param {any} tool a tool from getTools(), or its name
       * @param {any} input
       * @param {{signal?: AbortSignal}} [options]
       * @returns {Promise<string>}
       */
      executeTool(tool, input, options = undefined) {
        return new PromiseC((resolve, reject) => {
          const name = typeof tool === 'string' ? tool : isObj(tool) ? StringC(tool.name) : undefined;
          const e = name === undefined ? undefined : tools.get(name);
          if (!e) throw domError(`No tool named "${name}" is registered.`, 'NotFoundError');
          if (input === undefined || input === null) input = {};
          if (typeof input !== 'object' || isArray(input)) {
            throw opError('executeTool', 'invalid input object: value is not an object');
          }
          const args = jsonCopy(input, 'The input');
          const signal = isObj(options) ? /** @type {any} */ (options).signal : undefined;
          (async () => {
            try {
              resolve(resultText(await run(e, args, signal)));
            } catch (err) {
              reject(err);
            }
          })();
        });
      }
    }
    for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
      oDefineProperty(ModelContext.prototype, 'on' + type, {
        get() {
          return handlers[type];
        },
        set(v) {
          handlers[type] = typeof v === 'function' ? v : null;
        },
        enumerable: true,
        configurable: true,
      });
    }
    mc = new ModelContext();
    for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
      rApply(listen, mc, [
        type,
        /** @param {Event} ev */ (ev) => {
          const h = handlers[type];
          if (h) rApply(h, mc, [ev]);
        },
      ]);
    }
    const getter = oGetOwnPropertyDescriptor(
      {
        get modelContext() {
          return this === D ? mc : undefined;
        },
      },
      'modelContext',
    )?.get;
    oDefineProperty(Document.prototype, 'modelContext', { get: getter, enumerable: true, configurable: true });

    // Legacy surface: same registry, source "legacy".
    installLegacy({
      registerTool(tool) {
        const t = readToolDict(tool, 'registerTool');
        checkNewName(t.name);
        if (tools.has(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
        /** @type {Entry} */
        const e = { ...t, source: 'legacy' };
        add(e);
        return oFreeze({ unregister: () => remove(e) });
      },
      unregisterTool(name) {
        const e = tools.get(StringC(name));
        if (e && e.source === 'legacy') remove(e);
      },
      provideContext(context) {
        const list = readToolList(context);
        const seen = new SetC();
        for (const t of list) {
          checkNewName(t.name);
          const held = tools.get(t.name);
          if (seen.has(t.name) || (held && !(held.source === 'legacy' && held.provided))) {
            throw domError('Duplicate tool name', 'InvalidStateError');
          }
          seen.add(t.name);
        }
        for (const e of [...tools.values()]) if (e.source === 'legacy' && e.provided) remove(e);
        for (const t of list) add({ ...t, source: 'legacy', provided: true });
      },
      clearContext() {
        for (const e of [...tools.values()]) if (e.source === 'legacy') remove(e);
      },
    });

    // ---- channel to the ISOLATED content script ----
    /** @param {string} id @param {string} name @param {any} args */
    const onCall = async (id, name, args) => {
      const e = tools.get(name);
      if (!e) {
        post({ type: 'result', id, ok: false, error: `No tool named "${name}" on this page.` });
        return;
      }
      const ac = new AbortControllerC();
      calls.set(id, ac);
      try {
        const v = await run(e, isObj(args) && !isArray(args) ? args : {}, ac.signal);
        if (!ac.signal.aborted) post({ type: 'result', id, ok: true, value: resultText(v) });
      } catch (err) {
        if (!ac.signal.aborted) post({ type: 'result', id, ok: false, error: errorMessage(err) });
      } finally {
        if (calls.get(id) === ac) calls.delete(id);
      }
    };

    rApply(listen, W, [
      EXT_EVENT,
      /** @param {Event} ev */ (ev) => {
        let msg;
        try {
          const d = detailOf ? rApply(detailOf, ev, []) : /** @type {any} */ (ev).detail;
          if (typeof d !== 'string') return;
          msg = jsonParse(d);
        } catch {
          return;
        }
        if (!isObj(msg)) return;
        if (msg.type === 'sync') announce();
        else if (msg.type === 'call' && typeof msg.id === 'string' && typeof msg.name === 'string') {
          if (!calls.has(msg.id)) onCall(msg.id, msg.name, msg.args);
        } else if (msg.type === 'cancel' && typeof msg.id === 'string') {
          const ac = calls.get(msg.id);
          if (ac) {
            calls.delete(msg.id);
            ac.abort(domError('The call was cancelled.', 'AbortError'));
          }
        }
      },
    ]);
    // bfcache restore: the extension side lost its port, announce the list again.
    rApply(listen, W, [
      'pageshow',
      /** @param {PageTransitionEvent} ev */ (ev) => {
        if (ev.persisted) announce();
      },
    ]);

    installDeclarative(tools, add, remove, changed);
    post({ type: 'ready' });
  }

  // ---- declarative tools: <form toolname tooldescription [toolautosubmit]> --------------
  /**
   * @param {Map<string, any>} tools
   * @param {(e: any) => void} add
   * @param {(e: any) => void} remove
   * @param {() => void} changed
   */
  function installDeclarative(tools, add, remove, changed) {
    /** @type {Map<HTMLFormElement, any>} */
    const byForm = new MapC();
    const SKIP_INPUT = new SetC(['hidden', 'submit', 'reset', 'button', 'image', 'file']);
    /** Chromium's formats for the date/time inputs, as patterns (they are regexes). */
    /** @type {Record<string, string>} */
    const PATTERNS = {
      time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
      month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
      week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
      color: '^#[0-9a-zA-Z]{6}$',
    };

    /** @param {any} el @param {string} a */
    const attr = (el, a) => rApply(elGetAttribute, el, [a]);
    /** @param {any} el @param {string} a */
    const hasAttr = (el, a) => rApply(elHasAttribute, el, [a]);

    /** Text of a label without the controls inside it. @param {Node} node @returns {string} */
    const textOf = (node) => {
      if (node.nodeType === 3) return StringC(/** @type {Text} */ (node).data);
      if (node.nodeType !== 1) return '';
      const tag = /** @type {Element} */ (node).localName;
      if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'button') return '';
      let s = '';
      for (const c of node.childNodes) s += textOf(c);
      return s;
    };
    /** @param {any} el */
    const labelOf = (el) => {
      const labels = el.labels;
      if (!labels || !labels.length) return '';
      return squash(textOf(labels[0]));
    };

    /** The form's named controls, grouped by name (radio and checkbox groups). @param {HTMLFormElement} form */
    const controlsOf = (form) => {
      /** @type {Map<string, any[]>} */
      const groups = new MapC();
      const elements = formElementsGet ? rApply(formElementsGet, form, []) : form.elements;
      for (let i = 0; i < elements.length; i++) {
        const el = elements[i];
        const tag = el.localName;
        if (tag === 'input') {
          if (SKIP_INPUT.has(el.type)) continue;
        } else if (tag !== 'select' && tag !== 'textarea') continue;
        const name = el.name;
        if (!name) continue;
        const g = groups.get(name);
        if (g) g.push(el);
        else groups.set(name, [el]);
      }
      return groups;
    };

    /** @param {any} el @returns {string|undefined} */
    const paramDescription = (el) => {
      const d = attr(el, 'toolparamdescription');
      if (d) return d;
      return labelOf(el) || undefined;
    };

    /** @param {string|null} s */
    const num = (s) => {
      if (s === null || s === '') return undefined;
      const n = NumberC(s);
      return numIsFinite(n) ? n : undefined;
    };

    /** @param {any[]} els */
    const enumOf = (els, /** @type {(el: any) => [string, string]} */ pick) => {
      const values = [];
      const anyOf = [];
      for (const el of els) {
        const [value, title] = pick(el);
        values.push(value);
        /** @type {Record<string, string>} */
        const alt = { type: 'string', const: value };
        if (title) alt.title = title;
        anyOf.push(alt);
      }
      return { type: 'string', anyOf, enum: values };
    };

    /** JSON schema of one control group, as Chromium builds it. @param {any[]} els */
    const schemaOf = (els) => {
      const el = els[0];
      const tag = el.localName;
      /** @type {Record<string, any>} */
      let s;
      if (tag === 'select') {
        const opts = [];
        for (const o of el.options) opts.push(o);
        const e = enumOf(opts, (o) => [StringC(o.value), squash(StringC(o.label || o.text || ''))]);
        s = el.multiple ? { type: 'array', items: e, uniqueItems: true } : e;
      } else if (tag === 'textarea') {
        s = { type: 'string' };
      } else {
        const type = el.type;
        if (type === 'radio') {
          s = enumOf(els, (r) => [StringC(r.value), labelOf(r)]);
          const d = attr(el, 'toolparamdescription');
          if (d) s.description = d;
          return s;
        }
        if (type === 'checkbox') {
          if (els.length > 1) {
            s = { type: 'array', items: enumOf(els, (c) => [StringC(c.value), labelOf(c)]), uniqueItems: true };
            const d = attr(el, 'toolparamdescription');
            if (d) s.description = d;
            return s;
          }
          s = { type: 'boolean' };
        } else if (type === 'number' || type === 'range') {
          s = { type: 'number' };
          const range = type === 'range';
          const min = num(attr(el, 'min')) ?? (range ? 0 : undefined);
          const max = num(attr(el, 'max')) ?? (range ? 100 : undefined);
          if (min !== undefined) s.minimum = min;
          if (max !== undefined) s.maximum = max;
          const stepAttr = attr(el, 'step');
          if (stepAttr === null || rApply(strToLower, stepAttr, []) !== 'any') {
            const step = num(stepAttr);
            s.multipleOf = step !== undefined && step > 0 ? step : 1;
          }
        } else if (type === 'date') {
          const d = paramDescription(el);
          return {
            type: 'string',
            format: 'date',
            description: (d ? d + ' ' : '') + "Dates MUST be provided in 'YYYY-MM-DD' format.",
          };
        } else if (PATTERNS[type]) {
          s = { type: 'string', pattern: PATTERNS[type] };
        } else {
          s = { type: 'string' };
          const p = attr(el, 'pattern');
          // HTML patterns match the whole value; JSON Schema's are unanchored.
          if (p) s.pattern = '^(?:' + p + ')$';
        }
      }
      const d = paramDescription(el);
      if (d) s.description = d;
      return s;
    };

    /** @param {HTMLFormElement} form */
    const formSchema = (form) => {
      /** @type {Record<string, any>} */
      const properties = {};
      const required = [];
      for (const [name, els] of controlsOf(form)) {
        properties[name] = schemaOf(els);
        for (const el of els) {
          if (el.required) {
            required.push(name);
            break;
          }
        }
      }
      return { type: 'object', properties, required };
    };

    /** @param {any} el */
    const fireInputChange = (el) => {
      rApply(dispatch, el, [new EventC('input', { bubbles: true, composed: true })]);
      rApply(dispatch, el, [new EventC('change', { bubbles: true })]);
    };
    // Through the prototype's setter, so that frameworks that shadow `value` (React's value
    // tracker) see the input event as a real change.
    /** @param {any} el @param {string} v */
    const setValue = (el, v) => {
      const set = el.localName === 'textarea' ? textareaValueSet : el.localName === 'select' ? selectValueSet : inputValueSet;
      if (set) rApply(set, el, [v]);
      else el.value = v;
    };
    /** A click toggles like a user's would (frameworks listen to click for checkboxes). @param {any} el @param {boolean} want */
    const setChecked = (el, want) => {
      if (el.checked === want) return;
      rApply(elClick, el, []);
      if (el.checked !== want) {
        if (inputCheckedSet) rApply(inputCheckedSet, el, [want]);
        else el.checked = want;
        fireInputChange(el);
      }
    };
    /** @param {unknown} v */
    const truthy = (v) => v === true || v === 'true' || v === 'on' || v === 1 || v === '1';
    /** @param {unknown} v */
    const asList = (v) => (isArray(v) ? v : v === undefined || v === null ? [] : [v]).map((x) => StringC(x));

    /** @param {string} name @param {any[]} els @param {unknown} v */
    const fill = (name, els, v) => {
      const el = els[0];
      if (el.localName === 'select') {
        if (el.multiple) {
          const want = new SetC(asList(v));
          for (const o of el.options) {
            const sel = want.has(o.value);
            if (optionSelectedSet) rApply(optionSelectedSet, o, [sel]);
            else o.selected = sel;
          }
        } else {
          const s = v === null || v === undefined ? '' : StringC(v);
          setValue(el, s);
          if (el.value !== s) throw new ErrorC(`"${s}" is not one of the options of "${name}".`);
        }
        fireInputChange(el);
        return;
      }
      if (el.localName === 'input' && el.type === 'radio') {
        const s = StringC(v);
        const r = els.find((x) => x.value === s);
        if (!r) throw new ErrorC(`"${s}" is not one of the options of "${name}".`);
        setChecked(r, true);
        return;
      }
      if (el.localName === 'input' && el.type === 'checkbox') {
        if (els.length > 1) {
          const want = new SetC(asList(v));
          for (const c of els) setChecked(c, want.has(c.value));
        } else setChecked(el, truthy(v));
        return;
      }
      setValue(el, v === null || v === undefined ? '' : StringC(v));
      fireInputChange(el);
    };

    /** @param {HTMLFormElement} form @param {any} input */
    const execute = async (form, input) => {
      if (!form.isConnected) throw new ErrorC('The form of this tool is no longer on the page.');
      const groups = controlsOf(form);
      const keys = oKeys(input || {});
      for (const k of keys) {
        if (!groups.has(k)) {
          throw new ErrorC(`Input contains a parameter "${k}" but there is no such parameter for the tool`);
        }
      }
      for (const k of keys) fill(k, /** @type {any[]} */ (groups.get(k)), input[k]);
      const what = keys.length ? 'Filled ' + keys.join(', ') : 'Filled nothing';
      if (!hasAttr(form, 'toolautosubmit')) return what + '. The form was not submitted.';

      // Submit like Chromium: the submit event says it is the agent's (agentInvoked) and the page
      // may answer with respondWith(promise).
      /** @type {unknown} */
      let responded;
      let hasResponse = false;
      /** @param {Event} ev */
      const onSubmit = (ev) => {
        if (ev.target !== form) return;
        try {
          oDefineProperty(ev, 'agentInvoked', { value: true, configurable: true });
          oDefineProperty(ev, 'respondWith', {
            value: /** @param {unknown} p */ (p) => {
              hasResponse = true;
              responded = p;
            },
            configurable: true,
          });
        } catch {
          /* a native respondWith already exists */
        }
      };
      rApply(listen, W, ['submit', onSubmit, true]);
      try {
        rApply(formRequestSubmit, form, []);
      } finally {
        rApply(unlisten, W, ['submit', onSubmit, true]);
      }
      if (hasResponse) return await responded;
      return what + ' and submitted the form.';
    };

    const NAME_ATTRS = ['toolname', 'tooldescription', 'toolautosubmit'];

    const scan = () => {
      const seen = new SetC();
      const forms = rApply(docQuerySelectorAll, D, ['form[toolname]']);
      for (let i = 0; i < forms.length; i++) {
        const form = forms[i];
        const name = attr(form, 'toolname');
        let e = byForm.get(form);
        if (e && e.name !== name) {
          byForm.delete(form);
          remove(e);
          e = undefined;
        }
        if (!validName(name)) continue;
        seen.add(form);
        const description = attr(form, 'tooldescription') || '';
        const inputSchema = formSchema(form);
        const key = plainJson([description, inputSchema, hasAttr(form, 'toolautosubmit')]);
        if (e) {
          if (e.key !== key) {
            e.key = key;
            e.description = description;
            e.inputSchema = inputSchema;
            changed();
          }
          continue;
        }
        if (tools.has(name)) continue; // the name is taken (two forms, or a script's tool)
        e = {
          name,
          title: '',
          description,
          inputSchema,
          annotations: undefined,
          source: 'declarative',
          form,
          key,
          tool: undefined,
          /** @param {any} input */
          execute: (input) => execute(form, input),
        };
        byForm.set(form, e);
        add(e);
      }
      for (const [form, e] of [...byForm]) {
        if (!seen.has(form)) {
          byForm.delete(form);
          remove(e);
        }
      }
    };

    const CONTROL_SEL = 'form,input,select,textarea,option,optgroup,label,fieldset,datalist';
    /** Only mutations that can touch a tool form are worth a rescan. @param {MutationRecord[]} records */
    const relevant = (records) => {
      for (const r of records) {
        const t = /** @type {any} */ (r.target);
        if (r.type === 'attributes') {
          if (NAME_ATTRS.includes(/** @type {string} */ (r.attributeName))) return true;
          if (t.nodeType === 1 && rApply(elClosest, t, ['form[toolname]'])) return true;
          if (t.form && hasAttr(t.form, 'toolname')) return true;
          continue;
        }
        if (t.nodeType === 1 && rApply(elClosest, t, ['form[toolname]'])) return true;
        for (const list of [r.addedNodes, r.removedNodes]) {
          for (const n of list) {
            if (n.nodeType !== 1) continue;
            if (rApply(elMatches, n, [CONTROL_SEL])) return true;
            if (rApply(elQuerySelector, n, ['form[toolname],input,select,textarea'])) return true;
          }
        }
      }
      return false;
    };

    const start = () => {
      scan();
      new MutationObserverC((records) => {
        if (relevant(records)) scan();
      }).observe(D, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: [
          ...NAME_ATTRS, 'toolparamdescription', 'name', 'type', 'required', 'min', 'max',
          'step', 'pattern', 'multiple', 'value', 'label', 'form', 'for', 'id',
        ],
      });
    };
    if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', start, { once: true }]);
    else start();
  }
})();
