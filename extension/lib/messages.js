// Checking what the host sends, shaping what goes back, and the plain-language error texts.
// Whatever leaves here must validate against host/webmcp_sidecar/wire/messages.py.

import { isConnId } from './call-ids.js';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, ERROR_CODES, ERROR_TEXTS, MAX_TIMEOUT_MS, timeoutText } from './protocol.js';

const MAX_MESSAGE_CHARS = 2000;
/** An entry link's token (host: wire/messages.py EntryLink): it goes into the link's URL path. */
const LINK_TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isId = (v) => typeof v === 'string' && v.length > 0;
const positiveInt = (v, fallback, max) =>
  Number.isFinite(v) && v > 0 ? Math.min(Math.floor(v), max) : fallback;

/**
 * Validates and normalises a message from the host.
 * @param {any} msg
 * @returns {{ok: true, msg: any} | {ok: false, error: string, id?: string}}
 *   on failure, `id` is set when the message was a request that deserves a `result`
 */
export function checkHostMessage(msg) {
  if (!isPlainObject(msg)) return { ok: false, error: 'host message is not a JSON object' };
  const { type } = msg;
  const requestId = (type === 'call' || type === 'open_url') && isId(msg.id) ? msg.id : undefined;
  /** @param {string} what @returns {{ok: false, error: string, id?: string}} */
  const bad = (what) => ({ ok: false, error: `malformed ${type} message: ${what}`, id: requestId });
  switch (type) {
    case 'call':
      if (!isId(msg.id)) return bad('no id');
      if (typeof msg.site !== 'string' || !msg.site) return bad('no site');
      if (typeof msg.tool !== 'string' || !msg.tool) return bad('no tool');
      if (msg.args !== undefined && msg.args !== null && !isPlainObject(msg.args)) return bad('args is not an object');
      return {
        ok: true,
        msg: {
          type,
          id: msg.id,
          site: msg.site.toLowerCase(),
          tool: msg.tool,
          args: msg.args ?? {},
          timeout_ms: positiveInt(msg.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
          max_bytes: positiveInt(msg.max_bytes, DEFAULT_MAX_BYTES, Number.MAX_SAFE_INTEGER),
        },
      };
    case 'open_url':
      if (!isId(msg.id)) return bad('no id');
      if (typeof msg.url !== 'string') return bad('no url');
      return { ok: true, msg: { type, id: msg.id, url: msg.url } };
    case 'cancel':
      if (!isId(msg.id)) return bad('no id');
      return { ok: true, msg: { type, id: msg.id } };
    case 'ping':
    case 'pong':
      return { ok: true, msg: { type, id: typeof msg.id === 'string' ? msg.id : '' } };
    case 'chunk':
      return { ok: true, msg };
    case 'entry_link':
      if (!isConnId(msg.conn)) return bad('no conn');
      if (!Number.isInteger(msg.port) || msg.port < 1 || msg.port > 65535) return bad('no port');
      if (typeof msg.token !== 'string' || !LINK_TOKEN.test(msg.token)) return bad('no token');
      return { ok: true, msg: { type, conn: msg.conn, port: msg.port, token: msg.token } };
    case 'host_hello':
      if (!Number.isInteger(msg.protocol)) return bad('no protocol');
      return {
        ok: true,
        msg: { type, protocol: msg.protocol, host_version: typeof msg.host_version === 'string' ? msg.host_version : '' },
      };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(String(type)).slice(0, 80)}` };
  }
}

/**
 * A failed `result` for the host.
 * @param {string} id
 * @param {import('./protocol.js').ErrorCode} code
 * @param {string} message
 * @param {number|null} [tabId]
 * @returns {import('./protocol.js').ResultMsg}
 */
// Results keep `type` then `id` as their first keys: the host routes them by reading just the
// frame's head (native_host/app.py, _RESULT_HEAD).
export function errorResult(id, code, message, tabId = null) {
  return { type: 'result', id, ok: false, error: { code, message }, tab_id: tabId };
}

/**
 * A content script's `result` reshaped for the host: value always JSON text, error always
 * a known code with a message, the page's output capped at max_bytes.
 * @param {string} id
 * @param {any} raw the frame's message
 * @param {number} tabId
 * @param {number} maxBytes
 * @returns {import('./protocol.js').ResultMsg}
 */
export function frameResultToHost(id, raw, tabId, maxBytes) {
  if (raw.ok === true) {
    let value = raw.value;
    if (typeof value !== 'string') value = value === undefined ? 'undefined' : JSON.stringify(value) ?? 'undefined';
    // A UTF-16 length over the cap means more bytes than the cap; exact count only near it.
    if (value.length > maxBytes || (value.length * 3 > maxBytes && new TextEncoder().encode(value).length > maxBytes)) {
      return errorResult(id, 'too_large', tooLargeMessage(maxBytes), tabId);
    }
    return { type: 'result', id, ok: true, value, tab_id: tabId };
  }
  const err = isPlainObject(raw.error) ? raw.error : { message: raw.error };
  const code = ERROR_CODES.includes(err.code) ? err.code : 'page_error';
  let message = typeof err.message === 'string' && err.message ? err.message : 'The tool failed without saying why.';
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  return errorResult(id, code, message, tabId);
}

/** @param {number} maxBytes */
export function tooLargeMessage(maxBytes) {
  return `The tool's result is larger than the ${maxBytes} bytes allowed for this call.`;
}

/** @param {string} site */
export function noTabMessage(site) {
  return `No tab of ${site} is open. Open it in the browser (the open_browser tool can do it) and try again.`;
}

/**
 * @param {string} site
 * @param {string} tool
 * @param {string[]} names the site's tools now
 */
export function notFoundMessage(site, tool, names) {
  if (!names.length) {
    return `${site} has no tool named "${tool}" right now: its page offers no tools at the moment ` +
      '(it may still be loading). Try again in a moment, or reload the page.';
  }
  const shown = names.length > 50 ? `${names.slice(0, 50).join(', ')}, …` : names.join(', ');
  return `${site} has no tool named "${tool}" right now. Its tools: ${shown}.`;
}

export const TAB_CLOSED_MESSAGE = ERROR_TEXTS.tab_closed;

/** @param {number} ms */
export function timeoutMessage(ms) {
  return `${timeoutText('The page', ms)} It may be busy or stuck; try again, or reload the page.`;
}
export const CANCELLED_MESSAGE = ERROR_TEXTS.cancelled;
