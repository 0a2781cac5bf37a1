// Normalising the tool lists frames report, and canonical JSON for diffing them.
// The content script already filters what the page sends; this is the last line before the
// host, whose pydantic models reject a whole message over one bad tool, so every tool that
// leaves here must fit the `Tool` model, and within the limits of lib/limits.js.

import {
  MAX_DESCRIPTION, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_SITE_BYTES, MAX_TITLE, MAX_TOOLS_PER_FRAME,
  MAX_TOOLS_PER_SITE,
} from './limits.js';
import { TOOL_NAME_RE, TOOL_SOURCES } from './protocol.js';
// Written once for this module and the content script (a classic script, loaded for its effect).
import '../page/isolated/tool-checks.js';

const checks = /** @type {any} */ (globalThis).webmcpSidecar.toolChecks;

export { MAX_TOOLS_PER_FRAME };
/** @type {(text: string, size: number) => string[]} tool-checks.js: never a surrogate pair cut in two */
export const textPieces = checks.textPieces;
// The spec's hints, then MCP's that older pages still send: all typed bool|None on the host.
const KNOWN_HINTS = [
  'readOnlyHint', 'consequentialHint', 'untrustedContentHint', 'destructiveHint', 'idempotentHint', 'openWorldHint',
];

/**
 * Why a tool was left out. The content script uses the same codes in its `dropped` report.
 * @typedef {'count'|'bytes'|'deep'|'big'|'name'} DropReason
 * @typedef {{count: Partial<Record<DropReason, number>>, some: {name: string, why: DropReason}[]}} Dropped
 */
/** @type {DropReason[]} in the order a notice lists them */
export const DROP_REASONS = ['count', 'bytes', 'deep', 'big', 'name'];
/** @type {number} Names kept per report to show as examples. */
export const MAX_DROP_EXAMPLES = checks.MAX_DROP_EXAMPLES;

/** @param {unknown} v */
export function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** @type {(s: string) => number} UTF-8 length of a string, without allocating. */
export const utf8Length = checks.utf8Length;

/**
 * Whether a JSON value stays within `maxDepth` levels of objects/arrays (the value itself is
 * level 1) and `maxBytes` of compact UTF-8 JSON (page/isolated/tool-checks.js checkJson: an
 * iterative walk that gives up early).
 * @param {unknown} value
 * @returns {'deep'|'big'|null} what is wrong, or null
 */
export function jsonOverLimits(value, maxDepth = MAX_SCHEMA_DEPTH, maxBytes = MAX_SCHEMA_BYTES) {
  const c = checks.checkJson(value, maxDepth, maxBytes);
  return 'why' in c ? c.why : null;
}

/** Compact JSON size of each tool, computed once. @type {WeakMap<object, number>} */
const toolSizes = new WeakMap();

/** UTF-8 bytes of a tool's compact JSON. @param {import('./protocol.js').Tool} tool */
export function toolBytes(tool) {
  let n = toolSizes.get(tool);
  if (n === undefined) {
    n = utf8Length(JSON.stringify(tool));
    toolSizes.set(tool, n);
  }
  return n;
}

/**
 * One tool in the exact shape of the host's `Tool` model, or why it cannot be one.
 * @param {any} raw
 * @param {import('./protocol.js').ToolSource} defaultSource
 * @param {string|null} [origin] the tool's origin when it is another than the page's: set by the
 *   registry from what the browser says (never a page's claim)
 * @returns {import('./protocol.js').Tool|DropReason}
 */
export function normalizeTool(raw, defaultSource, origin = null) {
  if (!isPlainObject(raw) || typeof raw.name !== 'string' || !TOOL_NAME_RE.test(raw.name)) return 'name';
  /** @type {any} */
  const tool = { name: raw.name };
  if (typeof raw.title === 'string') tool.title = raw.title.slice(0, MAX_TITLE);
  tool.description = typeof raw.description === 'string' ? raw.description.slice(0, MAX_DESCRIPTION) : '';
  if (isPlainObject(raw.inputSchema)) {
    const wrong = jsonOverLimits(raw.inputSchema);
    if (wrong) return wrong;
    tool.inputSchema = raw.inputSchema;
  }
  if (isPlainObject(raw.outputSchema)) {
    // The shape of the tool's result (spec PR #254): capped like inputSchema.
    const wrong = jsonOverLimits(raw.outputSchema);
    if (wrong) return wrong;
    tool.outputSchema = raw.outputSchema;
  }
  if (isPlainObject(raw.annotations)) {
    const ann = {};
    for (const [k, v] of Object.entries(raw.annotations)) {
      // Known hints are typed bool|None on the host; extra keys pass through as hints.
      if (KNOWN_HINTS.includes(k) ? typeof v === 'boolean' : v !== undefined) ann[k] = v;
    }
    const wrong = jsonOverLimits(ann);
    if (wrong) return wrong;
    tool.annotations = ann;
  }
  // A page may say which of its APIs a tool came by, never that it is ours (a skill, a browser tool).
  tool.source = PAGE_SOURCES.includes(raw.source) ? raw.source : defaultSource;
  if (origin) tool.origin = origin;
  return tool;
}

const PAGE_SOURCES = TOOL_SOURCES.filter((s) => s !== 'skill' && s !== 'browser');

