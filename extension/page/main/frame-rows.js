// WebMCP Sidecar, MAIN world (injected on first use, polyfill mode): what the polyfill's cross-origin frames (frame-remote.js) read from
// pages, as pure functions: an iframe's `allow` attribute for the `tools` permission, and a
// relative's list of tools, checked and capped (tests/js/page-main-frames.test.mjs); and `later`,
// the document's own permission until it is known.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const { rApply, reTest, isArray, jsonParse, StringC, isObj, validName, annotationsOut, URLC, strSplit, strTrim } = ns;

  const MAX_TOOLS = 128;
  const MAX_FIELD = 64 * 1024; // a title, description or schema text

  /** A URL's origin, or null. @param {unknown} u @param {string} [base] */
  const originOf = (u, base) => {
    try {
      const o = new URLC(StringC(u), base).origin;
      return o === 'null' ? null : o;
    } catch {
      return null;
    }
  };

  /**
   * The origins an iframe's `allow` attribute gives `tools` to ('*' for any), as Permissions
   * Policy reads it: `tools` alone is `tools 'src'`. The same reading as
   * page/isolated/frame-policy.js (tests/js/page-main-frames.test.mjs holds them to it).
   * @param {string} allow @param {string} src the iframe's src, resolved @param {string} self
   * @returns {string[]}
   */
  function toolsOrigins(allow, src, self) {
    for (const part of rApply(strSplit, allow, [';'])) {
      const words = rApply(strSplit, rApply(strTrim, part, []), [/\s+/]);
      if (words[0] !== 'tools') continue;
      const values = words.length > 1 ? words.slice(1) : ["'src'"];
      /** @type {string[]} */
      const out = [];
      for (const v of values) {
        /** @type {string|null} */
        let o = null;
        if (v === '*') o = '*';
        else if (v === "'src'") o = !src || src.startsWith('about:') ? self : originOf(src);
        else if (v === "'self'") o = self;
        else if (v !== "'none'") o = originOf(v);
        if (o && !out.includes(o)) out[out.length] = o;
        if (out.length >= 16) break;
      }
      return out;
    }
    return [];
  }

  /**
   * Whether an iframe (`allow`, `src`) in a document of origin `parent` gives `tools` to its
   * document of origin `self`. The feature's default is 'self': without a `tools` directive,
   * only the parent's origin has it. @param {string} allow @param {string} src
   * @param {string} parent @param {string} self
   */
  function frameGrants(allow, src, parent, self) {
    if (!rApply(reTest, /(^|;)\s*tools(\s|;|$)/, [allow])) return self === parent;
    const granted = toolsOrigins(allow, src, parent);
    return granted.includes('*') || granted.includes(self);
  }

  /** A boolean known later: `when(f)` calls `f` with it now, or once it is `set` (once). */
  function later() {
    /** @type {boolean|undefined} */
    let v;
    /** @type {((v: boolean) => void)[]} */
    const waiting = [];
    return {
      /** @param {boolean} x */
      set(x) {
        if (v !== undefined) return;
        v = x;
        for (let i = 0; i < waiting.length; i++) waiting[i](x);
        waiting.length = 0;
      },
      /** @param {(v: boolean) => void} f */
      when(f) {
        if (v !== undefined) f(v);
        else waiting[waiting.length] = f;
      },
    };
  }

  /**
   * A peer's list of tools as it came, checked: at most MAX_TOOLS, each with a valid name,
   * strings of bounded size, a schema as JSON text, annotations as booleans. Null if anything
   * is off (the whole list is dropped).
   * @param {unknown} v @returns {any[]|null}
   */
  function readRows(v) {
    if (!isArray(v) || /** @type {any[]} */ (v).length > MAX_TOOLS) return null;
    const out = [];
    /** @param {unknown} s */
    const str = (s) => typeof s === 'string' && s.length <= MAX_FIELD;
    for (const t of /** @type {any[]} */ (v)) {
      if (!isObj(t) || !validName(t.name) || !str(t.title) || !str(t.description)) return null;
      if (t.inputSchema !== undefined && (!str(t.inputSchema) || !isObj(safeParse(t.inputSchema)))) return null;
      if (t.annotations !== undefined && !isObj(t.annotations)) return null;
      const row = { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema,
        annotations: t.annotations === undefined ? undefined : annotationsOut(t.annotations) };
      out[out.length] = row;
    }
    return out;
  }
  /** @param {string} s */
  const safeParse = (s) => {
    try {
      return jsonParse(s);
    } catch {
      return undefined;
    }
  };

  Object.assign(ns, { originOf, toolsOrigins, frameGrants, later, readRows, safeParse, FRAME_MAX_FIELD: MAX_FIELD });
})();
