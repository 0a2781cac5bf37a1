// WebMCP Sidecar, MAIN world: native mode (Chromium with WebMCP). document.modelContext is left
// alone except for a thin registerTool wrapper that keeps thrown errors' messages (Chromium
// replaces them with an opaque UnknownError) and repairs results Chromium cannot serialize;
// the ISOLATED content script sees native tools directly. Plus the legacy surface (legacy.js).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js did not run: another copy owns the page
  const {
    rApply, oCreate, oDefineProperty, oGetOwnPropertyDescriptor, oGetPrototypeOf, jsonStringify, jsonParse,
    AbortControllerC, isObj, errorMessage, safeStringify, requestUserInteraction, installLegacy,
  } = ns;

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

    // The legacy surface, forwarded to the native API. An AbortController per tool lets
    // unregisterTool / provideContext / clearContext take it back.
    installLegacy({
      // A clash with a tool registered through document.modelContext only shows up in `add`.
      taken: () => false,
      add(t, _provided, forget) {
        const ac = new AbortControllerC();
        let p;
        try {
          p = rApply(wrapped, mc, [t.tool, { signal: ac.signal }]);
        } catch {
          p = undefined;
        }
        // The clash shows up here, asynchronously: forget the name so that it can be registered again.
        (async () => {
          try {
            await p;
          } catch {
            forget();
          }
        })();
        return () => ac.abort();
      },
    });
  }

  Object.assign(ns, { installNative });
})();
