// WebMCP Sidecar, MAIN world, last of the files the worker injects on a frame's first use of
// WebMCP (lib/page-files.js MAIN_FILES; polyfill mode): takes the namespace off the page's view,
// makes the stub's surface whole (polyfill.js), connects it to the ISOLATED world (bridge.js) and
// to declarative forms, then hands it to the stub, where what the page did meanwhile runs in order.
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // no stub waiting (native mode, no secure context, or here already)
  delete (/** @type {any} */ (window))[NS];
  const st = ns.surface;
  if (!st || st.adopted || !ns.adoptPolyfill) return;
  st.adopted = true;
  const { adoptPolyfill, installBridge, installDeclarative } = ns;

  let announce = () => {};
  const registry = adoptPolyfill(st, () => announce());
  const bridge = installBridge(registry);
  announce = bridge.announce;
  installDeclarative(registry.tools, registry.add, registry.remove, registry.changed);
  bridge.post({ type: 'ready' });
  st.adopt(registry.full);
})();
