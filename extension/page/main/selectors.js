// WebMCP Sidecar, MAIN world stub, polyfill mode: the selector methods learn WebMCP's
// pseudo-classes (installed by surface.js at the page's first touch of WebMCP).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const { rApply, oDefineProperty, oGetOwnPropertyDescriptor, reTest, strReplace, dom } = ns;

  /**
   * Chromium without WebMCP throws SyntaxError on `:tool-form-active` / `:tool-submit-active`.
   * Only a selector the browser rejected that names one is tried again with the attribute
   * declarative.js sets instead; else the SyntaxError stands (docs/WEBMCP_WPT.md).
   */
  let installed = false;
  /** Once (surface.js calls it at each read of document.modelContext). */
  function installSelectors() {
    if (installed) return;
    installed = true;
    try {
      if (CSS.supports('selector(:tool-form-active)')) return;
    } catch {
      /* no CSS.supports: go on */
    }
    const { DOMExceptionC } = dom();
    const NAMES = /:tool-(form|submit)-active(?![\w-])/;
    const ALL = /:tool-(form|submit)-active(?![\w-])/g;
    /** @param {any} proto @param {string} name */
    const wrap = (proto, name) => {
      const d = oGetOwnPropertyDescriptor(proto, name);
      const orig = d && d.value;
      if (typeof orig !== 'function') return;
      const fallback = {
        /** @this {unknown} @param {unknown} selector */
        [name](selector) {
          const args = [];
          for (let i = 0; i < arguments.length; i++) args[i] = arguments[i];
          try {
            return rApply(orig, this, args);
          } catch (e) {
            if (typeof selector !== 'string' || !(e instanceof DOMExceptionC) || e.name !== 'SyntaxError' ||
                !rApply(reTest, NAMES, [selector])) throw e;
            args[0] = rApply(strReplace, selector, [ALL, '[data-tool-$1-active]']);
            try {
              return rApply(orig, this, args);
            } catch {
              throw e;
            }
          }
        },
      }[name];
      oDefineProperty(proto, name, { ...d, value: fallback });
    };
    for (const [proto, names] of [
      [Element.prototype, ['matches', 'closest', 'querySelector', 'querySelectorAll', 'webkitMatchesSelector']],
      [Document.prototype, ['querySelector', 'querySelectorAll']],
      [DocumentFragment.prototype, ['querySelector', 'querySelectorAll']],
    ]) {
      for (const n of /** @type {string[]} */ (names)) wrap(proto, n);
    }
  }

  Object.assign(ns, { installSelectors });
})();
