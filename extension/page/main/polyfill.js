// WebMCP Sidecar, MAIN world: polyfill mode (no native WebMCP). A registry of the page's tools
// behind a polyfill of the current spec on `document.modelContext` (registerTool with an
// AbortSignal, getTools, executeTool, the toolchange/toolactivated/toolcancel events), and the
// legacy surface (legacy.js) on the same registry. start.js connects it to bridge.js (which
// reports the list to the ISOLATED world and runs its calls) and to declarative.js.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js did not run: another copy owns the page
  const {
    W, D, rApply, oDefineProperty, oGetOwnPropertyDescriptor, isArray, jsonParse, StringC, PromiseC, MapC,
    EventC, EventTargetC, AbortControllerC, AbortSignalC, queueMicro, dispatch, listen, unlisten, isObj,
    opError, domError, abortReason, plainJson, resultText, jsonCopy, requestUserInteraction, readToolDict,
    checkNewName, installLegacy,
  } = ns;

  /**
   * Installs document.modelContext and the legacy surface on one registry.
   * @param {() => void} onChange called once per task in which the tool list changed
   */
  function installPolyfill(onChange) {
    /**
     * @typedef {{
     *   name: string, title: string, description: string, inputSchema?: any, annotations?: any,
     *   source: 'polyfill'|'legacy'|'declarative', execute: Function, tool: any,
     *   provided?: boolean, form?: HTMLFormElement, key?: string
     * }} Entry
     */
    /** @type {Map<string, Entry>} */
    const tools = new MapC();
    /** @type {Record<string, Function|null>} */
    const handlers = { toolchange: null, toolactivated: null, toolcancel: null };
    let changeQueued = false;
    /** @type {any} */
    let mc;

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

    // Several changes in one task make one `toolchange` and one `tools` message.
    const changed = () => {
      if (changeQueued) return;
      changeQueued = true;
      queueMicro(() => {
        changeQueued = false;
        onChange();
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
