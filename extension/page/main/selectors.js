// WebMCP Sidecar, MAIN world (the stub, every frame, polyfill mode): the selector methods know
// WebMCP's pseudo-classes from document_start, as Chromium's do (declarative.js, injected on first
// use, sets the attributes they fall back to).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const { rApply, oDefineProperty, oGetOwnPropertyDescriptor, DOMExceptionC, reTest, strReplace } = ns;

  /**
   * Chromium without WebMCP throws SyntaxError on `:tool-form-active` / `:tool-submit-active` in
   * a selector, so a page's `form.matches(':tool-form-active')` would throw where Chromium answers.
   * The selector methods get a fallback: only a selector the browser rejected, and that names
   * one of them, is tried again with the attribute the polyfill sets instead (stylesheets and
   * computed styles stay out of reach: docs/WEBMCP_WPT.md). A selector the browser takes is
   * never touched; the original SyntaxError stands if the retry fails too.
   */
  function installSelectors() {
    try {
      if (CSS.supports('selector(:tool-form-active)')) return;
    } catch {
      /* no CSS.supports: go on */
    }
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
