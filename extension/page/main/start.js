// WebMCP Sidecar, MAIN world, last file: removes the files' namespace from the page's view (see
// base.js), then installs native mode, or the polyfill's surface as stubs that install the
// polyfill the first time the page uses it (docs/ARCHITECTURE.md, "What runs in a page").
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  // First, whatever comes next: the page must never reach the namespace.
  delete (/** @type {any} */ (window))[NS];
  const {
    W, D, rApply, oDefineProperty, oGetOwnPropertyDescriptor, MutationObserverC, listen, elMatches,
    elQuerySelector, elHasAttribute, docQuerySelectorAll,
    installNative, installPolyfill, installBridge, installDeclarative,
  } = ns;

  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) {
    installNative(nativeMC);
    return;
  }

  // Polyfill. Almost no page uses WebMCP: until one does, the page gets only stubs of the
  // surface (each installs the real thing and hands over to it), a listener for relatives'
  // frame messages and, from DOMContentLoaded, a look for declarative forms. The registry, its
  // bridge to the ISOLATED world and the cross-frame protocol come with the install; a frame
  // that never installs never speaks to the ISOLATED world (which then never wakes the worker).
  /** @type {((ev: Event) => void)|null} frame-remote.js's handler, once installed */
  let remoteMessage = null;
  let installed = false;
  /** @type {MutationObserver|null} */
  let formWatch = null;

  // Captured before any page script (see base.js).
  const dataGet = /** @type {(this: MessageEvent) => any} */ (
    /** @type {PropertyDescriptor} */ (oGetOwnPropertyDescriptor(MessageEvent.prototype, 'data')).get
  );
  /** @type {[any, string, Function][]} the stubs: a prototype (or window), a name, its getter */
  const STUBS = [];

  const install = () => {
    if (installed) return;
    installed = true;
    formWatch?.disconnect();
    // The polyfill (and legacy.js, which stays out where `'modelContext' in navigator`) defines
    // these for good.
    for (const [obj, name, get] of STUBS) {
      try {
        if (oGetOwnPropertyDescriptor(obj, name)?.get === get) delete obj[name];
      } catch {
        /* gone already */
      }
    }
    let announce = () => {};
    const registry = installPolyfill(() => announce());
    const bridge = installBridge(registry);
    announce = bridge.announce;
    installDeclarative(registry.tools, registry.add, registry.remove, registry.changed);
    remoteMessage = registry.remoteMessage;
    bridge.post({ type: 'ready' });
  };

  for (const [obj, name] of /** @type {[any, string][]} */ ([
    [Document.prototype, 'modelContext'],
    [Navigator.prototype, 'modelContext'], // legacy.js: unless the browser has its own
    [W, 'ModelContext'],
    [W, 'ToolActivatedEvent'],
    [W, 'ToolCancelEvent'],
  ])) {
    if (name in obj) continue;
    // The first read installs and reads what the polyfill defined in the stub's place.
    const get = oGetOwnPropertyDescriptor(
      {
        get [name]() {
          install();
          const d = oGetOwnPropertyDescriptor(obj, name);
          if (!d || d.get === get) return undefined;
          return d.get ? rApply(d.get, this, []) : d.value;
        },
      },
      name,
    )?.get;
    // Interface objects are data properties once installed; a page that writes one first
    // (a feature check's polyfill of its own) keeps what it wrote.
    const set = obj === W
      ? /** @param {unknown} v */ (v) => {
        install();
        W[name] = v;
      }
      : undefined;
    try {
      oDefineProperty(obj, name, { get, set, enumerable: obj !== W, configurable: true });
      STUBS[STUBS.length] = [obj, name, /** @type {Function} */ (get)];
    } catch {
      /* a page-planted non-configurable property (base.js): leave it */
    }
  }

  // A relative frame of another origin speaking the polyfill's frame protocol (frame-remote.js):
  // it has tools, and this document may have to list, run or vouch for them.
  rApply(listen, W, [
    'message',
    /** @param {MessageEvent} ev */ (ev) => {
      if (installed) return;
      let data;
      try {
        data = rApply(dataGet, ev, []);
      } catch {
        return;
      }
      if (!data || typeof data !== 'object' || typeof data['webmcp-sidecar:frames'] !== 'string') return;
      install();
      remoteMessage?.(ev); // its own listener came too late for this one
    },
  ]);

  // Declarative tools: a `form[toolname]` at DOMContentLoaded, or one added or named later.
  /** @param {any} n */
  const hasForm = (n) =>
    n.nodeType === 1 && (rApply(elMatches, n, ['form[toolname]']) || rApply(elQuerySelector, n, ['form[toolname]']));
  /** @param {NodeList} nodes */
  const someAdded = (nodes) => {
    for (let i = 0; i < nodes.length; i++) if (hasForm(nodes[i])) return true;
    return false;
  };
  const lookForForms = () => {
    if (installed) return;
    if (rApply(docQuerySelectorAll, D, ['form[toolname]']).length) {
      install();
      return;
    }
    const watch = new MutationObserverC((/** @type {MutationRecord[]} */ records) => {
      for (const r of records) {
        const hit = r.type === 'attributes'
          ? rApply(elHasAttribute, r.target, ['toolname']) && rApply(elMatches, r.target, ['form'])
          : someAdded(r.addedNodes);
        if (hit) {
          install();
          return;
        }
      }
    });
    watch.observe(D, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname'] });
    formWatch = watch;
  };
  if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', lookForForms, { once: true }]);
  else lookForForms();
})();
