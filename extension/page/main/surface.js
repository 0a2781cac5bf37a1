// WebMCP Sidecar, MAIN world (the stub, every frame, polyfill mode): the API surface a page sees
// from document_start (document.modelContext, the ModelContext / ToolActivatedEvent /
// ToolCancelEvent interfaces, the frame hooks its relatives read) and the registry's synchronous
// part (registerTool reads, checks and registers at once, as Chromium does; the legacy API on the
// same registry). Everything else comes on first use (lib/page-files.js MAIN_FILES, injected by
// the worker; docs/PAGE_CODE.md, "What runs in a page"): what the page does until then (a change
// of the list, getTools, executeTool, a relative's message) waits in order in `queue` and runs
// when adopt.js hands `full` over.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, D, rApply, reTest, oCreate, oFreeze, oDefineProperty, oGetOwnPropertyDescriptor, StringC, MapC, PromiseC, TypeErrorC, EventC,
    EventTargetC, AbortSignalC, CustomEventC, MutationObserverC, WeakMapC, wmGet, wmSet, URLC, dispatch, listen, unlisten,
    elMatches, elQuerySelector, docQuerySelectorAll, isObj, opError, domError, abortReason, plainJson, readToolDict,
    checkNewName, installLegacy, PAGE_EVENT, EXT_EVENT, detailOf, NS,
  } = ns;
  const INSTALL = '{"type":"install"}';
  // The ISOLATED stub's word that the full code will not come (the worker refused: too many
  // frames of the tab asked, or the extension went away): what waits is settled with an error.
  const REFUSED = '{"type":"install_refused"}';
  const refusedError = () =>
    domError('WebMCP Sidecar could not load its page code into this frame (too many frames of this tab use WebMCP, or the extension was updated or removed).', 'UnknownError');
  const ORIGIN = location.origin;

  // ---- the events' interfaces ----------------------------------------------------------------
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

  /** Puts an interface on window as WebIDL does (writable, configurable, not enumerable). @param {string} name @param {any} value */
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

  function installSurface() {
    // The `tools` permission, where this browser knows the feature (Chromium without WebMCP does
    // not: then only the parent's `allow` attribute says, read by frame-remote.js and frame-policy.js).
    const toolsDenied = (() => {
      try {
        const fp = /** @type {any} */ (D).featurePolicy;
        return !!fp && fp.features().includes('tools') && !fp.allowsFeature('tools');
      } catch {
        return false;
      }
    })();
    ns.toolsDenied = toolsDenied;
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
    // What waits for the full code, in order: a null-prototype record indexed by counters, so a
    // page's Array.prototype patches never see it.
    /** @type {Record<number, () => void>} */
    const queue = oCreate(null);
    /** What settles a waiting promise if the full code never comes, by the same index. @type {Record<number, () => void>} */
    const fails = oCreate(null);
    let qTail = 0;
    let refused = false;

    /** Asks for the full code (the ISOLATED stub, page/isolated/stub.js, asks the worker). */
    const use = () => {
      if (asked) return;
      asked = true;
      if (forms) forms.disconnect();
      ns.late(); // base.js: what the injected files need besides
      // The files the worker injects find the namespace here; adopt.js removes it.
      try {
        oDefineProperty(W, NS, { value: ns, configurable: true });
      } catch {
        /* planted by the page: the full code never comes for this document */
      }
      try {
        rApply(dispatch, W, [new CustomEventC(PAGE_EVENT, { detail: INSTALL })]);
      } catch {
        /* nothing to ask */
      }
    };
    /** @param {() => void} f @param {() => void} [fail] settles what f would have, if the code never comes */
    const defer = (f, fail) => {
      if (refused) return fail?.();
      use();
      if (fail) fails[qTail] = fail;
      queue[qTail++] = f;
    };
    /** The full code will not come: what waits is settled with an error, the rest dropped. */
    /** Empties the queue in order, running each entry's `from` side (its work, or its fail). @param {Record<number, () => void>} from */
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

    // This document's `tools` permission: known at once at the top (and in an opaque origin);
    // else frame-remote.js finds it out, and the API's calls made before then wait for it.
    const SELF = StringC(W.origin);
    /** @type {boolean|undefined} */
    let allowed = SELF === 'null' ? true : toolsDenied ? false : W.parent === W ? true : undefined;
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
        if (allowed === undefined) return later(() => rApply(methods.registerTool, mc, [tool, options]));
        return new PromiseC((resolve) => {
          const t = readToolDict(tool, 'registerTool');
          // Options members in Chromium's (sorted) order. `exposedTo` reaches the extension (a
          // cross-origin frame's tool counts for the top site only when it names the top
          // origin); the page's own getTools() in other origins does not see it (docs/WEBMCP_WPT.md, "Polyfill vs Chromium").
          const exposedTo = isObj(options) ? /** @type {any} */ (options).exposedTo : undefined;
          const origins = readOrigins(exposedTo, 'registerTool', 'ModelContextRegisterToolOptions', 'exposedTo');
          if (!allowed) throw denied();
          const signal = isObj(options) ? /** @type {any} */ (options).signal : undefined;
          if (signal !== undefined && !(signal instanceof AbortSignalC)) {
            throw opError('registerTool', "Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.");
          }
          if (signal && signal.aborted) throw abortReason(signal);
          checkNewName(t.name);
          if (tools.has(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
          const e = { ...t, source: 'polyfill' };
          if (origins && origins.length) /** @type {any} */ (e).exposedTo = origins;
          // Registered now (a second registration of the name fails at once); settled with its toolchange.
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
    mc = new ModelContext(KEY);
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
          if (this !== D) return undefined;
          touched = true;
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

    // ---- the hooks this frame's relatives read (frame-tree.js, frame-remote.js) -------------
    // Same origin: this frame's list; a call of one of its tools, a change elsewhere (a
    // toolchange here, which only a document that read its modelContext can hear).
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
    hook.origin = ORIGIN;
    // Other origins' relatives, through this frame (frame-remote.js's `own`).
    const remote = oCreate(null);
    remote.frames = (/** @type {any} */ origins) => (full ? full.remote.frames(origins) : []);
    remote.run = (/** @type {any[]} */ ...args) => (full ? rApply(full.remote.run, undefined, args) : false);
    // Refused, this frame cannot vouch for the `tools` permission: the asking child is denied.
    remote.policy = (/** @type {(ok: boolean) => void} */ f) => (full ? full.remote.policy(f) : defer(() => full.remote.policy(f), () => f(false)));
    for (const [key, value] of [['webmcp-sidecar.frame-registry', hook], ['webmcp-sidecar.frame-remote', remote]]) {
      try {
        oDefineProperty(W, Symbol.for(/** @type {string} */ (key)), { value: oFreeze(value) });
      } catch {
        /* planted by the page in a shared window (see base.js): this frame stays on its own */
      }
    }

    // A descendant of another origin speaking the frame protocol (frame-remote.js) before the
    // full code is here: kept for it (a few), and the full code asked for. An ancestor speaks to
    // a document only after the document spoke to it (an answer to an id that this one never had
    // while it had no code: dropped, as the full code would).
    const FRAMES_KEY = 'webmcp-sidecar:frames';
    /** @type {Record<number, Event>} */
    const held = oCreate(null);
    let heldN = 0;
    /** @type {any} MessageEvent's getters, taken at the first message (see base.js's `late`) */
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
    // The ISOLATED stub installs for reasons of its own too (an iframe given `tools`): it says so
    // first, and the namespace goes where the injected files look for it.
    rApply(listen, W, [EXT_EVENT, (/** @type {Event} */ ev) => {
      const d = rApply(detailOf, ev, []);
      if (!asked && d === INSTALL) use();
      else if (d === REFUSED) refuse();
    }]);

    // A declarative tool, `<form toolname>` (declarative.js reads them once it is here): looked
    // for at DOMContentLoaded, then in what is added or renamed (the observer goes once it asked).
    const FORM = 'form[toolname]';
    const watchForms = () => {
      if (asked) return;
      if (rApply(docQuerySelectorAll, D, [FORM]).length) return use();
      forms = new MutationObserverC((/** @type {MutationRecord[]} */ records) => {
        for (const r of records) {
          const t = /** @type {any} */ (r.target);
          if (r.type === 'attributes') {
            if (t.nodeType === 1 && rApply(elMatches, t, [FORM])) return use();
            continue;
          }
          for (const n of /** @type {any} */ (r.addedNodes)) {
            if (n.nodeType === 1 && (rApply(elMatches, n, [FORM]) || rApply(elQuerySelector, n, [FORM]))) return use();
          }
        }
      });
      forms.observe(D, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname'] });
    };
    if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', watchForms, { once: true }]);
    else watchForms();

    // For adopt.js (the files it brings read these; polyfill.js hands `full` over).
    return {
      tools, handlers, mc, add, remove, ownList, ToolActivatedEvent, ToolCancelEvent,
      adopted: false,
      /** @returns {boolean|undefined} */
      allowed: () => allowed,
      /** @param {boolean} ok */
      setAllowed: (ok) => {
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
        drain(queue);
      },
    };
  }

  Object.assign(ns, { installSurface, readOrigins });
})();
