// Splitting a message's JSON text into `chunk` messages that each fit in one native frame,
// and joining them back.
//
// Sizes are UTF-8 bytes of the frame *as serialised*. The extension hands Chrome objects,
// and Chrome's JSON writer escapes more than JSON.stringify does ('<' and U+2028/9 become
// \uXXXX), so the byte counts here are an upper bound for either serialiser.

import { REASSEMBLY_MAX } from './protocol.js';
import { textPieces } from './tools.js';

/** Room for a frame's fields besides `data`, on top of their exact size. */
const FRAME_SLACK = 64;

/** @param {number} c */
const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
/** @param {number} c */
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;

/**
 * Bytes a UTF-16 code unit (not a surrogate pair) can take once escaped inside a JSON string.
 * @param {number} c
 */
function escapedCost(c) {
  if (c < 0x20 || c === 0x7f || c === 0x3c) return 6; // \u00XX (and Chrome's \u003C)
  if (c === 0x22 || c === 0x5c) return 2; // \" and \\
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c === 0x2028 || c === 0x2029) return 6;
  if (isHigh(c) || isLow(c)) return 6; // a lone surrogate: \udXXX
  return 3;
}

/**
 * Exact UTF-8 length of a string (a lone surrogate counts as U+FFFD, 3 bytes).
 * @param {string} s
 */
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (isHigh(c) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Upper bound of the frame size of a message whose JSON.stringify text is `text`, whoever
 * serialises it (Chrome writes '<', U+2028 and U+2029 as 6-byte escapes).
 * @param {string} text
 */
export function frameBytesBound(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += c === 0x3c ? 6 : 1;
    else if (c < 0x800) n += 2;
    else if (c === 0x2028 || c === 0x2029) n += 6;
    else if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Splits a message's JSON text into chunk messages whose frames are at most `maxFrameBytes`
 * (UTF-8, with `data` escaped as a JSON string). Never splits a surrogate pair.
 * @param {string} text
 * @param {string} cid
 * @param {number} maxFrameBytes
 * @returns {import('./protocol.js').ChunkMsg[]}
 */
export function splitIntoChunks(text, cid, maxFrameBytes) {
  const empty = { type: 'chunk', cid, seq: Number.MAX_SAFE_INTEGER, last: false, data: '' };
  const budget = maxFrameBytes - frameBytesBound(JSON.stringify(empty)) - FRAME_SLACK;
  if (budget < 12) throw new RangeError(`frame limit ${maxFrameBytes} is too small to carry data`);
  const parts = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const pair = isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
    const cost = pair ? 4 : escapedCost(c);
    if (used + cost > budget) {
      parts.push(text.slice(start, i));
      start = i;
      used = 0;
    }
    used += cost;
    i += pair ? 2 : 1;
  }
  parts.push(text.slice(start));
  return parts.map((data, seq) => ({ type: 'chunk', cid, seq, last: seq === parts.length - 1, data }));
}

/**
 * Cuts a message's JSON text into chunk messages of at most `chars` UTF-16 units each, never
 * inside a surrogate pair, without counting bytes: for pieces small enough that their frames
 * surely fit (a unit takes at most 6 bytes escaped). One linear pass of `slice`s, where
 * splitIntoChunks weighs every character.
 * @param {string} text @param {string} cid @param {number} chars (>= 2)
 * @returns {import('./protocol.js').ChunkMsg[]}
 */
export function sliceIntoChunks(text, cid, chars) {
  const parts = textPieces(text, chars);
  return parts.map((data, seq) => ({ type: 'chunk', cid, seq, last: seq === parts.length - 1, data }));
}

export class ChunkError extends Error {}

/**
 * Joins chunk messages back into JSON text, per cid. Chunks of a cid must come in order
 * (seq 0, 1, 2...); anything else drops that cid's partial message and throws ChunkError.
 */
export class Reassembler {
  /** @param {{maxTotal?: number, maxMessages?: number}} [opts] */
  constructor({ maxTotal = REASSEMBLY_MAX, maxMessages = 64 } = {}) {
    this.maxTotal = maxTotal;
    this.maxMessages = maxMessages;
    /** @type {Map<string, {next: number, parts: string[], size: number}>} */
    this._partial = new Map();
    /** Characters held over all partial messages. */
    this._total = 0;
  }

  /** Number of messages being assembled. */
  get pending() {
    return this._partial.size;
  }

  /**
   * @param {any} chunk a `chunk` message
   * @returns {string|null} the joined JSON text when `chunk` was the last one, else null
   * @throws {ChunkError}
   */
  push(chunk) {
    const { cid, seq, last, data } = chunk ?? {};
    if (typeof cid !== 'string' || !cid) throw new ChunkError('chunk without a cid');
    if (!Number.isInteger(seq) || seq < 0 || typeof last !== 'boolean' || typeof data !== 'string') {
      this._drop(cid);
      throw new ChunkError(`malformed chunk ${seq} of ${cid}`);
    }
    let entry = this._partial.get(cid);
    const expected = entry ? entry.next : 0;
    if (seq !== expected) {
      this._drop(cid);
      throw new ChunkError(`chunk ${seq} of ${cid} came out of order (expected ${expected}); message dropped`);
    }
    if ((entry ? entry.size : 0) + data.length > this.maxTotal || this._total + data.length > this.maxTotal) {
      this._drop(cid);
      throw new ChunkError(`message ${cid} is larger than ${this.maxTotal} characters; dropped`);
    }
    if (!entry) {
      if (last) return data; // a single chunk
      // A sender that died mid-message never finishes it: the oldest goes first.
      if (this._partial.size >= this.maxMessages) this._drop(this._partial.keys().next().value);
      entry = { next: 0, parts: [], size: 0 };
      this._partial.set(cid, entry);
    }
    entry.parts.push(data);
    entry.size += data.length;
    entry.next++;
    this._total += data.length;
    if (!last) return null;
    this._drop(cid);
    return entry.parts.join('');
  }

  /** Forgets every partial message (the link they came on is gone). */
  reset() {
    this._partial.clear();
    this._total = 0;
  }

  _drop(cid) {
    const entry = this._partial.get(cid);
    if (!entry) return;
    this._partial.delete(cid);
    this._total -= entry.size;
  }
}
