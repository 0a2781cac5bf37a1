// WebMCP Sidecar, MAIN world (injected on first use): polyfill mode (no native WebMCP). The
// stub's surface (surface.js: `document.modelContext`, its registry, registerTool, the legacy
// API) made whole, as Chromium 156's own behaves: the toolchange/toolactivated/toolcancel events,
// getTools, executeTool, runs of this frame's tools, same-origin and cross-origin relatives.
// adopt.js connects it to bridge.js (which reports the list to the ISOLATED world and runs its
// calls) and to declarative.js, then hands it to the stub, whose waiting calls run. What still differs from Chromium: docs/WEBMCP_WPT.md, "Polyfill vs Chromium".
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const {
    W, rApply, jsonParse, StringC, PromiseC, SetC, DOMExceptionC, EventC, AbortControllerC, queueMicro, dispatch, listen,
    unlisten, isObj, domError, abortReason, jsonCopy, requestUserInteraction, task, readRegisteredTool, readExecuteOptions,
    inputJson, parseFailed, readOrigins, nativeText, annotationsOut, unknownTool, toolFailed, tree, hookFor, notifyOthers,
    installRemote, arraySort, promiseResolve, promiseThen,
  } = ns;
  const ORIGIN = location.origin;

  /**
   * Makes the stub's surface whole.
   * @param {any} st the stub's surface (surface.js's installSurface)
   * @param {() => void} onChange called once per task in which the tool list changed
   */
  function adoptPolyfill(st, onChange) {
    /**
     * @typedef {{
     *   name: string, title: string, description: string, inputSchema?: any, annotations?: any,
     *   source: 'polyfill'|'legacy'|'declarative', execute: Function, tool: any,
     *   provided?: boolean, form?: HTMLFormElement, key?: string, exposedTo?: string[]
     * }} Entry
     * @typedef {(kind: 'ok'|'error'|'abort', v: unknown) => void} Settle
     */
    /** @type {Map<string, Entry>} */
    const tools = st.tools;
    const { mc, add, remove, ownList, ToolActivatedEvent, ToolCancelEvent } = st;
    let announceQueued = false;

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

    const remote = installRemote({ tools, runHere, fire }); // cross-origin relatives (frame-remote.js)
    // This document's `tools` permission (frame-remote.js): unknown until a parent of another
    // origin answers; the API's calls made before then wait for it, in order.
    remote.policy((/** @type {boolean} */ ok) => st.setAllowed(ok));
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

    /**
     * getTools and executeTool as surface.js's ModelContext forwards them (its registerTool is
     * whole already).
     */
    const api = {
      /**
       * The tools of every same-origin frame of the page (frame-tree.js), sorted by name as
       * Chromium sorts them, each a dictionary (keys in Chromium's order) with its frame's origin
       * and window. @param {{fromOrigins?: unknown}} [options] @returns {Promise<any[]>}
       */
      getTools(options = undefined) {
        if (st.allowed() === undefined) return later(() => api.getTools(options));
        // The list as it is now, delivered in a later task.
        return new PromiseC((resolve) => {
          // Checked as Chromium does; the same origin's tools are listed whatever it names, and
          // the tools of cross-origin relatives of the origins it names exposed to this one.
          const from = isObj(options) ? /** @type {any} */ (options).fromOrigins : undefined;
          const origins = readOrigins(from, 'getTools', 'ModelContextGetToolOptions', 'fromOrigins');
          if (!st.allowed()) throw denied();
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
      },

      /**
       * @param {any} tool a tool from getTools()
       * @param {any} [input]
       * @param {{signal?: AbortSignal}} [options]
       * @returns {Promise<string>}
       */
      executeTool(tool, input = undefined, options = undefined) {
        if (st.allowed() === undefined) return later(() => api.executeTool(tool, input, options));
        return new PromiseC((resolve, reject) => {
          const ref = readRegisteredTool(tool);
          const signal = readExecuteOptions(options);
          const text = inputJson(input);
          if (!st.allowed()) throw denied();
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
      },
    };

    /** What the stub hands on to (surface.js's `adopt`). */
    const full = {
      changed,
      getTools: api.getTools,
      executeTool: api.executeTool,
      policy: remote.policy,
      run: runHere,
      notify: () => task(() => fire('toolchange')),
      remote: remote.own,
    };
    return { tools, add, remove, changed, run, full };
  }

  Object.assign(ns, { adoptPolyfill });
})();
