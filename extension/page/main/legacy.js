// WebMCP Sidecar, MAIN world stub: old drafts' `navigator.modelContext`, for both modes, on a
// backend that registers in the mode's registry (native.js: through registerTool; surface.js).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, rApply, oFreeze, oDefineProperty, oGetOwnPropertyDescriptor, StringC, MapC, SetC, isObj, typeError, domError,
    readToolDict, checkNewName,
  } = ns;

  /**
   * @typedef {{
   *   taken(name: string): boolean,
   *   add(t: any, provided: boolean, forget: () => void): () => void,
   * }} LegacyBackend `taken`: another API's tool has the name; `add` returns how to take the
   *   tool back and calls `forget` if the registration fails later.
   */

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
   * At the page's first read of `window.navigator`: until then the legacy API cannot be reached,
   * and a page that never reads it (many do not) keeps Blink from making `Navigator`'s objects in
   * this world (~16 KB of heap per frame, bench/pageload.py "Heap per frame"). The page's first
   * read puts `window.navigator` back as the browser had it, then installs.
   * @param {LegacyBackend} backend
   */
  function installLegacy(backend) {
    const d = oGetOwnPropertyDescriptor(W, 'navigator');
    if (!d?.get || !d.configurable) return install(backend);
    let done = false;
    const get = oGetOwnPropertyDescriptor(
      {
        get navigator() {
          if (!done) {
            done = true;
            try {
              oDefineProperty(W, 'navigator', d);
            } catch {
              /* the page made it its own meanwhile */
            }
            install(backend);
          }
          return rApply(/** @type {() => unknown} */ (d.get), this, []);
        },
      },
      'navigator',
    )?.get;
    oDefineProperty(W, 'navigator', { get, set: d.set, enumerable: d.enumerable, configurable: true });
  }

  /** Unless the browser has its own. @param {LegacyBackend} backend */
  function install(backend) {
    if ('modelContext' in navigator) return;
    /** @type {Map<string, {provided: boolean, take: () => void}>} the tools this API registered */
    const legacy = new MapC();
    /** @param {string} name */
    const drop = (name) => {
      const e = legacy.get(name);
      if (!e) return;
      legacy.delete(name);
      e.take();
    };
    /** @param {any} t a read tool dict @param {boolean} provided */
    const add = (t, provided) => {
      const entry = { provided, take: () => {} };
      legacy.set(t.name, entry);
      entry.take = backend.add(t, provided, () => {
        if (legacy.get(t.name) === entry) legacy.delete(t.name);
      });
      return entry;
    };
    const impl = {
      /** @param {any} tool */
      registerTool(tool) {
        const t = readToolDict(tool, 'registerTool');
        checkNewName(t.name);
        if (legacy.has(t.name) || backend.taken(t.name)) throw domError('Duplicate tool name', 'InvalidStateError');
        const entry = add(t, false);
        const name = t.name;
        return oFreeze({
          unregister: () => {
            if (legacy.get(name) === entry) drop(name);
          },
        });
      },
      /** @param {any} name */
      unregisterTool(name) {
        drop(StringC(name));
      },
      /** @param {any} context */
      provideContext(context) {
        const list = readToolList(context);
        const seen = new SetC();
        for (const t of list) {
          checkNewName(t.name);
          const held = legacy.get(t.name);
          // Provided again is fine; any other tool of the name clashes.
          if (seen.has(t.name) || (held ? !held.provided : backend.taken(t.name))) {
            throw domError('Duplicate tool name', 'InvalidStateError');
          }
          seen.add(t.name);
        }
        for (const [name, e] of [...legacy]) if (e.provided) drop(name);
        for (const t of list) add(t, true);
      },
      clearContext() {
        for (const name of [...legacy.keys()]) drop(name);
      },
    };
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

  Object.assign(ns, { installLegacy });
})();
