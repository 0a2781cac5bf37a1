// What a page may put into the chain. The numbers live in page/isolated/limits.js, a classic
// script that the content scripts load as it is; importing it here (for its side effect) gives
// lib/tools.js, lib/registry.js and the worker the very same numbers, with no copy to keep equal.
// The host applies the same numbers again.

import '../page/isolated/limits.js';

const L = /** @type {any} */ (globalThis).webmcpSidecar.limits;

/** @type {number} Nesting of objects/arrays in one tool's inputSchema or annotations; the value itself is level 1. */
export const MAX_SCHEMA_DEPTH = L.MAX_SCHEMA_DEPTH;
/** @type {number} Compact JSON (UTF-8) of one tool's inputSchema, and separately of its annotations. */
export const MAX_SCHEMA_BYTES = L.MAX_SCHEMA_BYTES;
/** @type {number} Tools one frame may report; the rest are dropped. */
export const MAX_TOOLS_PER_FRAME = L.MAX_TOOLS_PER_FRAME;
/** @type {number} Tools one site offers; the rest are cut, and the site says so. */
export const MAX_TOOLS_PER_SITE = L.MAX_TOOLS_PER_SITE;
/** @type {number} Compact JSON (UTF-8) of all of one site's tool definitions together. */
export const MAX_SITE_BYTES = L.MAX_SITE_BYTES;
/** @type {number} A tool's description is cut to these many characters. */
export const MAX_DESCRIPTION = L.MAX_DESCRIPTION;
/** @type {number} A tool's title is cut to these many characters. */
export const MAX_TITLE = L.MAX_TITLE;
/** @type {number} `site_tools` per site: this many at once, then one per interval. */
export const SITE_UPDATE_BURST = L.SITE_UPDATE_BURST;
/** @type {number} */
export const SITE_UPDATE_INTERVAL_MS = L.SITE_UPDATE_INTERVAL_MS;
