// Reading a chat site's answer as it streams (docs/CHAT_SITES.md): bytes in (any split, even
// inside a UTF-8 character or a line), the answer's text so far out, by the adapter's `response`
// spec: `sse` (text/event-stream), `ndjson` (a JSON value per line), `json` (one document, read
// at the end). Pure; the page's hook only forwards the bytes, this runs in the isolated world.
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

  const tryJson = (text) => { try { return JSON.parse(text); } catch { return undefined; } };

  /**
   * Reads an answer by an adapter's response spec. `push(bytes|text)` and `end()` return the
   * answer's whole text so far (the scanner looks at it as it grows).
   * @param {{kind: string, text_paths?: string[], text_mode?: string, when?: Record<string, unknown>, event?: string}} spec
   */
  function answerReader(spec) {
    const { parsePath, getPath } = chat.path;
    const paths = (spec.text_paths ?? []).map(parsePath).filter(Boolean);
    const when = Object.entries(spec.when ?? {}).map(([p, v]) => [parsePath(p), v]).filter(([p]) => p);
    const full = spec.text_mode === 'full';
    const decoder = new TextDecoder('utf-8');
    const sse = spec.kind === 'sse' ? sseParser() : null;
    const lines = spec.kind === 'ndjson' ? lineParser() : null;
    let whole = '';
    let text = '';
    let events = 0;

    /** One event's JSON: its text added (delta) or put in place (full). */
    function take(value) {
      if (value === undefined) return;
      for (const [p, v] of when) if (getPath(value, p) !== v) return;
      for (const p of paths) {
        const t = getPath(value, p);
        if (typeof t !== 'string') continue;
        events++;
        text = full ? t : text + t;
        if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT);
        return;
      }
    }
    function feed(chunk) {
      if (sse) {
        for (const e of sse.push(chunk)) {
          if (spec.event && e.event !== spec.event) continue;
          if (e.data.trim() !== '[DONE]') take(tryJson(e.data));
        }
      } else if (lines) {
        for (const l of lines.push(chunk)) take(tryJson(l));
      } else if (spec.kind === 'json' && whole.length < MAX_TEXT * 2) {
        whole += chunk;
      }
    }
    return {
      /** @param {Uint8Array|string} chunk */
      push(chunk) {
        feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
        return text;
      },
      end() {
        feed(decoder.decode());
        if (sse) {
          for (const e of sse.end()) if (!spec.event || e.event === spec.event) take(tryJson(e.data));
        } else if (lines) {
          for (const l of lines.end()) take(tryJson(l));
        } else if (spec.kind === 'json') {
          const doc = tryJson(whole);
          for (const item of Array.isArray(doc) ? doc : [doc]) take(item);
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

  chat.streams = Object.freeze({ sseParser, lineParser, answerReader, MAX_TEXT });
})();
