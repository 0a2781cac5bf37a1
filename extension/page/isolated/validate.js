// WebMCP Sidecar, ISOLATED world: what of a page's tool list may leave the page. The page (or its
// MAIN-world script, which the page can drive) hands over anything; this checks, trims and
// deduplicates it within the limits of generated-limits.js, with the checks of tool-checks.js (both loaded
// before this file), and says what it left out and why (`dropped`).
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  const { MAX_SCHEMA_DEPTH, MAX_SCHEMA_BYTES, MAX_TOOLS_PER_FRAME, MAX_SITE_BYTES, MAX_DESCRIPTION, MAX_TITLE } = ns.limits;
  const { utf8Length, checkJson, noDrops, addDrop } = ns.toolChecks;

  const NAME_RE = ns.protocol.TOOL_NAME_RE;
  // Our own.
  const MAX_ANNOTATIONS = 32;
  const MAX_ANNOTATION_STRING = 1024;
  const PAGE_SOURCES = new Set(['polyfill', 'legacy', 'declarative']);

  /**
   * @typedef {{name: string, title?: string, description: string, inputSchema?: object,
   *            outputSchema?: object, annotations?: Record<string, boolean|string>, source: string,
   *            origin?: string, exposedTo?: string[]}} Tool
   * @typedef {{count: Record<string, number>, some: {name: string, why: string}[]}} Dropped
   */

  /** @param {unknown} v @returns {v is Record<string, any>} */
  const isPlainObject = (v) =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.prototype.toString.call(v) === '[object Object]';

  /**
   * The part of a page's tool list that may leave the page: checked, trimmed, deduplicated,
   * at most MAX_TOOLS_PER_FRAME tools and MAX_SITE_BYTES of definitions.
   * @param {unknown} list
   * @param {boolean} native whether the list is the browser's own (getTools()) or our polyfill's
   * @returns {{tools: Tool[], dropped: Dropped}}
   */
  function validate(list, native) {
    /** @type {Tool[]} */
    const out = [];
    /** @type {Dropped} */
    const dropped = noDrops();
    if (!Array.isArray(list)) return { tools: out, dropped };
    const seen = new Set();
    let bytes = 0;
    for (const t of list) {
      /** @type {unknown} */
      let name;
      try {
        name = t && typeof t === 'object' ? t.name : undefined;
        if (out.length >= MAX_TOOLS_PER_FRAME) {
          if (!(typeof name === 'string' && seen.has(name))) addDrop(dropped, name, 'count');
          continue;
        }
        if (typeof name !== 'string' || !NAME_RE.test(name)) {
          addDrop(dropped, name, 'name');
          continue;
        }
        if (seen.has(name)) continue;
        // Native: another origin's tool is one Chromium let this document see (an exposed
        // cross-origin frame's, getTools({fromOrigins})); it keeps its origin.
        const foreign = native && typeof t.origin === 'string' && t.origin !== location.origin ? t.origin : null;
        if (foreign !== null && foreign.length > 512) continue;
        seen.add(name);
        /** @type {Tool} */
        const tool = {
          name,
          description: typeof t.description === 'string' ? t.description.slice(0, MAX_DESCRIPTION) : '',
          source: native ? 'native' : PAGE_SOURCES.has(t.source) ? t.source : 'polyfill',
        };
        if (typeof t.title === 'string' && t.title) tool.title = t.title.slice(0, MAX_TITLE);
        if (foreign !== null) tool.origin = foreign;
        // Polyfill: registerTool's exposedTo (origins), for a cross-origin frame's report.
        if (!native && Array.isArray(t.exposedTo)) {
          const to = t.exposedTo.filter((/** @type {unknown} */ o) => typeof o === 'string' && o.length <= 512).slice(0, 16);
          if (to.length) tool.exposedTo = to;
        }
        // A schema too deep or too big drops the tool: without it the tool would be another.
        let tooBig = false;
        for (const key of /** @type {const} */ (['inputSchema', 'outputSchema'])) {
          if (!isPlainObject(t[key])) continue;
          const c = checkJson(t[key], MAX_SCHEMA_DEPTH, MAX_SCHEMA_BYTES);
          if ('why' in c) {
            addDrop(dropped, name, c.why);
            tooBig = true;
            break;
          }
          tool[key] = JSON.parse(c.json);
        }
        if (tooBig) continue;
        if (isPlainObject(t.annotations)) {
          /** @type {Record<string, boolean|string>} */
          const a = {};
          let n = 0;
          for (const k of Object.keys(t.annotations)) {
            if (n >= MAX_ANNOTATIONS || k.length > 64) continue;
            const v = t.annotations[k];
            if (typeof v === 'boolean') a[k] = v;
            else if (typeof v === 'string') a[k] = v.slice(0, MAX_ANNOTATION_STRING);
            else continue;
            n++;
          }
          if (n) {
            const c = checkJson(a, MAX_SCHEMA_DEPTH, MAX_SCHEMA_BYTES);
            if ('why' in c) {
              addDrop(dropped, name, c.why);
              continue;
            }
            tool.annotations = a;
          }
        }
        const size = utf8Length(JSON.stringify(tool));
        if (bytes + size > MAX_SITE_BYTES) {
          addDrop(dropped, name, 'bytes');
          continue;
        }
        bytes += size;
        out.push(tool);
      } catch {
        addDrop(dropped, name, 'name'); // a hostile object (throwing getters): skip the tool
      }
    }
    return { tools: out, dropped };
  }

  ns.frameTools = Object.freeze({ validate, isPlainObject });
})();
