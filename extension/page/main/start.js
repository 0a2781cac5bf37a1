// WebMCP Sidecar, MAIN world, last file of the stub (the manifest's): removes the files'
// namespace from the page's view (see base.js), then installs native mode or the polyfill's
// surface (surface.js), which brings the rest on first use (adopt.js).
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  // First, whatever comes next: the page must never reach the namespace.
  delete (/** @type {any} */ (window))[NS];
  const { D, installNative, installSurface, installSelectors } = ns;

  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) {
    installNative(nativeMC);
    return;
  }
  ns.surface = installSurface();
  installSelectors();
})();
