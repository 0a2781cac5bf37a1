// What a page may put into the chain. One place for the numbers: lib/tools.js and lib/registry.js
// import them; content/isolated.js (a classic script) carries a copy that
// tests/js/limits.test.mjs keeps equal to these. The host applies the same numbers again.

/** Nesting of objects/arrays in one tool's inputSchema or annotations; the value itself is level 1. */
export const MAX_SCHEMA_DEPTH = 32;
/** Compact JSON (UTF-8) of one tool's inputSchema, and separately of its annotations. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Tools one frame may report; the rest are dropped. */
export const MAX_TOOLS_PER_FRAME = 256;
/** Tools one site offers; the rest are cut, and the site says so. */
export const MAX_TOOLS_PER_SITE = 256;
/** Compact JSON (UTF-8) of all of one site's tool definitions together. */
export const MAX_SITE_BYTES = 1024 * 1024;
/** A tool's description and title are cut to these many characters. */
export const MAX_DESCRIPTION = 8 * 1024;
export const MAX_TITLE = 256;
/** `site_tools` per site: this many at once, then one per interval; the last state always goes. */
export const SITE_UPDATE_BURST = 4;
export const SITE_UPDATE_INTERVAL_MS = 500;
