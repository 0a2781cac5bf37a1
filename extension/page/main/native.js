// WebMCP Sidecar, MAIN world stub, native mode: document.modelContext stays Chromium's. Added: a
// registerTool wrapper that tells the relay a failing tool's real message (Chromium gives callers
// an opaque UnknownError), the word that this frame needs the relay, and legacy.js.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    W, D, R, rApply, oCreate, oDefineProperty, oGetOwnPropertyDescriptor, oGetPrototypeOf, PromiseC, listen,
    docQuerySelectorAll, GRANTED_IFRAME, isObj, errorMessage, plainJson, requestUserInteraction, installLegacy, dom, tell,
  } = ns;
  const ProxyC = Proxy;
  const rGet = R.get;
  const promiseThen = PromiseC.prototype.then;

  /** Tells the relay why a tool failed. @param {unknown} name @param {unknown} e */
  const report = (name, e) => {
    const msg = { type: 'native-error', name: typeof name === 'string' ? name : '', message: errorMessage(e) };
    tell(plainJson(msg));
  };

  /**
   * Says that this frame needs the relay (page/isolated/stub.js looks at nothing itself): at a
   * toolchange, an iframe given `tools`, or (top frame) tools in a same-origin iframe, which
   * Chromium lists as the top's without a toolchange here.
   * @param {any} mc
   */
  const watchNeed = (mc) => {
    let said = false;
    const say = () => {
      if (said) return;
      said = true;
      tell('{"type":"install"}');
    };
    rApply(listen, mc, ['toolchange', say]);
    const granting = () => {
      try {
        if (rApply(docQuerySelectorAll, D, [GRANTED_IFRAME]).length) say();
      } catch {
        /* no document element yet */
      }
    };
    const top = W.parent === W;
    rApply(listen, D, ['load', (/** @type {any} */ ev) => {
      if (said || ev.target?.localName !== 'iframe') return;
      granting();
      try {
        if (top) mc.getTools().then((/** @type {unknown[]} */ l) => l.length && say(), () => {});
      } catch {
        /* the page replaced getTools: it fools only itself */
      }
    }, true]);
    if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', granting, { once: true }]);
    else granting();
  };

  /** The page's execute, called as Chromium calls it, watched. @param {Function} exec @param {() => unknown} nameOf */
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
      // Only a real promise: calling a page thenable's `then` would be seen.
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
   * The page's dict as Chromium reads it (each read goes to it, once), with `execute` watched.
   * The handler has no prototype: traps a page adds to Object.prototype are not traps.
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
    watchNeed(mc);
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

    // Legacy, on the native API: an AbortController per tool takes it back; old drafts' tools
    // get the `client.requestUserInteraction` they expect.
    installLegacy({
      // A clash with a document.modelContext tool shows up later, in `add`.
      taken: () => false,
      add(t, _provided, forget) {
        const ac = new (dom().AbortControllerC)();
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
        // Refused (a clash): the name is free again.
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
