// WebMCP Sidecar, MAIN world: native mode (Chromium with WebMCP). document.modelContext stays
// Chromium's own: the page must see exactly what it would without us. The one thing we add is a
// registerTool wrapper that watches a tool's execute fail and reports the real message to the
// ISOLATED world (Chromium rejects executeTool with an opaque UnknownError, which is what the
// page still gets; the relay, which calls executeTool itself, would otherwise only see that).
// Plus the legacy surface (legacy.js).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, R, rApply, oCreate, oDefineProperty, oGetOwnPropertyDescriptor, oGetPrototypeOf, PromiseC, CustomEventC,
    AbortControllerC, dispatch, PAGE_EVENT, isObj, errorMessage, plainJson, requestUserInteraction, installLegacy,
  } = ns;
  // Captured at load, before any page script: a page replacing them later changes nothing here.
  const ProxyC = Proxy;
  const rGet = R.get;
  const promiseThen = PromiseC.prototype.then;

  /** Tells the relay why a tool failed. @param {unknown} name @param {unknown} e */
  const report = (name, e) => {
    try {
      const msg = { type: 'native-error', name: typeof name === 'string' ? name : '', message: errorMessage(e) };
      rApply(dispatch, W, [new CustomEventC(PAGE_EVENT, { detail: plainJson(msg) })]);
    } catch {
      /* nothing to report to */
    }
  };

  /**
   * The page's execute, called exactly as Chromium calls it (same `this`, same arguments, same
   * return value, the same throw), watched for failure.
   * @param {Function} exec @param {() => unknown} nameOf
   */
  const watch = (exec, nameOf) =>
    /** @this {unknown} */
    function execute() {
      const args = [];
      for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
      let r;
      try {
        r = rApply(exec, this, args);
      } catch (e) {
        report(nameOf(), e);
        throw e;
      }
      // Only a real promise is watched: calling a page thenable's `then` would be seen.
      if (r instanceof PromiseC) {
        try {
          rApply(promiseThen, r, [undefined, (/** @type {unknown} */ e) => report(nameOf(), e)]);
        } catch {
          /* leave it to Chromium */
        }
      }
      return r;
    };

  /**
   * A view of the page's tool dict that Chromium reads as it would the dict itself: every
   * property read goes to the page's object (getters run on it, in Chromium's order, once),
   * and only `execute` comes back watched. The handler has no prototype, so traps a page adds
   * to Object.prototype are not traps.
   * @param {object} tool
   */
  const watchedDict = (tool) => {
    /** @type {unknown} */
    let name;
    const handler = oCreate(null);
    handler.get = (/** @type {any} */ target, /** @type {PropertyKey} */ key) => {
      const v = rApply(rGet, R, [target, key, target]);
      if (key === 'name') name = v;
      if (key === 'execute' && typeof v === 'function') return watch(v, () => name);
      return v;
    };
    return new ProxyC(tool, handler);
  };

  /** @param {any} mc */
  function installNative(mc) {
    const proto = oGetPrototypeOf(mc);
    const desc = oGetOwnPropertyDescriptor(proto, 'registerTool');
    const original = desc && desc.value;
    if (typeof original !== 'function') return;

    const wrapped = {
      /** Same name, length and return value as the native method. @param {any} tool */
      registerTool(tool) {
        const args = [];
        for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
        if (isObj(tool)) args[0] = watchedDict(tool);
        return rApply(original, this, args);
      },
    }.registerTool;
    oDefineProperty(proto, 'registerTool', { ...desc, value: wrapped });

    // The legacy surface, forwarded to the native API. An AbortController per tool lets
    // unregisterTool / provideContext / clearContext take it back. Old drafts' tools get the
    // `client.requestUserInteraction` they expect (the current API's options have only `signal`).
    installLegacy({
      // A clash with a tool registered through document.modelContext only shows up in `add`.
      taken: () => false,
      add(t, _provided, forget) {
        const ac = new AbortControllerC();
        const dict = {
          name: t.name,
          title: t.title || undefined,
          description: t.description,
          inputSchema: t.inputSchema,
          annotations: t.annotations,
          /** @param {unknown} input @param {any} client */
          execute: watch(function execute(input, client) {
            if (isObj(client) && typeof client.requestUserInteraction !== 'function') {
              try {
                client.requestUserInteraction = requestUserInteraction;
              } catch {
                /* frozen client: leave it */
              }
            }
            return rApply(t.execute, t.tool, [input, client]);
          }, () => t.name),
        };
        let p;
        try {
          p = rApply(original, mc, [dict, { signal: ac.signal }]);
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
