// WebMCP Sidecar, MAIN world stub, last file: hides the namespace, then installs its mode.
(() => {
  'use strict';

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  const ns = /** @type {any} */ (window)[NS];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  delete (/** @type {any} */ (window))[NS];
  const { D, installNative, installSurface } = ns;
  // The worker registered one mode's stub (background/page-stubs.js). A stub of the other mode
  // (WebMCP switched on or off, and this tab restored before the worker looked again) installs
  // nothing: under Chromium's own WebMCP the page keeps it; without it the page has none until
  // it reloads.
  const nativeMC = /** @type {any} */ (D).modelContext;
  if (nativeMC) installNative?.(nativeMC);
  else if (installSurface) ns.surface = installSurface();
})();
