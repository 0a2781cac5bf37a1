// What a page may put into the chain: the one place for these numbers. A classic script (content
// scripts cannot import modules): the isolated-world content scripts load it first (manifest.json),
// and lib/limits.js imports it for its side effect, so the content script, lib/tools.js,
// lib/registry.js and the worker all read the same `webmcpSidecar.limits`. The host applies the
// same numbers again.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  ns.limits = Object.freeze({
    /** Nesting of objects/arrays in one tool's inputSchema or annotations; the value itself is level 1. */
    MAX_SCHEMA_DEPTH: 32,
    /** Compact JSON (UTF-8) of one tool's inputSchema, and separately of its annotations. */
    MAX_SCHEMA_BYTES: 64 * 1024,
    /** Tools one frame may report; the rest are dropped. */
    MAX_TOOLS_PER_FRAME: 256,
    /** Tools one site offers; the rest are cut, and the site says so. */
    MAX_TOOLS_PER_SITE: 256,
    /** Compact JSON (UTF-8) of all of one site's tool definitions together (and of one frame's). */
    MAX_SITE_BYTES: 1024 * 1024,
    /** A tool's description and title are cut to these many characters. */
    MAX_DESCRIPTION: 8 * 1024,
    MAX_TITLE: 256,
    /** `site_tools` per site: this many at once, then one per interval; the last state always goes. */
    SITE_UPDATE_BURST: 4,
    SITE_UPDATE_INTERVAL_MS: 500,
  });
})();
