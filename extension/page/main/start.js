// WebMCP Sidecar, MAIN world, last file: removes the files' namespace from the page's view (see
// base.js), then installs native mode or the polyfill.
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  // First, whatever comes next: the page must never reach the namespace.
  delete (/** @type {any} */ (window))[NS];
  const { D, installNative, installPolyfill, installBridge, installDeclarative } = ns;

  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) {
    installNative(nativeMC);
    return;
  }
  let announce = () => {};
  const registry = installPolyfill(() => announce());
  const bridge = installBridge(registry);
  announce = bridge.announce;
  installDeclarative(registry.tools, registry.add, registry.remove, registry.changed);
  bridge.post({ type: 'ready' });
})();
