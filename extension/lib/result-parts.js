// A long result comes from the content script in pieces (`result_part`, seq 0, 1, ...) and then
// its `result`, whose `parts` says how many came first and whose `value` is the rest
// (page/isolated/relay.js cuts; Chromium's messaging is much faster for many small messages
// than for one big one). The worker joins them here before anything else looks at the result.
// Only our content script sends parts, but a compromised renderer could send anything: parts
// out of order, of the wrong type or over the call's max_bytes spoil the result, which then
// answers with an error instead; nothing is kept beyond the cap.

import { tooLargeMessage } from './messages.js';

/** @typedef {{list: string[], chars: number, bad: null | 'order' | 'large'}} Parts */

/**
 * Adds a piece to `parts` (a call's, made on its first piece).
 * @param {Parts|undefined} parts
 * @param {any} msg a `result_part`
 * @param {number} maxBytes the call's cap: a UTF-16 unit is at least one UTF-8 byte
 * @returns {Parts}
 */
export function addPart(parts, msg, maxBytes) {
  const p = parts ?? { list: [], chars: 0, bad: null };
  if (p.bad) return p;
  if (typeof msg?.data !== 'string' || msg.seq !== p.list.length) {
    p.bad = 'order';
  } else if ((p.chars += msg.data.length) > maxBytes) {
    p.bad = 'large';
  } else {
    p.list.push(msg.data);
    return p;
  }
  p.list = []; // free what came: the result will be an error
  return p;
}

/**
 * The call's final `result` with its parts joined in: the whole value, or an error when the parts
 * were spoilt, too big or not all there. A result without parts and none kept is returned as is.
 * @param {Parts|undefined} parts
 * @param {any} msg the content script's `result` (with `ok`)
 * @param {number} maxBytes
 * @returns {any} a `result` as the content script would have sent it whole
 */
export function joinParts(parts, msg, maxBytes) {
  const count = msg.parts ?? 0;
  if (!parts && count === 0) return msg;
  const { parts: _, ...rest } = msg;
  if (msg.ok !== true) return rest; // a failure after some parts: the parts do not matter
  const fail = (code, message) => ({ type: 'result', id: msg.id, ok: false, error: { code, message } });
  if (parts?.bad === 'large' || (parts && parts.chars + String(msg.value ?? '').length > maxBytes)) {
    return fail('too_large', tooLargeMessage(maxBytes));
  }
  if (parts?.bad === 'order' || !Number.isInteger(count) || count !== (parts?.list.length ?? 0)
    || typeof msg.value !== 'string') {
    return fail('page_error', 'The page\'s result arrived incomplete or out of order, so it was dropped.');
  }
  return { ...rest, value: /** @type {Parts} */ (parts).list.join('') + msg.value };
}
