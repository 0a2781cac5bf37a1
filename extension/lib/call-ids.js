// Call ids: `<caller>.<rest>`, the caller saying who made the call and so where its result goes
// (the grammar is wire/constants.py's, "call ids"; the prefixes come generated from there).

import {
  CALL_ID_SEP, CALLER_AGENT, CALLER_CHAT, CALLER_INSPECTOR, CALLER_SERVER, CONN_ID_RE,
} from './generated/protocol.js';

export { CALLER_AGENT, CALLER_CHAT, CALLER_INSPECTOR, CALLER_SERVER };

/**
 * The caller part of a call id ('' when it has none); for an MCP entry's call, its conn id.
 * @param {unknown} id @returns {string}
 */
export function callPrefix(id) {
  if (typeof id !== 'string') return '';
  const at = id.indexOf(CALL_ID_SEP);
  return at > 0 ? id.slice(0, at) : '';
}

/** Whether `id` is a call id of `caller`. @param {unknown} id @param {string} caller */
export const isCallOf = (id, caller) => callPrefix(id) === caller;

/** A new call id of `caller`. @param {string} caller @param {string | number} rest */
export const callId = (caller, rest) => `${caller}${CALL_ID_SEP}${rest}`;

/** Whether `s` is an MCP entry's connection id (its calls' caller). @param {unknown} s */
export const isConnId = (s) => typeof s === 'string' && CONN_ID_RE.test(s);
