// The chat page's MAIN-world hook (docs/CHAT_SITES.md): injected by the worker with
// chrome.scripting, only into tabs of chat sites the user turned tools on for, never by the
// manifest. Thin on purpose (PRODUCT.md section 3): it holds nothing secret and decides nothing.
// For each fetch and XMLHttpRequest it asks the isolated side, in one synchronous event, whether
// this is the adapter's request and what its body should be (the isolated side adds the
// instruction block), and for the requests it watches it copies the response: a fetch's body is
// teed (the page reads its own stream as before), an XHR's text is read as it grows (`progress`),
// or once it is loaded when the page asked for another `responseType` (json, arraybuffer, blob);
// the copy goes to the isolated side as text, chunk by chunk. The page can see and
// spoof all of this; it is the chat site's own traffic either way.
(() => {
  'use strict';

  const MARK = Symbol.for('webmcp-sidecar.chat-hook');
  const w = /** @type {any} */ (window);
  if (w[MARK]) return;
  Object.defineProperty(w, MARK, { value: true });

  // Builtins captured now: a page that patches them later changes nothing here.
  const fetch0 = w.fetch;
  const { CustomEvent: Event0, Response: Response0, TextDecoder: Decoder0, Request: Request0 } = w;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const defineProperty = Object.defineProperty;
  const fromCharCode = String.fromCharCode;
  const ArrayBuffer0 = w.ArrayBuffer ?? ArrayBuffer;
  const Uint8Array0 = w.Uint8Array ?? Uint8Array;
  const isView = ArrayBuffer0.isView;
  const TO_ISOLATED = 'webmcp-sidecar:chat-page';
  const FROM_ISOLATED = 'webmcp-sidecar:chat-answer';
  const MAX_BODY = 4_000_000;

  /** @param {any} msg */
  const tell = (msg) => dispatch.call(w, new Event0(TO_ISOLATED, { detail: stringify(msg) }));
  /** The isolated side's answer to the last question, set while `tell` runs. @type {any} */
  let answer = null;
  listen.call(w, FROM_ISOLATED, (e) => {
    try { answer = parse(String(/** @type {any} */ (e).detail)); } catch { answer = null; }
  });
  let seq = 0;

  // Bytes go over as binary strings (a char per byte): Connect-RPC bodies and answers are binary.
  /** @param {Uint8Array} bytes */
  function binary(bytes) {
    let out = '';
    for (let i = 0; i < bytes.length; i += 0x8000) out += fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(i, i + 0x8000)));
    return out;
  }
  /** @param {string} text */
  function bytesOf(text) {
    const out = new Uint8Array0(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
    return out;
  }
  /**
   * A request body as the isolated side reads it: text, bytes as a binary string, or null.
   * @param {any} body @returns {{body: string, bin: boolean}|null}
   */
  function bodyOf(body) {
    if (typeof body === 'string') return body.length <= MAX_BODY ? { body, bin: false } : null;
    /** @type {Uint8Array|null} */
    let bytes = null;
    if (body instanceof ArrayBuffer0) bytes = new Uint8Array0(body);
    else if (isView(body)) bytes = new Uint8Array0(body.buffer, body.byteOffset, body.byteLength);
    return bytes && bytes.length <= MAX_BODY ? { body: binary(bytes), bin: true } : null;
  }
  /** The body to send instead, as the isolated side answered it. */
  const newBody = (got) => (got.bin ? bytesOf(got.body) : got.body);

  /** Asks the isolated side about a request: its answer ({watch, body, bin, binary}) or null. */
  function ask(id, url, method, sent) {
    answer = null;
    tell({ type: 'request', id, url, method, body: sent?.body ?? null, bin: !!sent?.bin });
    const got = /** @type {any} */ (answer);
    answer = null;
    return got;
  }

  /** Sends a response body's copy to the isolated side, as text (or bytes, for a binary answer). */
  async function pump(id, body, bin) {
    const reader = body.getReader();
    const decoder = new Decoder0('utf-8');
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        tell(bin ? { type: 'chunk', id, bin: binary(value) } : { type: 'chunk', id, text: decoder.decode(value, { stream: true }) });
      }
      if (!bin) tell({ type: 'chunk', id, text: decoder.decode() });
      tell({ type: 'end', id });
    } catch {
      tell({ type: 'end', id, broken: true });
    }
  }

  w.fetch = function fetch(input, init) {
    let url = '';
    let method = 'GET';
    try {
      url = typeof input === 'string' ? input : input instanceof Request0 ? input.url : String(input);
      method = String(init?.method ?? (input instanceof Request0 ? input.method : 'GET')).toUpperCase();
      url = new URL(url, location.href).href;
    } catch {
      return fetch0.apply(this, arguments);
    }
    const id = ++seq;
    const sent = bodyOf(init?.body);
    const got = ask(id, url, method, sent);
    if (!got || !got.watch) return fetch0.apply(this, arguments);
    const args = typeof got.body === 'string' && sent !== null ? [input, { ...init, body: newBody(got) }] : [...arguments];
    return fetch0.apply(this, args).then((res) => {
      if (!res.body) {
        tell({ type: 'end', id, broken: true });
        return res;
      }
      const [mine, copy] = res.body.tee();
      void pump(id, copy, got.binary === true);
      const out = new Response0(mine, { status: res.status, statusText: res.statusText, headers: res.headers });
      for (const key of ['url', 'redirected', 'type']) defineProperty(out, key, { value: res[key] });
      return out;
    }, (e) => {
      tell({ type: 'end', id, broken: true });
      throw e;
    });
  };

  // XMLHttpRequest: open() says where, send() what; a watched one's text goes over as it grows.
  const XHR = w.XMLHttpRequest;
  if (typeof XHR !== 'function') return;
  const open0 = XHR.prototype.open;
  const send0 = XHR.prototype.send;
  const textOf = Object.getOwnPropertyDescriptor(XHR.prototype, 'responseText')?.get;
  const typeOf = Object.getOwnPropertyDescriptor(XHR.prototype, 'responseType')?.get;
  const responseOf = Object.getOwnPropertyDescriptor(XHR.prototype, 'response')?.get;
  const blobText = w.Blob?.prototype?.text;
  const blobBytes = w.Blob?.prototype?.arrayBuffer;

  /**
   * The whole text of a loaded response that is not text (`responseType` json, arraybuffer or
   * blob: responseText throws for those), or null.
   * @param {XMLHttpRequest} xhr @returns {Promise<string|null>}
   */
  async function wholeText(xhr) {
    const type = typeOf ? typeOf.call(xhr) : xhr.responseType;
    const r = responseOf ? responseOf.call(xhr) : xhr.response;
    if (r === null || r === undefined) return null;
    if (type === 'json') return stringify(r) ?? null;
    if (type === 'arraybuffer') return new Decoder0('utf-8').decode(r);
    if (type === 'blob' && blobText) return await blobText.call(r);
    return null; // a document: no chat answer comes as one
  }
  /** A loaded binary response's bytes (`arraybuffer` or `blob`), or null. @param {XMLHttpRequest} xhr */
  async function wholeBytes(xhr) {
    const type = typeOf ? typeOf.call(xhr) : xhr.responseType;
    const r = responseOf ? responseOf.call(xhr) : xhr.response;
    if (type === 'arraybuffer' && r instanceof ArrayBuffer0) return new Uint8Array0(r);
    if (type === 'blob' && blobBytes && r) return new Uint8Array0(await blobBytes.call(r));
    return null;
  }
  /** @type {WeakMap<object, {url: string, method: string}>} */
  const opened = new WeakMap();

  XHR.prototype.open = function open(method, url) {
    try {
      opened.set(this, { method: String(method).toUpperCase(), url: new URL(String(url), location.href).href });
    } catch {
      opened.delete(this);
    }
    return open0.apply(this, arguments);
  };

  XHR.prototype.send = function send(body) {
    const where = opened.get(this);
    if (!where) return send0.apply(this, arguments);
    const id = ++seq;
    const sent = bodyOf(body);
    const got = ask(id, where.url, where.method, sent);
    if (!got || !got.watch) return send0.apply(this, arguments);
    const xhr = this;
    let seen = 0;
    const flush = () => {
      if (got.binary === true) return; // bytes are read whole once loaded (responseText would mangle them)
      let now;
      try { now = textOf ? textOf.call(xhr) : xhr.responseText; } catch { return; } // not a text response
      if (typeof now === 'string' && now.length > seen) {
        tell({ type: 'chunk', id, text: now.slice(seen) });
        seen = now.length;
      }
    };
    listen.call(xhr, 'progress', flush);
    listen.call(xhr, 'loadend', async () => {
      flush();
      if (got.binary === true && xhr.status !== 0) {
        try {
          const bytes = await wholeBytes(xhr);
          if (bytes) tell({ type: 'chunk', id, bin: binary(bytes) });
        } catch {
          /* not readable: the answer is not watched */
        }
      } else if (!seen && xhr.status !== 0) {
        try {
          const text = await wholeText(xhr);
          if (typeof text === 'string' && text) tell({ type: 'chunk', id, text });
        } catch {
          /* not readable: the answer is not watched */
        }
      }
      tell({ type: 'end', id, broken: xhr.status === 0 });
    });
    return send0.call(xhr, typeof got.body === 'string' && sent !== null ? newBody(got) : body);
  };
})();
