// A tool's result as a person reads it (the side panel's Inspector): text as text, with its line
// breaks; JSON, on its own or inside a text, pretty-printed; an MCP call result's images as
// images and resources as links. Pure: the panel draws the parts (sidepanel/result-render.js),
// and the raw JSON stays one click away there.

/**
 * @typedef {{kind: 'text', text: string}
 *   | {kind: 'json', text: string}
 *   | {kind: 'image', mime: string, data: string}
 *   | {kind: 'link', href: string, label: string, text?: string}
 *   | {kind: 'note', text: string}} Part
 *   text: shown as it is (line breaks kept); json: already pretty-printed; image: base64 data of
 *   an image type an <img> can show; link: an http(s) resource (`href`) or, for any other URI,
 *   `href` '' and its text; note: what could not be shown (an audio clip, an odd image type)
 */

/** Image types an <img> in the panel shows from a data: URL (no SVG: an image, not a document). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);
/** A base64 payload, at most this long, is drawn (bigger ones are only described). */
const MAX_IMAGE_CHARS = 8 << 20;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** `value` as JSON, or undefined when it is not JSON. @param {string} s */
function parsed(s) {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/**
 * A text as a part: JSON text (an object or a list) pretty-printed, anything else as text.
 * @param {string} text @returns {Part}
 */
export function textPart(text) {
  const t = text.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    const v = parsed(t);
    if (v !== undefined && v !== null && typeof v === 'object') return { kind: 'json', text: JSON.stringify(v, null, 2) };
  }
  return { kind: 'text', text };
}

/** Whether `v` has the shape of an MCP CallToolResult (a `content` list of typed blocks). */
function isCallResult(v) {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.content)
    && v.content.every((c) => c && typeof c === 'object' && typeof c.type === 'string');
}

/** An http(s) URL as it is, else ''. @param {unknown} uri */
function webUrl(uri) {
  if (typeof uri !== 'string') return '';
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}

/** One content block of an MCP result. @param {any} c @returns {Part[]} */
function blockParts(c) {
  /** @type {(text: string) => Part} */
  const note = (text) => ({ kind: 'note', text });
  switch (c.type) {
    case 'text':
      return [textPart(String(c.text ?? ''))];
    case 'image': {
      const mime = String(c.mimeType ?? '').toLowerCase();
      const data = typeof c.data === 'string' ? c.data : '';
      if (IMAGE_TYPES.has(mime) && data.length <= MAX_IMAGE_CHARS && BASE64.test(data)) return [{ kind: 'image', mime, data: data.replace(/\s+/g, '') }];
      return [note(`(an image of type ${mime || 'unknown'}, ${data.length} base64 characters: see the raw JSON)`)];
    }
    case 'audio':
      return [note(`(an audio clip of type ${String(c.mimeType ?? 'unknown')}: see the raw JSON)`)];
    case 'resource_link': {
      const label = String(c.title ?? c.name ?? c.uri ?? 'resource');
      return [{ kind: 'link', href: webUrl(c.uri), label, text: String(c.uri ?? '') }];
    }
    case 'resource': {
      const r = c.resource && typeof c.resource === 'object' ? c.resource : {};
      const link = { kind: /** @type {'link'} */ ('link'), href: webUrl(r.uri), label: String(r.title ?? r.name ?? r.uri ?? 'resource'), text: String(r.uri ?? '') };
      if (typeof r.text === 'string') return [link, textPart(r.text)];
      if (typeof r.blob === 'string') return [link, note(`(binary contents, ${r.blob.length} base64 characters: see the raw JSON)`)];
      return [link];
    }
    default:
      return [{ kind: 'json', text: JSON.stringify(c, null, 2) }];
  }
}

/**
 * What a result value shows as. `value` is what a call answered: a page's result (JSON text,
 * or text that is not JSON) or a local MCP server's call result (the JSON of a CallToolResult).
 * @param {unknown} value
 * @returns {{parts: Part[], raw: string, isError: boolean}} raw: the value as JSON text,
 *   pretty-printed (the "Raw JSON" view); isError: an MCP result that says it failed
 */
export function resultView(value) {
  /** @type {(text: string) => Part} */
  const note = (text) => ({ kind: 'note', text });
  if (value === undefined || value === 'undefined') return { parts: [note('(nothing)')], raw: '', isError: false };
  const v = typeof value === 'string' ? parsed(value) : value;
  const raw = v === undefined ? String(value) : JSON.stringify(v, null, 2) ?? String(value);
  if (v === undefined) return { parts: [textPart(String(value))], raw, isError: false }; // not JSON: a text
  if (typeof v === 'string') return { parts: [textPart(v)], raw, isError: false };
  if (isCallResult(v)) {
    const parts = v.content.flatMap(blockParts);
    // Structured content says the same as the text (the spec asks servers to send both): shown
    // only when there is no text to read.
    if (!parts.length && v.structuredContent !== undefined) parts.push({ kind: 'json', text: JSON.stringify(v.structuredContent, null, 2) });
    if (!parts.length) parts.push(note('(no content)'));
    return { parts, raw, isError: v.isError === true };
  }
  if (v === null || typeof v !== 'object') return { parts: [{ kind: 'text', text: String(v) }], raw, isError: false };
  return { parts: [{ kind: 'json', text: raw }], raw, isError: false };
}
