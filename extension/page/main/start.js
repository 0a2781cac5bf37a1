// WebMCP Sidecar, MAIN world stub, last file: hides the namespace, then installs a mode.
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  delete (/** @type {any} */ (window))[NS];
  const { D, installNative, installSurface } = ns;
  // The other mode's code leaves, so its source can go (a script's source lives with its functions).
  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) {
    delete ns.installSurface;
    delete ns.installSelectors;
    delete ns.readOrigins;
    installNative(nativeMC);
    return;
  }
  delete ns.installNative;
  ns.surface = installSurface();
})();
