// WebMCP Sidecar, MAIN world: polyfill mode (no native WebMCP). A registry of the page's tools
// behind a polyfill of `document.modelContext` that behaves as Chromium 156's own (registerTool
// with an AbortSignal, getTools, executeTool, the toolchange/toolactivated/toolcancel events, the
// ModelContext interface), and the legacy surface (legacy.js) on the same registry. start.js
// connects it to bridge.js (which reports the list to the ISOLATED world and runs its calls) and
// to declarative.js. What still differs from Chromium: docs/WEBMCP_WPT.md, "Polyfill vs Chromium".
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, D, rApply, oDefineProperty, oGetOwnPropertyDescriptor, jsonParse, jsonStringify, StringC, PromiseC, MapC, SetC,
    TypeErrorC, DOMExceptionC, EventC, EventTargetC, AbortControllerC, AbortSignalC, queueMicro, dispatch, listen, unlisten, isObj,
    opError, domError, abortReason, plainJson, jsonCopy, requestUserInteraction, readToolDict, checkNewName,
    installLegacy, task, ToolActivatedEvent, ToolCancelEvent, expose, readRegisteredTool, readExecuteOptions,
    inputJson, parseFailed, readOrigins, nativeText, annotationsOut, unknownTool, toolFailed, NoResponse, publishHook, tree, hookFor, notifyOthers, installRemote, ArrayProto,
  } = ns;
  const arraySort = ArrayProto.sort;
  const promiseResolve = PromiseC.resolve;
  const promiseThen = PromiseC.prototype.then;
  const ORIGIN = location.origin;

  /**
   * Installs document.modelContext and the legacy surface on one registry.
   * @param {() => void} onChange called once per task in which the tool list changed
   */
  function installPolyfill(onChange) {
    /**
     * @typedef {{
     *   name: string, title: string, description: string, inputSchema?: any, annotations?: any,
     *   source: 'polyfill'|'legacy'|'declarative', execute: Function, tool: any,
     *   provided?: boolean, form?: HTMLFormElement, key?: string, exposedTo?: string[]
     * }} Entry
     * @typedef {(kind: 'ok'|'error'|'abort', v: unknown) => void} Settle
     */
    /** @type {Map<string, Entry>} */
    const tools = new MapC();
    /** @type {Record<string, Function|null>} */
    const handlers = { toolchange: null, toolactivated: null, toolcancel: null };
    let announceQueued = false;
    /** @type {any} */
    let mc;

    /** Events go to document.modelContext only, as in Chromium 156. @param {string} type @param {string} [toolName] */
    const fire = (type, toolName) => {
      try {
        const ev =
          type === 'toolactivated'
            ? new ToolActivatedEvent(type, { toolName })
            : type === 'toolcancel'
              ? new ToolCancelEvent(type, { toolName })
              : new EventC(type);
        rApply(dispatch, mc, [ev]);
      } catch {
        /* a throwing listener is the page's business */
      }
    };

    // The ISOLATED world hears of several changes in one task once; the page gets one
    // `toolchange` per change, each in a task of its own, as Chromium fires them.
    /** @param {() => void} [after] run in the toolchange's task, after the event */
    const changed = (after) => {
      if (!announceQueued) {
        announceQueued = true;
        queueMicro(() => {
          announceQueued = false;
          onChange();
        });
      }
      task(() => {
        fire('toolchange');
        if (after) after();
      });
      notifyOthers(); // every same-origin frame of the page sees the change
      remote.changed(); // and each cross-origin relative what is exposed to it
    };

    /** @param {Entry} e @param {() => void} [after] */
    const add = (e, after) => {
      tools.set(e.name, e);
      changed(after);
    };
    /** @param {Entry} e */
    const remove = (e) => {
      if (tools.get(e.name) !== e) return;
      tools.delete(e.name);
      changed();
    };

    /**
     * Runs a tool as Chromium does: in a later task, `execute(input, {signal})` with no `this`,
     * then, once the microtasks have run, toolactivated; its outcome settles in a task after it.
     * The caller's abort settles the call at once with the abort's reason; the tool runs all the
     * same (Chromium's request is on its way already) and, in a task after toolactivated, its
     * own signal aborts (an AbortError) and, after the microtasks, toolcancel fires; unless its
     * result is in by then (a tool that aborts the caller's signal and returns a value is not
     * cancelled). Old drafts' tools (legacy) keep their `this` and get `requestUserInteraction`
     * on the options.
     * @param {Entry} e @param {any} input @param {AbortSignal|undefined} signal @param {Settle} settle
     */
    const start = (e, input, signal, settle) => {
      const ac = new AbortControllerC();
      const legacy = e.source === 'legacy';
      const options = legacy ? { requestUserInteraction, signal: ac.signal } : { signal: ac.signal };
      let done = false; // the caller has its answer
      let activated = false; // toolactivated has fired
      let over = false; // the tool's own outcome is in (it threw, or its promise settled)
      let cancelled = false; // the caller aborted
      let cancelling = false;
      const cancel = () =>
        task(
          () => {
            if (over) return;
            over = true;
            cancelling = true;
            ac.abort();
          },
          () => {
            if (cancelling) fire('toolcancel', e.name);
          },
        );
      const onAbort = () => {
        if (done) return;
        done = true;
        cancelled = true;
        settle('abort', abortReason(/** @type {AbortSignal} */ (signal)));
        if (activated) cancel();
      };
      /** @param {'ok'|'error'} kind @param {unknown} v */
      const finish = (kind, v) => {
        over = true;
        task(() => {
          if (done) return;
          done = true;
          if (signal) rApply(unlisten, signal, ['abort', onAbort]);
          settle(kind, v);
        });
      };
      if (signal) rApply(listen, signal, ['abort', onAbort, { once: true }]);
      /** @type {{err: unknown}|null} */
      let threw = null;
      task(
        () => {
          let r;
          try {
            r = rApply(e.execute, legacy ? e.tool : undefined, [input, options]);
          } catch (err) {
            threw = { err };
            return;
          }
          try {
            rApply(promiseThen, rApply(promiseResolve, PromiseC, [r]), [
              (/** @type {unknown} */ v) => finish('ok', v),
              (/** @type {unknown} */ err) => finish('error', err),
            ]);
          } catch (err) {
            threw = { err };
          }
        },
        () => {
          activated = true;
          fire('toolactivated', e.name);
          if (threw) finish('error', threw.err);
          else if (cancelled) cancel();
        },
      );
    };

    /**
     * For the bridge: the tool's raw value, or its raw error (the extension reports the real
     * message), or the abort's reason.
     * @param {Entry} e @param {any} input @param {AbortSignal|undefined} signal
     */
    const run = (e, input, signal) =>
      new PromiseC((resolve, reject) => {
        if (signal && signal.aborted) return reject(abortReason(signal));
        start(e, input, signal, (kind, v) => (kind === 'ok' ? resolve(v) : reject(v)));
      });

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

    /** @type {Set<(kind: string, v: unknown) => void>} calls running here, to fail if the frame goes */
    const running = new SetC();

    /**
     * Runs this frame's tool `name` for executeTool (this frame's or a relative's) and settles
     * as Chromium's executeTool does. False when there is no such tool.
     * @param {string} name @param {unknown} input @param {AbortSignal|undefined} signal
     * @param {(kind: string, v: unknown) => void} settle
     */
    const runHere = (name, input, signal, settle) => {
      const e = tools.get(name);
      if (!e) return false;
      const copy = jsonCopy(input, 'The input');
      /** @param {string} kind @param {unknown} v */
      const once = (kind, v) => {
        if (!running.has(once)) return;
        running.delete(once);
        settle(kind, v);
      };
      running.add(once);
      start(e, copy, signal, (kind, v) => {
        if (kind === 'abort') return once('reject', v);
        // A form's own UnknownError (no submit button) reaches the page as Chromium words it.
        if (kind === 'error') {
          const own = e.source === 'declarative' && v instanceof DOMExceptionC && /** @type {any} */ (v).name === 'UnknownError';
          return once('reject', own ? v : toolFailed());
        }
        let text;
        try {
          text = nativeText(v);
        } catch {
          return once('reject', toolFailed());
        }
        once('ok', text);
      });
      return true;
    };

    publishHook({ list: ownList, run: runHere, notify: () => task(() => fire('toolchange')), origin: ORIGIN });
    const remote = installRemote({ tools, runHere, fire }); // cross-origin relatives (frame-remote.js)
    // This document's `tools` permission (frame-remote.js): unknown until a parent of another
    // origin answers; the API's calls made before then wait for it, in order.
    /** @type {boolean|undefined} */
    let allowed;
    remote.policy((/** @type {boolean} */ ok) => {
      allowed = ok;
    });
    const denied = () => domError('Access to the feature "tools" is disallowed by permissions policy.', 'NotAllowedError');
    /** @param {() => Promise<any>} f */
    const later = (f) => new PromiseC((resolve) => remote.policy(() => resolve(f())));
    // A frame that goes away (removed, navigated) fails what runs in it, and the others' lists change.
    rApply(listen, W, [
      'pagehide',
      () => {
        for (const settle of [...running]) settle('gone', undefined);
        notifyOthers();
      },
    ]);

    const KEY = {};
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
          /** @type {Entry} */
          const e = { ...t, source: 'polyfill' };
          if (origins && origins.length) e.exposedTo = origins;
          // Registered now (a second registration of the name fails at once); settled with its toolchange.
          add(e, () => resolve(undefined));
          if (signal) rApply(listen, signal, ['abort', () => remove(e), { once: true }]);
        });
      }

      /**
       * The tools of every same-origin frame of the page (frame-tree.js), sorted by name as
       * Chromium sorts them, each a dictionary (keys in Chromium's order) with its frame's origin
       * and window. @param {{fromOrigins?: unknown}} [options] @returns {Promise<any[]>}
       */
      getTools(options = undefined) {
        if (allowed === undefined) return later(() => rApply(methods.getTools, mc, [options]));
        // The list as it is now, delivered in a later task.
        return new PromiseC((resolve) => {
          // Checked as Chromium does; the same origin's tools are listed whatever it names, and
          // the tools of cross-origin relatives of the origins it names exposed to this one.
          const from = isObj(options) ? /** @type {any} */ (options).fromOrigins : undefined;
          const origins = readOrigins(from, 'getTools', 'ModelContextGetToolOptions', 'fromOrigins');
          if (!allowed) throw denied();
          /** @type {any[]} */
          const out = [];
          let frames = tree();
          if (!frames.length) frames = [{ win: W, hook: { list: ownList, origin: ORIGIN } }];
          frames = [...frames, ...remote.frames(origins)];
          for (const f of frames) {
            let list;
            try {
              list = rApply(f.hook.list, undefined, []);
            } catch {
              continue; // a frame going away
            }
            for (let i = 0; i < list.length; i++) {
              const e = list[i];
              /** @type {Record<string, any>} */
              const r = {};
              if (e.annotations !== undefined) r.annotations = annotationsOut(e.annotations);
              r.description = StringC(e.description);
              if (e.inputSchema !== undefined) r.inputSchema = jsonParse(e.inputSchema);
              r.name = StringC(e.name);
              r.origin = StringC(f.hook.origin);
              r.title = StringC(e.title);
              r.window = f.win;
              out[out.length] = r;
            }
          }
          // By name in UTF-16 order; a stable sort keeps the frames' order for equal names.
          /** @param {any} a @param {any} b */
          const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
          rApply(arraySort, out, [byName]);
          task(() => resolve(out));
        });
      }

      /**
       * @param {any} tool a tool from getTools()
       * @param {any} [input]
       * @param {{signal?: AbortSignal}} [options]
       * @returns {Promise<string>}
       */
      executeTool(tool, input = undefined, options = undefined) {
        if (allowed === undefined) return later(() => rApply(methods.executeTool, mc, [tool, input, options]));
        return new PromiseC((resolve, reject) => {
          const ref = readRegisteredTool(tool);
          const signal = readExecuteOptions(options);
          const text = inputJson(input);
          if (!allowed) throw denied();
          // An aborted signal rejects at once: the returned promise is already rejected.
          if (signal && signal.aborted) throw abortReason(signal);
          const args = jsonParse(text);
          if (!isObj(args)) {
            task(() => reject(parseFailed()));
            return;
          }
          /** @type {(kind: string, v: unknown) => void} */
          const settle = (kind, v) => {
            if (kind === 'ok') resolve(v);
            else if (kind === 'gone') reject(unknownTool());
            else reject(v);
          };
          // Another frame's tool runs in that frame (same origin: frame-tree.js; else frame-remote.js).
          const hook = ref.window === W ? undefined : hookFor(ref.window);
          const ran = hook
            ? ref.origin === hook.origin && rApply(hook.run, undefined, [ref.name, args, signal, settle])
            : ref.window === W ? ref.origin === ORIGIN && runHere(ref.name, args, signal, settle) : remote.run(ref, args, signal, settle);
          if (!ran) task(() => reject(unknownTool()));
        });
      }
    }
    // The methods as defined, for a call that waited for the permission (`later`).
    const methods = {
      registerTool: ModelContext.prototype.registerTool,
      getTools: ModelContext.prototype.getTools,
      executeTool: ModelContext.prototype.executeTool,
    };
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
          return this === D ? mc : undefined;
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
      taken: (name) => tools.has(name),
      add(t, provided) {
        /** @type {Entry} */
        const e = { ...t, source: 'legacy', provided };
        add(e);
        return () => remove(e);
      },
    });

    return { tools, add, remove, changed, run };
  }

  Object.assign(ns, { installPolyfill });
})();