/** @type {() => Dropped} An empty drop report. */
export const noDrops = checks.noDrops;

/** @type {(d: Dropped, name: string, why: DropReason) => void} */
export const addDrop = checks.addDrop;

/**
 * A drop report from a content script, checked (it comes from a port, but shapes are ours to
 * trust only once checked).
 * @param {unknown} raw
 * @returns {Dropped}
 */
export function checkDropped(raw) {
  const d = noDrops();
  if (!isPlainObject(raw)) return d;
  const r = /** @type {any} */ (raw);
  if (isPlainObject(r.count)) {
    for (const why of DROP_REASONS) {
      const n = r.count[why];
      if (Number.isSafeInteger(n) && n > 0) d.count[why] = n;
    }
  }
  if (Array.isArray(r.some)) {
    for (const x of r.some.slice(0, MAX_DROP_EXAMPLES)) {
      if (isPlainObject(x) && typeof x.name === 'string' && DROP_REASONS.includes(x.why) && d.count[x.why]) {
        d.some.push({ name: x.name.slice(0, 128), why: x.why });
      }
    }
  }
  return d;
}

/**
 * A frame's tool list as a name -> tool map (invalid entries dropped, first of a name wins),
 * at most MAX_TOOLS_PER_FRAME tools, and what was left out.
 * @param {unknown} list
 * @param {boolean} native whether the frame's tools come from the browser's own WebMCP
 * @param {(raw: any) => string|null} [originFor] the origin each tool keeps (see normalizeTool)
 * @returns {{tools: Map<string, import('./protocol.js').Tool>, dropped: Dropped}}
 */
export function normalizeTools(list, native, originFor = () => null) {
  const tools = new Map();
  const dropped = noDrops();
  if (!Array.isArray(list)) return { tools, dropped };
  const defaultSource = native ? 'native' : 'polyfill';
  for (const raw of list) {
    const name = typeof raw?.name === 'string' ? raw.name : '';
    if (tools.has(name)) continue;
    if (tools.size >= MAX_TOOLS_PER_FRAME) {
      addDrop(dropped, name, 'count'); // not even looked at: the frame is over its limit
      continue;
    }
    const tool = normalizeTool(raw, defaultSource, originFor(raw));
    if (typeof tool === 'string') addDrop(dropped, name, tool);
    else tools.set(tool.name, tool);
  }
  return { tools, dropped };
}

/**
 * A site's tools within the site limits, taken in the order given (the first are kept), and
 * what was cut.
 * @param {Iterable<import('./protocol.js').Tool>} tools
 * @param {Dropped} dropped added to
 * @returns {import('./protocol.js').Tool[]}
 */
export function capSiteTools(tools, dropped) {
  const kept = [];
  let bytes = 0;
  for (const tool of tools) {
    if (kept.length >= MAX_TOOLS_PER_SITE) {
      addDrop(dropped, tool.name, 'count');
      continue;
    }
    const n = toolBytes(tool);
    if (bytes + n > MAX_SITE_BYTES) {
      addDrop(dropped, tool.name, 'bytes');
      continue;
    }
    bytes += n;
    kept.push(tool);
  }
  return kept;
}

const REASON_TEXT = {
  count: `over the limit of ${MAX_TOOLS_PER_SITE} tools`,
  bytes: `over the limit of ${MAX_SITE_BYTES / (1024 * 1024)} MB of tool definitions`,
  deep: `with an input schema or annotations nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
  big: `with an input schema or annotations over ${MAX_SCHEMA_BYTES / 1024} KB`,
  name: 'without a valid name',
};

/**
 * What was left out of a site, in plain words; null when nothing was.
 * @param {string} site
 * @param {Dropped} dropped
 * @returns {string|null}
 */
export function dropNotice(site, dropped) {
  const parts = [];
  let total = 0;
  for (const why of DROP_REASONS) {
    const n = dropped.count[why];
    if (!n) continue;
    total += n;
    const names = [...new Set(dropped.some.filter((x) => x.why === why && x.name).map((x) => x.name))].slice(0, 3);
    const eg = names.length ? ` (${n > names.length ? 'e.g. ' : ''}${names.map((x) => `"${x}"`).join(', ')})` : '';
    parts.push(`${n} ${REASON_TEXT[why]}${eg}`);
  }
  if (!total) return null;
  return `${total} of ${site}'s tools ${total === 1 ? 'was' : 'were'} left out: ${parts.join('; ')}.`;
}

/**
 * JSON with object keys sorted at every level, so equal values give equal text whatever the
 * order a page built its schema in.
 * @type {(value: unknown) => string}
 */
export const canonicalJson = checks.canonicalJson;

/**
 * Adds one frame's drops to the site's. Frames of several tabs often report the same page's
 * drops, so counts take the largest per reason and examples are kept once.
 * @param {Dropped} into @param {Dropped} d
 */
export function mergeDrops(into, d) {
  for (const why of DROP_REASONS) {
    const n = d.count[why];
    if (n && n > (into.count[why] ?? 0)) into.count[why] = n;
  }
  for (const x of d.some) {
    if (into.some.length >= MAX_DROP_EXAMPLES) break;
    if (!into.some.some((y) => y.name === x.name && y.why === x.why)) into.some.push(x);
  }
}
