// Checking what the host sends, shaping what goes back, and the plain-language error texts.
// Whatever leaves here must validate against host/webmcp_sidecar/wire/messages.py.

import { HOST_TO_EXTENSION } from './generated/host-messages.js';
import { ERROR_CODES, ERROR_TEXTS, timeoutText } from './protocol.js';
import { NO_REASON_TEXT } from './generated/protocol.js';

const MAX_MESSAGE_CHARS = 2000;
/** Requests the worker answers: a malformed one still gets a `result` (bad_request) by its id. */
const ANSWERED = new Set(['call', 'open_url']);

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Validates and normalises a message from the host, by the checker generated from its model
 * (lib/generated/host-messages.js, from wire/messages.py: which fields, their types and limits, and
 * what is normalised).
 * @param {any} msg
 * @returns {{ok: true, msg: any} | {ok: false, error: string, id?: string}}
 *   on failure, `id` is set when the message was a request that deserves a `result`
 */
export function checkHostMessage(msg) {
  if (!isPlainObject(msg)) return { ok: false, error: 'host message is not a JSON object' };
  const { type } = msg;
  if (type === 'chunk') return { ok: true, msg }; // its pieces are checked as they are joined (lib/chunks.js)
  const check = typeof type === 'string' ? HOST_TO_EXTENSION[type] : undefined;
  if (!check) return { ok: false, error: `unknown message type ${JSON.stringify(String(type)).slice(0, 80)}` };
  const r = check(msg);
  if (r.ok) return r;
  const id = ANSWERED.has(type) && typeof msg.id === 'string' && msg.id ? msg.id : undefined;
  return { ok: false, error: `malformed ${type} message: ${r.what}`, id };
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
  let message = typeof err.message === 'string' && err.message ? err.message : NO_REASON_TEXT;
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
