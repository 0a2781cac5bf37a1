// Reading a chat site's answer as it streams (docs/CHAT_SITES.md): bytes in (any split, even
// inside a UTF-8 character or a line), the answer's text so far out, by the adapter's `response`
// spec: `sse` (text/event-stream), `ndjson` (a JSON value per line), `json` (one document, read
// at the end), `connect` (Connect-RPC streaming envelopes). Events are read as they are, or, with
// `patch`, as operations on one document (JSON-patch-like: set, append, batch), whose text is read
// from that document: state across events decides what is the answer and what is thinking.
// Pure; the page's hook only forwards the bytes, this runs in the isolated world.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  const chat = ns.chat ??= {};

  /** The answer text kept at most (a runaway stream is cut, not held whole). */
  const MAX_TEXT = 1_000_000;
  /** One SSE event or NDJSON line at most; longer ones are skipped. */
  const MAX_EVENT = 1_000_000;

  /**
   * An incremental SSE parser: `push(text)` returns the events completed by it.
   * Fields per the HTML spec: `data:` lines joined by \n, `event:`, comments and others ignored;
   * lines end with \n, \r\n or \r.
   */
  function sseParser() {
    let buf = '';
    let data = /** @type {string[]} */ ([]);
    let event = '';
    let size = 0;
    /** @param {string} text @param {{event: string, data: string}[]} out */
    function line(text, out) {
      if (text === '') {
        if (data.length && size <= MAX_EVENT) out.push({ event: event || 'message', data: data.join('\n') });
        data = []; event = ''; size = 0;
        return;
      }
      if (text.startsWith(':')) return;
      const colon = text.indexOf(':');
      const field = colon < 0 ? text : text.slice(0, colon);
      let value = colon < 0 ? '' : text.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') { size += value.length; if (size <= MAX_EVENT) data.push(value); }
      else if (field === 'event') event = value;
    }
    return {
      /** @param {string} text */
      push(text) {
        const out = [];
        buf += text;
        let start = 0;
        for (let i = 0; i < buf.length; i++) {
          const c = buf[i];
          if (c !== '\n' && c !== '\r') continue;
          if (c === '\r' && i + 1 === buf.length) break; // a \r\n may be split: wait for more
          line(buf.slice(start, i), out);
          if (c === '\r' && buf[i + 1] === '\n') i++;
          start = i + 1;
        }
        buf = buf.slice(start);
        if (buf.length > MAX_EVENT) buf = ''; // a line with no end in sight
        return out;
      },
      /** The stream ended: a last event without its blank line still counts. */
      end() {
        const out = [];
        if (buf) line(buf.replace(/\r$/, ''), out);
        buf = '';
        line('', out);
        return out;
      },
    };
  }

  /** An incremental NDJSON splitter: `push(text)` returns the complete lines. */
  function lineParser() {
    let buf = '';
    return {
      push(text) {
        buf += text;
        const parts = buf.split(/\r?\n/);
        buf = parts.pop() ?? '';
        if (buf.length > MAX_EVENT) buf = '';
        return parts.filter((l) => l.trim() && l.length <= MAX_EVENT);
      },
      end() {
        const rest = buf.trim() ? [buf] : [];
        buf = '';
        return rest;
      },
    };
  }

  /**
   * An incremental Connect-RPC envelope splitter: `push(bytes)` returns the messages completed by
   * it (each a flags byte, a 4-byte big-endian length, that many bytes). The end-of-stream frame
   * (flag 2: trailers) and compressed ones (flag 1) are not messages; an oversized one is skipped.
   */
  function connectParser() {
    let buf = new Uint8Array(0);
    let skip = 0; // bytes of an oversized frame still to drop
    const decoder = new TextDecoder('utf-8');
    return {
      /** @param {Uint8Array} bytes @returns {string[]} */
      push(bytes) {
        if (skip) {
          const n = Math.min(skip, bytes.length);
          skip -= n;
          bytes = bytes.subarray(n);
        }
        const all = new Uint8Array(buf.length + bytes.length);
        all.set(buf);
        all.set(bytes, buf.length);
        const out = [];
        let at = 0;
        while (all.length - at >= 5) {
          const flags = all[at];
          const len = ((all[at + 1] << 24) >>> 0) + (all[at + 2] << 16) + (all[at + 3] << 8) + all[at + 4];
          if (len > MAX_EVENT) {
            skip = Math.max(0, len - (all.length - at - 5));
            at = Math.min(all.length, at + 5 + len);
            continue;
          }
          if (all.length - at - 5 < len) break;
          if (!(flags & 3)) out.push(decoder.decode(all.subarray(at + 5, at + 5 + len)));
          at += 5 + len;
        }
        buf = all.slice(at);
        return out;
      },
      end() { buf = new Uint8Array(0); return []; },
    };
  }

  const tryJson = (text) => { try { return JSON.parse(text); } catch { return undefined; } };

  // Bytes cross the MAIN-world boundary as "binary strings" (one char per byte, 0-255): the
  // page's events carry strings only.
  /** @param {string} text @returns {Uint8Array} */
  function bytesOf(text) {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
    return out;
  }
  /** @param {Uint8Array} bytes @returns {string} */
  function binaryOf(bytes) {
    let out = '';
    for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return out;
  }

  /**
   * A Connect-RPC request body (a flags byte, a 4-byte big-endian length, the JSON message, and
   * whatever follows) with its message changed by `fn(message)`; the length is written anew.
   * Null when the body is not one uncompressed envelope of JSON, or `fn` gives undefined.
   * @param {Uint8Array} bytes @param {(message: any) => any} fn @returns {Uint8Array|null}
   */
  function rewriteConnect(bytes, fn) {
    if (bytes.length < 5 || bytes[0] & 1) return null;
    const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
    if (bytes.length < 5 + len) return null;
    let message;
    try { message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(5, 5 + len))); } catch { return null; }
    const changed = fn(message);
    if (changed === undefined) return null;
    const body = new TextEncoder().encode(JSON.stringify(changed));
    const rest = bytes.subarray(5 + len);
    const out = new Uint8Array(5 + body.length + rest.length);
    out[0] = bytes[0];
    new DataView(out.buffer).setUint32(1, body.length);
    out.set(body, 5);
    out.set(rest, 5 + body.length);
    return out;
  }

  /** Keys a document built from a page's ops never takes (they would reach Object's prototype). */
  const BAD_KEY = /^(__proto__|constructor|prototype)$/;
  /** How much of a page's ops a document takes in all (beyond it, later ops are dropped). */
  const MAX_DOC = 8_000_000;
  /**
   * Characters of text an op stream may have re-read in all: its text is read whole from the
   * document after each op, so a page sending many tiny ops on a long text would cost its square.
   * Past this the stream is read no further (the DOM fallback and the paste box remain).
   */
  const MAX_REREAD = 1_000_000_000;

  /**
   * A document built from operations, as chat sites stream their answers: DeepSeek's
   * `{"p": "response/fragments/-1/content", "o": "APPEND", "v": "…"}` with `{"v": "…"}` going on
   * with the last op, and `BATCH` lists; ChatGPT's `{"p": "", "o": "add", "v": {message}}`,
   * `append`, and `patch` lists. An op path is `/`-separated (a leading `/` or none), numbers index
   * lists (negative from the end).
   * @param {{path?: string, op?: string, value?: string}} spec where an event's path, op and value are
   */
  function patchDocument(spec) {
    const { parsePath, getPath } = chat.path;
    const at = { path: parsePath(spec.path ?? 'p'), op: parsePath(spec.op ?? 'o'), value: parsePath(spec.value ?? 'v') };
    let doc = /** @type {any} */ (undefined);
    let last = /** @type {{path: string[], op: string}|null} */ (null);
    let size = 0;
    const split = (p) => String(p).split('/').filter((x) => x !== '');
    /** The container and key for a path, made as needed (set); null when it cannot be. */
    function place(path, make) {
      if (!path.length) return null;
      let cur = doc;
      for (let i = 0; i < path.length - 1; i++) {
        const k = key(cur, path[i]);
        if (k === null) return null;
        if (cur[k] === undefined || cur[k] === null || typeof cur[k] !== 'object') {
          if (!make) return null;
          cur[k] = {};
        }
        cur = cur[k];
      }
      const k = key(cur, path[path.length - 1]);
      return k === null ? null : { obj: cur, k };
    }
    function key(obj, seg) {
      if (!obj || typeof obj !== 'object' || BAD_KEY.test(seg)) return null;
      if (Array.isArray(obj)) {
        if (!/^-?\d{1,6}$/.test(seg)) return null;
        const n = Number(seg);
        const i = n < 0 ? obj.length + n : n;
        return i >= 0 && i <= obj.length ? i : null;
      }
      return seg;
    }
    /** `inner`: an op of a batch; a bare value after it goes on with the batch's last text append. */
    function apply(path, op, value, inner = false) {
      if (op === 'batch' || op === 'patch') {
        if (!Array.isArray(value)) return;
        for (const one of value.slice(0, 1000)) {
          if (!one || typeof one !== 'object') continue;
          const sub = getPath(one, at.path);
          const o = getPath(one, at.op);
          apply([...path, ...(typeof sub === 'string' ? split(sub) : [])], typeof o === 'string' ? o.toLowerCase() : 'set', getPath(one, at.value), true);
        }
        return;
      }
      if (!inner || (op === 'append' && typeof value === 'string')) last = { path, op };
      if (!path.length) {
        if (op === 'append' && typeof doc === 'string' && typeof value === 'string') doc += value;
        else if (op !== 'append' || doc === undefined) doc = value;
        return;
      }
      if (doc === undefined || doc === null || typeof doc !== 'object') doc = {};
      const where = place(path, true);
      if (!where) return;
      const old = where.obj[where.k];
      if (op === 'append') {
        if (typeof old === 'string' && typeof value === 'string') where.obj[where.k] = old + value;
        else if (Array.isArray(old)) { if (Array.isArray(value)) old.push(...value); else old.push(value); }
        else if (old === undefined) where.obj[where.k] = value;
      } else if (op === 'set' || op === 'replace' || op === 'add') {
        where.obj[where.k] = value;
      }
    }
    return {
      /**
       * One event (parsed JSON, `n` characters of it): its op applied.
       * @returns {boolean} whether it was an op
       */
      take(event, n) {
        if (!event || typeof event !== 'object') return false;
        const value = getPath(event, at.value);
        if (value === undefined) return false;
        const p = getPath(event, at.path);
        const o = getPath(event, at.op);
        size += n;
        if (size > MAX_DOC) return false;
        if (typeof p !== 'string' && typeof o !== 'string') {
          // Only a value: it goes on with the last op (a first one is the whole document).
          if (last) apply(last.path, last.op, value); else apply([], 'set', value);
          return true;
        }
        apply(typeof p === 'string' ? split(p) : (last?.path ?? []), typeof o === 'string' ? o.toLowerCase() : 'set', value);
        return true;
      },
      get doc() { return doc; },
    };
  }

  /**
   * Reads an answer by an adapter's response spec. `push(bytes|text)` and `end()` return the
   * answer's whole text so far (the scanner looks at it as it grows).
   * @param {{kind: string, text_paths?: string[], text_mode?: string, when?: Record<string, unknown>, event?: string,
   *   events?: string[], patch?: {path?: string, op?: string, value?: string}}} spec
   */
  function answerReader(spec) {
    const { parsePath, getPath, getAll } = chat.path;
    const paths = (spec.text_paths ?? []).map(parsePath).filter(Boolean);
    const when = Object.entries(spec.when ?? {}).map(([p, v]) => [parsePath(p), v]).filter(([p]) => p);
    const patch = spec.patch ? patchDocument(spec.patch) : null;
    const full = spec.text_mode === 'full' || !!patch;
    const names = [...(spec.event ? [spec.event] : []), ...(spec.events ?? [])];
    const wanted = (e) => !names.length || names.includes(e.event);
    const decoder = new TextDecoder('utf-8');
    const sse = spec.kind === 'sse' ? sseParser() : null;
    const lines = spec.kind === 'ndjson' ? lineParser() : null;
    const frames = spec.kind === 'connect' ? connectParser() : null;
    let whole = '';
    let text = '';
    let events = 0;
    let reread = 0;

    /** The text at a path: a string, or (a path of many) the strings there joined; else null. */
    function textAt(value, steps) {
      const found = getAll(value, steps).filter((t) => typeof t === 'string');
      return found.length ? found.join('') : null;
    }
    /** One event's JSON: its text added (delta) or put in place (full); with `patch`, the op applied and the document read. */
    const take = (raw) => takeValue(tryJson(raw), raw.length);
    function takeValue(value, n) {
      if (value === undefined) return;
      let from = value;
      if (patch) {
        if (reread > MAX_REREAD || !patch.take(value, n)) return;
        from = patch.doc;
      }
      for (const [p, v] of when) if (getPath(from, p) !== v) return;
      for (const p of paths) {
        const t = textAt(from, p);
        if (t === null) continue;
        if (patch) reread += t.length;
        events++;
        text = full ? t : text + t;
        if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT);
        return;
      }
    }
    function feed(chunk) {
      if (sse) {
        for (const e of sse.push(chunk)) {
          if (!wanted(e)) continue;
          if (e.data.trim() !== '[DONE]') take(e.data);
        }
      } else if (lines) {
        for (const l of lines.push(chunk)) take(l);
      } else if (spec.kind === 'json' && whole.length < MAX_TEXT * 2) {
        whole += chunk;
      }
    }
    return {
      /** @param {Uint8Array|string} chunk (connect: bytes only) */
      push(chunk) {
        if (frames) {
          if (typeof chunk !== 'string') for (const m of frames.push(chunk)) take(m);
          return text;
        }
        feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
        return text;
      },
      end() {
        if (frames) { frames.end(); return text; }
        feed(decoder.decode());
        if (sse) {
          for (const e of sse.end()) if (wanted(e)) take(e.data);
        } else if (lines) {
          for (const l of lines.end()) take(l);
        } else if (spec.kind === 'json') {
          const doc = tryJson(whole);
          for (const item of Array.isArray(doc) ? doc : [doc]) takeValue(item, whole.length);
        }
        return text;
      },
      get text() { return text; },
      /** How many events gave text: 0 at the end means the adapter no longer matches. */
      get events() { return events; },
      /** Text only grows (delta mode): a scanner may go on from where it was. */
      appendOnly: !full,
    };
  }

  chat.streams = Object.freeze({
    sseParser, lineParser, connectParser, patchDocument, answerReader, rewriteConnect, bytesOf, binaryOf, MAX_TEXT,
  });
})();
