// WebMCP Sidecar, MAIN world stub, polyfill mode: the API surface a page sees from
// document_start and registerTool's synchronous part. The rest comes on first use (docs/
// PAGE_CODE.md, "What runs in a page"); until adopt.js hands it over, what waits is in `queue`.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, D, rApply, reTest, oCreate, oFreeze, oDefineProperty, oGetOwnPropertyDescriptor, StringC, MapC, PromiseC, TypeErrorC, EventC,
    EventTargetC, WeakMapC, wmGet, wmSet, listen, unlisten, docQuerySelectorAll, isObj, opError, domError,
    abortReason, plainJson, readToolDict, checkNewName, installLegacy, installSelectors, EXT_EVENT, NS, dom, tell, GRANTED_IFRAME,
  } = ns;
  const INSTALL = '{"type":"install"}';
  // The full code will not come (the worker's cap, or the extension went away).
  const REFUSED = '{"type":"install_refused"}';
  const refusedError = () =>
    domError('WebMCP Sidecar could not load its page code into this frame (too many frames of this tab use WebMCP, or the extension was updated or removed).', 'UnknownError');

  const names = new WeakMapC();
  /** @param {string} iface */
  const toolEvent = (iface) => {
    const C = class extends EventC {
      /** @param {string} type @param {{toolName?: unknown} & EventInit} [init] */
      constructor(type, init = undefined) {
        super(type, init);
        const n = isObj(init) ? /** @type {any} */ (init).toolName : undefined;
        rApply(wmSet, names, [this, n === undefined ? '' : StringC(n)]);
      }
      /** @returns {string} */
      get toolName() {
        const n = rApply(wmGet, names, [this]);
        if (n === undefined) throw new TypeErrorC('Illegal invocation');
        return n;
      }
    };
    oDefineProperty(C, 'name', { value: iface });
    oDefineProperty(C.prototype, Symbol.toStringTag, { value: iface, configurable: true });
    return C;
  };

  /** On window as WebIDL puts it. @param {string} name @param {any} value */
  const expose = (name, value) => {
    try {
      oDefineProperty(W, name, { value, writable: true, configurable: true, enumerable: false });
    } catch {
      /* a page-planted non-configurable property (see base.js): leave it */
    }
  };

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
        u = new (dom().URLC)(x);
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

  function installSurface() {
    const ToolActivatedEvent = toolEvent('ToolActivatedEvent');
    const ToolCancelEvent = toolEvent('ToolCancelEvent');
    /** @type {Map<string, any>} the registry (polyfill.js's Entry) */
    const tools = new MapC();
    /** @type {Record<string, Function|null>} */
    const handlers = { toolchange: null, toolactivated: null, toolcancel: null };
    /** @type {any} what adopt.js hands over (polyfill.js); undefined until then */
    let full;
    let asked = false;
    let touched = false; // the page read document.modelContext
    /** @type {any} */
    let forms;
    // What waits for the full code, in order (null prototype: no page patch sees it).
    /** @type {Record<number, () => void>} */
    const queue = oCreate(null);
    /** What settles it if the code never comes, by the same index. @type {Record<number, () => void>} */
    const fails = oCreate(null);
    let qTail = 0;
    let refused = false;

    /** Asks for the full code (through page/isolated/stub.js). */
    const use = () => {
      if (asked) return;
      asked = true;
      if (forms) forms.disconnect();
      perm(); // frame-remote.js reads ns.toolsDenied
      // The files the worker injects find the namespace here; adopt.js removes it.
      try {
        oDefineProperty(W, NS, { value: ns, configurable: true });
      } catch {
        /* planted by the page: the full code never comes for this document */
      }
      tell(INSTALL);
    };
    /** @param {() => void} f @param {() => void} [fail] settles what f would have, if the code never comes */
    const defer = (f, fail) => {
      if (refused) return fail?.();
      use();
      if (fail) fails[qTail] = fail;
      queue[qTail++] = f;
    };
    /** Empties the queue in order, running each entry's work or its fail. @param {Record<number, () => void>} from */
    const drain = (from) => {
      for (let i = 0; i < qTail; i++) {
        const f = from[i];
        delete queue[i];
        delete fails[i];
        try {
          f?.();
        } catch {
          /* a page listener's throw is the page's business */
        }
      }
      qTail = 0;
    };
    const refuse = () => {
      if (full || refused) return;
      refused = true;
      drain(fails);
      // Nothing will run what relatives sent meanwhile: stop keeping it.
      rApply(unlisten, W, ['message', onMessage]);
      for (let i = 0; i < heldN; i++) delete held[i];
      heldN = 0;
    };
    /** @param {() => void} [after] runs once the change is out, or once the full code is refused */
    const changed = (after) => (full ? full.changed(after) : defer(() => full.changed(after), after));
    /** @param {any} e @param {() => void} [after] */
    const add = (e, after) => {
      tools.set(e.name, e);
      changed(after);
    };
    /** @param {any} e */
    const remove = (e) => {
      if (tools.get(e.name) !== e) return;
      tools.delete(e.name);
      changed();
    };
    /** This frame's tools, as raw fields, for getTools() in any frame of the page. */
    const ownList = () => {
      const out = [];
      for (const e of tools.values()) {
        out[out.length] = {
          name: e.name,
          title: e.title,
          description: e.description,
          inputSchema: e.inputSchema === undefined ? undefined : plainJson(e.inputSchema),
          annotations: e.annotations,
        };
      }
      return out;
    };

    // This document's `tools` permission, read at the first need (featurePolicy, if the browser
    // knows the feature; else the parent's `allow` says: frame-remote.js finds it out). Known at
    // once at the top and in an opaque origin.
    /** @type {boolean|undefined} */
    let allowed;
    let known = false;
    const perm = () => {
      if (known) return allowed;
      known = true;
      let denied = false;
      try {
        const fp = /** @type {any} */ (D).featurePolicy;
        denied = !!fp && fp.features().includes('tools') && !fp.allowsFeature('tools');
      } catch {
        /* no featurePolicy */
      }
      ns.toolsDenied = denied;
      allowed = StringC(W.origin) === 'null' ? true : denied ? false : W.parent === W ? true : undefined;
      return allowed;
    };
    const denied = () => domError('Access to the feature "tools" is disallowed by permissions policy.', 'NotAllowedError');
    /** Runs `f` once the permission is known. @param {() => any} f */
    const later = (f) =>
      new PromiseC((resolve, reject) => {
        const go = () => full.policy(() => resolve(f()));
        if (full) go();
        else defer(go, () => reject(refusedError()));
      });
    /** A call the full code answers. @param {string} m @param {any[]} args */
    const forward = (m, args) =>
      full
        ? rApply(full[m], undefined, args)
        : new PromiseC((resolve, reject) => defer(() => resolve(rApply(full[m], undefined, args)), () => reject(refusedError())));

    const KEY = {};
    /** @type {any} */
    let mc;
    class ModelContext extends EventTargetC {
      /** Not constructible by the page, like Chromium's. @param {unknown} key */
      constructor(key) {
        if (key !== KEY) throw new TypeErrorC("Failed to construct 'ModelContext': Illegal constructor");
        super();
      }

      /**
       * @param {any} tool
       * @param {{signal?: AbortSignal, exposedTo?: unknown}} [options]
       * @returns {Promise<void>}
       */
      registerTool(tool, options = undefined) {
        if (perm() === undefined) return later(() => rApply(methods.registerTool, mc, [tool, options]));
        return new PromiseC((resolve) => {
          const t = readToolDict(tool, 'registerTool');
          // Options in Chromium's order; `exposedTo`: docs/WEBMCP_WPT.md, "Polyfill vs Chromium".
          const exposedTo = isObj(options) ? /** @type {any} */ (options).exposedTo : undefined;
          const origins = readOrigins(exposedTo, 'registerTool', 'ModelContextRegisterToolOptions', 'exposedTo');
          if (!allowed) throw denied();
          const signal = isObj(options) ? /** @type {any} */ (options).signal : undefined;
          if (signal !== undefined && !(signal instanceof dom().AbortSignalC)) {
            throw opError('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
          }
          if (signal && signal.aborted) throw abortReason(signal);
          checkNewName(t.name);
          if (tools.has(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
          const e = { ...t, source: 'polyfill' };
          if (origins && origins.length) /** @type {any} */ (e).exposedTo = origins;
          // Registered now; settled with its toolchange.
          add(e, () => resolve(undefined));
          if (signal) rApply(listen, signal, ['abort', () => remove(e), { once: true }]);
        });
      }

      /** polyfill.js's. @param {{fromOrigins?: unknown}} [options] @returns {Promise<any[]>} */
      getTools(options = undefined) {
        return forward('getTools', [options]);
      }

      /**
       * polyfill.js's. @param {any} tool a tool from getTools() @param {any} [input]
       * @param {{signal?: AbortSignal}} [options] @returns {Promise<string>}
       */
      executeTool(tool, input = undefined, options = undefined) {
        return forward('executeTool', [tool, input, options]);
      }
    }
    // The method as defined, for a call that waited for the permission (`later`).
    const methods = { registerTool: ModelContext.prototype.registerTool };
    oDefineProperty(ModelContext.prototype, Symbol.toStringTag, { value: 'ModelContext', configurable: true });
    for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
      let added = false;
      oDefineProperty(ModelContext.prototype, 'on' + type, {
        get() {
          return handlers[type];
        },
        set(v) {
          handlers[type] = typeof v === 'function' ? v : null;
          // As HTML's event handlers: listening from the first non-null value, at that place in the list.
          if (added || !handlers[type]) return;
          added = true;
          rApply(listen, mc, [type, (/** @type {Event} */ ev) => {
            const h = handlers[type];
            if (h) rApply(h, mc, [ev]);
          }]);
        },
        enumerable: true,
        configurable: true,
      });
    }
    mc = new ModelContext(KEY);
    const getter = oGetOwnPropertyDescriptor(
      {
        get modelContext() {
          if (this !== D) return undefined;
          touched = true;
          installSelectors(); // the pseudo-classes, from the first read or the full code: no form is active before
          return mc;
        },
      },
      'modelContext',
    )?.get;
    oDefineProperty(Document.prototype, 'modelContext', { get: getter, enumerable: true, configurable: true });
    expose('ModelContext', ModelContext);
    expose('ToolActivatedEvent', ToolActivatedEvent);
    expose('ToolCancelEvent', ToolCancelEvent);

    // Legacy surface: same registry, source "legacy".
    installLegacy({
      taken: (/** @type {string} */ name) => tools.has(name),
      add(/** @type {any} */ t, /** @type {boolean} */ provided) {
        const e = { ...t, source: 'legacy', provided };
        add(e);
        return () => remove(e);
      },
    });

    // What relatives read: same origin (frame-tree.js), other origins (frame-remote.js's `own`).
    const hook = oCreate(null);
    hook.list = ownList;
    hook.run = (/** @type {string} */ name, /** @type {unknown} */ input, /** @type {any} */ signal, /** @type {(kind: string, v: unknown) => void} */ settle) => {
      if (full) return full.run(name, input, signal, settle);
      if (!tools.has(name)) return false;
      const gone = () => settle('gone', undefined);
      defer(() => full.run(name, input, signal, settle) || gone(), gone);
      return true;
    };
    hook.notify = () => {
      if (full) full.notify();
      else if (touched) defer(() => full.notify());
    };
    oDefineProperty(hook, 'origin', { get: () => location.origin, enumerable: true }); // read by relatives: Location's objects only then
    const remote = oCreate(null);
    remote.frames = (/** @type {any} */ origins) => (full ? full.remote.frames(origins) : []);
    remote.run = (/** @type {any[]} */ ...args) => (full ? rApply(full.remote.run, undefined, args) : false);
    remote.policy = (/** @type {(ok: boolean) => void} */ f) => (full ? full.remote.policy(f) : defer(() => full.remote.policy(f), () => f(false)));
    for (const [key, value] of [['webmcp-sidecar.frame-registry', hook], ['webmcp-sidecar.frame-remote', remote]]) {
      try {
        oDefineProperty(W, Symbol.for(/** @type {string} */ (key)), { value: oFreeze(value) });
      } catch {
        /* planted by the page in a shared window: this frame stays on its own */
      }
    }

    // A descendant of another origin speaking the frame protocol (frame-remote.js): kept for the
    // full code, which it asks for. An ancestor speaks only after this document did: dropped.
    const FRAMES_KEY = 'webmcp-sidecar:frames';
    /** @type {Record<number, Event>} */
    const held = oCreate(null);
    let heldN = 0;
    /** @type {any} MessageEvent's getters, at the first message (not late(): its HTML*Element cost) */
    let msgGet;
    /** @param {Event} ev */
    const onMessage = (ev) => {
      if (full) return;
      let d;
      try {
        if (!msgGet) msgGet = [oGetOwnPropertyDescriptor(MessageEvent.prototype, 'data')?.get, oGetOwnPropertyDescriptor(MessageEvent.prototype, 'source')?.get];
        d = rApply(msgGet[0], ev, []);
        if (!isObj(d) || typeof d[FRAMES_KEY] !== 'string') return;
        const from = rApply(msgGet[1], ev, []);
        for (let w = W, i = 0; w.parent !== w && i < 32; i++) {
          w = w.parent;
          if (w === from) return;
        }
      } catch {
        return;
      }
      if (heldN < 256) held[heldN++] = ev;
      use();
    };
    rApply(listen, W, ['message', onMessage]);
    // The isolated stub's words: `install` (it installs for reasons of its own), `install_refused`.
    rApply(listen, W, [EXT_EVENT, (/** @type {Event} */ ev) => {
      const d = rApply(ns.events().detailOf, ev, []);
      if (!asked && d === INSTALL) use();
      else if (d === REFUSED) refuse();
    }]);

    // A tool form (declarative.js), or an iframe given `tools` (the relay grants it): looked for at
    // DOMContentLoaded, then in what is added or changed, until the code is asked for.
    const TOOL_FORM = 'form[toolname]';
    const FORM = `${TOOL_FORM}, ${GRANTED_IFRAME}`;
    // A subtree is searched with each selector alone: Blink finds one compound selector's
    // elements by their tag, and matches a list against every element (98k elements: 0.8 ms
    // against 3.0, in DOMContentLoaded's listener; bench/README.md, "The MAIN stub per mode").
    /** @param {(sel: string) => unknown} has */
    const holds = (has) => has(TOOL_FORM) || has(GRANTED_IFRAME);
    const watchForms = () => {
      if (asked) return;
      if (holds((sel) => rApply(docQuerySelectorAll, D, [sel]).length)) return use();
      forms = new MutationObserver((/** @type {MutationRecord[]} */ records) => {
        const { elMatches, elQuerySelector } = dom();
        for (const r of records) {
          const t = /** @type {any} */ (r.target);
          if (r.type === 'attributes') {
            if (t.nodeType === 1 && rApply(elMatches, t, [FORM])) return use();
            continue;
          }
          for (const n of /** @type {any} */ (r.addedNodes)) {
            if (n.nodeType === 1 && (rApply(elMatches, n, [FORM]) || holds((sel) => rApply(elQuerySelector, n, [sel])))) return use();
          }
        }
      });
      forms.observe(D, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname', 'allow'] });
    };
    if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', watchForms, { once: true }]);
    else watchForms();

    // For adopt.js and the files it brings.
    return {
      tools, handlers, mc, add, remove, ownList, ToolActivatedEvent, ToolCancelEvent,
      adopted: false,
      /** @returns {boolean|undefined} */
      allowed: perm,
      /** @param {boolean} ok */
      setAllowed: (ok) => {
        known = true;
        allowed = ok;
      },
      /** The relatives' messages kept so far (frame-remote.js runs them), and no more keeping. */
      held() {
        rApply(unlisten, W, ['message', onMessage]);
        const out = [];
        for (let i = 0; i < heldN; i++) out[i] = held[i];
        heldN = 0;
        return out;
      },
      /** The full code is here: what waited runs, in order. @param {any} f */
      adopt(f) {
        full = f;
        if (forms) forms.disconnect();
        installSelectors(); // a form can be active from now on
        drain(queue);
      },
    };
  }

  Object.assign(ns, { installSurface, readOrigins });
})();
