// Cross-origin frames (WebMCP spec; docs/PAGE_CODE.md "Cross-origin frames"): which tools of
// a frame of another site the top document may see. A frame counts with the tools it registered
// with `exposedTo` naming the top origin, claiming its own origin as the browser gives it, and
// only while a frame of the tab's site grants it the `tools` permission. Native WebMCP checks
// all that itself and hands such tools to the top frame with their origin. Pure: the registry
// (lib/registry.js) calls these with what the browser said about each frame.

import { isPlainObject } from './tools.js';

/** An origin as the browser writes one (`scheme://host[:port]`), or null. @param {unknown} v */
export function originOf(v) {
  if (typeof v !== 'string' || v.length > 512) return null;
  try {
    const o = new URL(v).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/**
 * The tools of a cross-origin frame that the top document may see (the spec's rule): those the
 * frame registered with `exposedTo` naming the top origin, and that claim the frame's own origin
 * (the browser's word for the frame, not the page's). Each keeps that origin.
 * @param {unknown} list the frame's list, as its content script sent it
 * @param {string} frameOrigin the frame's origin, from the browser (port.sender)
 * @param {string|null} topOrigin the tab's top-level origin, from the browser
 * @returns {any[]}
 */
export function exposedTools(list, frameOrigin, topOrigin) {
  if (!Array.isArray(list) || !topOrigin) return [];
  const out = [];
  for (const raw of list) {
    if (!isPlainObject(raw) || raw.origin !== frameOrigin || !Array.isArray(raw.exposedTo)) continue;
    if (!raw.exposedTo.some((o) => originOf(o) === topOrigin)) continue;
    out.push(raw);
  }
  return out;
}

/**
 * The `allows` of a frame's report, checked: its iframes given `tools`, each a token (see
 * page/isolated/frame-policy.js) and the origins (or "*") it grants; at most 64, 16 origins each.
 * @param {unknown} raw @returns {Map<string, string[]>} origins by token
 */
export function checkAllows(raw) {
  /** @type {Map<string, string[]>} */
  const out = new Map();
  if (!Array.isArray(raw)) return out;
  for (const x of raw.slice(0, 64)) {
    if (!isPlainObject(x) || typeof x.token !== 'string' || !x.token || x.token.length > 64 || !Array.isArray(x.origins)) continue;
    const origins = [];
    for (const o of x.origins.slice(0, 16)) {
      const v = o === '*' ? '*' : originOf(o);
      if (v && !origins.includes(v)) origins.push(v);
    }
    if (origins.length) out.set(x.token, origins);
  }
  return out;
}

/**
 * What of a frame's report the registry takes, and the origin each tool gets.
 * @param {{tools: unknown, top: boolean, native: boolean, exposed: boolean, frameOrigin: string|null,
 *   topOrigin: string|null}} f exposed: a frame of another site than the tab's
 * @returns {{tools: unknown, originFor: (raw: any) => string|null}}
 */
export function frameToolsSeen({ tools, top, native, exposed, frameOrigin, topOrigin }) {
  if (exposed) {
    // Native: Chromium hands exposed tools to the top frame, never through the frame itself.
    if (native || !frameOrigin) return { tools: [], originFor: () => null };
    return { tools: exposedTools(tools, frameOrigin, topOrigin), originFor: () => frameOrigin };
  }
  if (native && top) {
    // Chromium's getTools({fromOrigins}) in the top frame: a tool's origin is the browser's.
    return {
      tools,
      originFor: (raw) => {
        const o = originOf(raw?.origin);
        return o && o !== frameOrigin ? o : null;
      },
    };
  }
  return { tools, originFor: () => null };
}

/**
 * Whether a frame of the tab's site granted `frame` the `tools` permission, for its origin.
 * @param {{site: string|null, frames: Map<number, any>}} tab @param {any} frame
 */
export function toolsAllowed(tab, frame) {
  if (!frame.origin || !frame.grant) return false;
  for (const f of tab.frames.values()) {
    if (f.site !== tab.site || f.exposed) continue;
    const origins = f.allows.get(frame.grant);
    if (origins && (origins.includes('*') || origins.includes(frame.origin))) return true;
  }
  return false;
}
