// Normalising the tool lists frames report, and canonical JSON for diffing them.
// The content script already filters what the page sends; this is the last line before the
// host, whose pydantic models reject a whole message over one bad tool, so every tool that
// leaves here must fit the `Tool` model.

import { TOOL_NAME_RE, TOOL_SOURCES } from './protocol.js';

/** A frame reporting more than this is misbehaving; the rest is ignored. */
export const MAX_TOOLS_PER_FRAME = 1024;
const KNOWN_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint', 'untrustedContentHint'];

/** @param {unknown} v */
function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * One tool in the exact shape of the host's `Tool` model, or null when it cannot be one.
 * @param {any} raw
 * @param {import('./protocol.js').ToolSource} defaultSource
 * @returns {import('./protocol.js').Tool|null}
 */
export function normalizeTool(raw, defaultSource) {
  if (!isPlainObject(raw) || typeof raw.name !== 'string' || !TOOL_NAME_RE.test(raw.name)) return null;
  /** @type {any} */
  const tool = { name: raw.name };
  if (typeof raw.title === 'string') tool.title = raw.title;
  tool.description = typeof raw.description === 'string' ? raw.description : '';
  if (isPlainObject(raw.inputSchema)) tool.inputSchema = raw.inputSchema;
  if (isPlainObject(raw.annotations)) {
    const ann = {};
    for (const [k, v] of Object.entries(raw.annotations)) {
      // Known hints are typed bool|None on the host; extra keys pass through as hints.
      if (KNOWN_HINTS.includes(k) ? typeof v === 'boolean' : v !== undefined) ann[k] = v;
    }
    tool.annotations = ann;
  }
  tool.source = TOOL_SOURCES.includes(raw.source) ? raw.source : defaultSource;
  return tool;
}

/**
 * A frame's tool list as a name -> tool map: invalid entries dropped, first of a name wins.
 * @param {unknown} list
 * @param {boolean} native whether the frame's tools come from the browser's own WebMCP
 * @returns {Map<string, import('./protocol.js').Tool>}
 */
export function normalizeTools(list, native) {
  const out = new Map();
  if (!Array.isArray(list)) return out;
  const defaultSource = native ? 'native' : 'polyfill';
  for (const raw of list) {
    if (out.size >= MAX_TOOLS_PER_FRAME) break;
    const tool = normalizeTool(raw, defaultSource);
    if (tool && !out.has(tool.name)) out.set(tool.name, tool);
  }
  return out;
}

/**
 * JSON with object keys sorted at every level, so equal values give equal text whatever the
 * order a page built its schema in.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  return JSON.stringify(value, (_key, v) => {
    if (!isPlainObject(v)) return v;
    const sorted = {};
    for (const k of Object.keys(v).sort()) sorted[k] = v[k];
    return sorted;
  });
}
