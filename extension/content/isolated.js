// WebMCP Sidecar: ISOLATED-world content script (document_start, every frame).
//
// Relays between the page's tools and the service worker over a `webmcp-page` port
// (docs/ARCHITECTURE.md, "content script <-> service worker"). It trusts nothing the page says:
// names, sizes and counts are checked here before anything is forwarded, and the page is only
// ever handed its own tools' inputs.
//
// - Native WebMCP: `document.modelContext` is visible in this world too, so tools are listed and
//   executed directly; only the top frame reports (Chromium's getTools() there already includes
//   same-origin iframes' tools).
// - Polyfill: the MAIN-world script (main-world.js) owns the tools; we speak to it with
//   CustomEvents whose detail is JSON text. Every frame of the top frame's origin reports.
(() => {
  'use strict';

  const MARK = Symbol.for('webmcp-sidecar.isolated');
  if (/** @type {any} */ (globalThis)[MARK]) return;
  /** @type {any} */ (globalThis)[MARK] = true;

  const PAGE_EVENT = 'webmcp-sidecar:page'; // MAIN -> ISOLATED
  const EXT_EVENT = 'webmcp-sidecar:ext'; // ISOLATED -> MAIN
  const PORT_NAME = 'webmcp-page';
  const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
  // Limits: a copy of extension/lib/limits.js (a content script cannot import it);
  // tests/js/limits.test.mjs keeps the two equal.
  const MAX_SCHEMA_DEPTH = 32;
  const MAX_SCHEMA_BYTES = 64 * 1024;
  const MAX_TOOLS_PER_FRAME = 256;
  const MAX_SITE_BYTES = 1024 * 1024;
  const MAX_DESCRIPTION = 8 * 1024;
  const MAX_TITLE = 256;
  // Our own.
  const MAX_ANNOTATIONS = 32;
  const MAX_ANNOTATION_STRING = 1024;
  const MAX_DROP_EXAMPLES = 16;
  const MAX_ERROR = 4 * 1024;
  const MAX_PAGE_MESSAGE = 48 * 1024 * 1024; // a flood is read, then cut to the first tools
  const DEFAULT_TIMEOUT_MS = 60_000;
  const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
  const PAGE_SOURCES = new Set(['polyfill', 'legacy', 'declarative']);

  /** @type {any} */
  const mc = /** @type {any} */ (document).modelContext;
  const native = !!mc;

  // Which frames speak for the site (see the header).
  /** @returns {boolean} */
  function reports() {
    if (native) return window === window.top;
    const origin = location.origin;
    if (origin === 'null') return false;
    const anc = location.ancestorOrigins;
    if (anc) {
      for (let i = 0; i < anc.length; i++) if (anc[i] !== origin) return false;
      return true;
    }
    try {
      return window === window.top || window.top?.location.origin === origin;
    } catch {
      return false;
    }
  }
  if (!reports()) return;

  /**
   * @typedef {{name: string, title?: string, description: string, inputSchema?: object,
   *            annotations?: Record<string, boolean|string>, source: string}} Tool
   * @typedef {{ok: true, value: string} | {ok: false, error: {code: string, message: string}}} Outcome
   * @typedef {{id: string, done: boolean, timer: any, local?: string, maxBytes: number,
   *            abort: () => void}} Call
   */

  /** @type {Tool[]} the frame's validated list */
  let current = [];
  /** @type {Dropped|null} what validate() left out of it, if anything */
  let currentDropped = null;
  let currentCanon = '[]';
  /** @type {string|null} what the service worker has from us on this port (null: nothing yet) */
  let sentCanon = null;
  /** @type {chrome.runtime.Port|null} */
  let port = null;
  let dead = false; // the extension was reloaded or removed: this script is an orphan
  let connectedAt = 0;
  let backoff = 50;
  let reconnectTimer = 0;
  /** @type {Map<string, any>} native: RegisteredTool objects by name (executeTool needs them) */
  let registered = new Map();
  /** @type {Map<string, Call>} calls in flight, by the service worker's id */
  const pending = new Map();
  /** @type {Map<string, Call>} polyfill: the same calls by the id the page sees */
  const byLocal = new Map();
  /** @type {Set<string>} ids already answered, so that each id gets one reply ever */
  const answered = new Set();
  let localSeq = 0;

  // ---- helpers -------------------------------------------------------------------------

  /** @param {unknown} v @returns {v is Record<string, any>} */
  const isPlainObject = (v) =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.prototype.toString.call(v) === '[object Object]';

  /** UTF-8 length of a string, without allocating. @param {string} s */
  function utf8Length(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          n += 4;
          i++;
        } else n += 3;
      } else n += 3;
    }
    return n;
  }

  /** "17.2 MB", "16 MB", "900 KB", "12 bytes". @param {number} n */
  function formatBytes(n) {
    /** @param {number} x */
    const one = (x) => {
      const s = x.toFixed(1);
      return s.endsWith('.0') ? s.slice(0, -2) : s;
    };
    if (n >= 1024 * 1024) return one(n / (1024 * 1024)) + ' MB';
    if (n >= 1024) return one(n / 1024) + ' KB';
    return n + (n === 1 ? ' byte' : ' bytes');
  }

  /** @param {number} ms */
  function formatSeconds(ms) {
    const s = ms / 1000;
    return Number.isInteger(s) ? String(s) : s.toFixed(1);
  }

  /** JSON with sorted keys, to compare lists whatever order the page builds its objects in. @param {unknown} v @returns {string} */
  function canonical(v) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
    const o = /** @type {Record<string, unknown>} */ (v);
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(o[k])).join(',') + '}';
  }

  /**
   * Whether a JSON value is deeper than MAX_SCHEMA_DEPTH levels of objects/arrays (the value is
   * level 1) or longer than MAX_SCHEMA_BYTES as compact JSON. Iterative, and it stops early:
   * every value is at least one byte of JSON, so no more than MAX_SCHEMA_BYTES are visited.
   * @param {unknown} value @returns {{why: 'deep'|'big'} | {json: string}}
   */
  function checkJson(value) {
    /** @type {[unknown, number][]} */
    const stack = [[value, 1]];
    let visited = 0;
    while (stack.length) {
      const [v, depth] = /** @type {[any, number]} */ (stack.pop());
      if (v === null || typeof v !== 'object') continue;
      if (depth > MAX_SCHEMA_DEPTH) return { why: 'deep' };
      const items = Array.isArray(v) ? v : Object.values(v);
      visited += items.length;
      if (visited > MAX_SCHEMA_BYTES) return { why: 'big' };
      for (const x of items) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
    }
    const json = JSON.stringify(value);
    if (json.length * 3 > MAX_SCHEMA_BYTES && utf8Length(json) > MAX_SCHEMA_BYTES) return { why: 'big' };
    return { json };
  }

  /** @param {unknown} e */
  function messageOf(e) {
    let m;
    try {
      m = typeof e === 'string' ? e : e && typeof (/** @type {any} */ (e).message) === 'string' ? /** @type {any} */ (e).message : String(e);
    } catch {
      m = '';
    }
    m = m.trim();
    if (!m) return 'The tool failed without saying why.';
    return m.length > MAX_ERROR ? m.slice(0, MAX_ERROR) : m;
  }

  /**
   * What was left out of the frame's list, by reason (the codes of lib/tools.js), with a few
   * names, so the Inspector and the host can say so.
   * @typedef {{count: Record<string, number>, some: {name: string, why: string}[]}} Dropped
   */

  /** @param {Dropped} d @param {unknown} name @param {string} why */
  function drop(d, name, why) {
    d.count[why] = (d.count[why] || 0) + 1;
    if (d.some.length < MAX_DROP_EXAMPLES) d.some.push({ name: typeof name === 'string' ? name.slice(0, 128) : '', why });
  }

  /**
   * The part of a page's tool list that may leave the page: checked, trimmed, deduplicated,
   * at most MAX_TOOLS_PER_FRAME tools and MAX_SITE_BYTES of definitions.
   * @param {unknown} list @returns {{tools: Tool[], dropped: Dropped}}
   */
  function validate(list) {
    /** @type {Tool[]} */
    const out = [];
    /** @type {Dropped} */
    const dropped = { count: {}, some: [] };
    if (!Array.isArray(list)) return { tools: out, dropped };
    const seen = new Set();
    let bytes = 0;
    for (const t of list) {
      /** @type {unknown} */
      let name;
      try {
        name = t && typeof t === 'object' ? t.name : undefined;
        if (out.length >= MAX_TOOLS_PER_FRAME) {
          if (!(typeof name === 'string' && seen.has(name))) drop(dropped, name, 'count');
          continue;
        }
        if (typeof name !== 'string' || !NAME_RE.test(name)) {
          drop(dropped, name, 'name');
          continue;
        }
        if (seen.has(name)) continue;
        if (native && typeof t.origin === 'string' && t.origin !== location.origin) continue;
        seen.add(name);
        /** @type {Tool} */
        const tool = {
          name,
          description: typeof t.description === 'string' ? t.description.slice(0, MAX_DESCRIPTION) : '',
          source: native ? 'native' : PAGE_SOURCES.has(t.source) ? t.source : 'polyfill',
        };
        if (typeof t.title === 'string' && t.title) tool.title = t.title.slice(0, MAX_TITLE);
        if (isPlainObject(t.inputSchema)) {
          // A schema too deep or too big drops the tool: without it the tool would be another.
          const c = checkJson(t.inputSchema);
          if ('why' in c) {
            drop(dropped, name, c.why);
            continue;
          }
          tool.inputSchema = JSON.parse(c.json);
        }
        if (isPlainObject(t.annotations)) {
          /** @type {Record<string, boolean|string>} */
          const a = {};
          let n = 0;
          for (const k of Object.keys(t.annotations)) {
            if (n >= MAX_ANNOTATIONS || k.length > 64) continue;
            const v = t.annotations[k];
            if (typeof v === 'boolean') a[k] = v;
            else if (typeof v === 'string') a[k] = v.slice(0, MAX_ANNOTATION_STRING);
            else continue;
            n++;
          }
          if (n) {
            const c = checkJson(a);
            if ('why' in c) {
              drop(dropped, name, c.why);
              continue;
            }
            tool.annotations = a;
          }
        }
        const size = utf8Length(JSON.stringify(tool));
        if (bytes + size > MAX_SITE_BYTES) {
          drop(dropped, name, 'bytes');
          continue;
        }
        bytes += size;
        out.push(tool);
      } catch {
        drop(dropped, name, 'name'); // a hostile object (throwing getters): skip the tool
      }
    }
    return { tools: out, dropped };
  }

  // ---- the port to the service worker ------------------------------------------------------

  /** @param {unknown} msg */
  function send(msg) {
    if (!port) return;
    try {
      port.postMessage(msg);
    } catch {
      /* disconnected under us: onDisconnect reconnects */
    }
  }

  function connect() {
    if (dead || port) return;
    let p;
    try {
      p = chrome.runtime.connect({ name: PORT_NAME });
    } catch {
      dead = true; // "Extension context invalidated"
      return;
    }
    port = p;
    connectedAt = Date.now();
    sentCanon = null; // a new port: the list goes out again whatever it is
    p.onMessage.addListener(onPortMessage);
    p.onDisconnect.addListener(() => {
      void chrome.runtime.lastError;
      if (port !== p) return;
      port = null;
      dropCalls();
      if (!chrome.runtime?.id) {
        dead = true;
        return;
      }
      // A long-lived port that drops is a service-worker restart: come back at once. A port
      // that dies right away is refused: back off.
      backoff = Date.now() - connectedAt > 5000 ? 50 : Math.min(backoff * 2, 5000);
      clearTimeout(reconnectTimer);
      reconnectTimer = setTimeout(flush, backoff);
    });
  }

  function disconnect() {
    const p = port;
    port = null;
    dropCalls();
    try {
      p?.disconnect();
    } catch {
      /* already gone */
    }
  }

  /** Sends the list if the service worker does not have it. Connects lazily: a frame without
   * tools (valid or dropped) never wakes the service worker. */
  function flush() {
    if (dead) return;
    if (!port) {
      // A prerendered page is not one the user has opened (yet): it announces on activation.
      if (/** @type {any} */ (document).prerendering) return;
      if (current.length === 0 && !currentDropped) return;
      connect();
      if (!port) return;
    }
    if (sentCanon === currentCanon) return;
    sentCanon = currentCanon;
    send(currentDropped
      ? { type: 'tools', url: location.href, native, tools: current, dropped: currentDropped }
      : { type: 'tools', url: location.href, native, tools: current });
  }

  /** @param {{tools: Tool[], dropped: Dropped}} valid what validate() gave */
  function update({ tools, dropped }) {
    current = tools;
    currentDropped = dropped.some.length || Object.keys(dropped.count).length ? dropped : null;
    currentCanon = canonical(currentDropped ? [tools, currentDropped] : tools);
    flush();
  }

  /** @param {any} msg */
  function onPortMessage(msg) {
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'call') startCall(msg);
    else if (msg.type === 'cancel') cancelCall(msg.id);
    else if (msg.type === 'sync') {
      sentCanon = null;
      flush();
    }
  }

  // ---- calls ---------------------------------------------------------------------------

  /** @param {Call} call @param {Outcome} outcome */
  function finish(call, outcome) {
    if (call.done) return;
    call.done = true;
    clearTimeout(call.timer);
    pending.delete(call.id);
    if (call.local !== undefined) byLocal.delete(call.local);
    answered.add(call.id);
    if (answered.size > 4096) answered.delete(answered.values().next().value);
    send(outcome.ok
      ? { type: 'result', id: call.id, ok: true, value: outcome.value }
      : { type: 'result', id: call.id, ok: false, error: outcome.error });
  }

  /** @param {string} code @param {string} message @returns {Outcome} */
  const fail = (code, message) => ({ ok: false, error: { code, message } });

  /** @param {unknown} value @param {number} maxBytes @returns {Outcome} */
  function success(value, maxBytes) {
    let v = value;
    if (typeof v !== 'string') {
      try {
        v = v === undefined ? 'undefined' : JSON.stringify(v) ?? 'undefined';
      } catch {
        return fail('page_error', 'The page returned a result that is not JSON.');
      }
    }
    const s = /** @type {string} */ (v);
    // Cheap first: a UTF-16 unit is at most 3 UTF-8 bytes.
    if (s.length * 3 > maxBytes) {
      const n = utf8Length(s);
      if (n > maxBytes) {
        return fail('too_large', `The tool's result is ${formatBytes(n)}, over the ${formatBytes(maxBytes)} limit.`);
      }
    }
    return { ok: true, value: s };
  }

  /** Aborts the calls in flight without replying: their port is gone. */
  function dropCalls() {
    for (const call of [...pending.values()]) {
      call.done = true;
      clearTimeout(call.timer);
      try {
        call.abort();
      } catch {
        /* nothing to abort */
      }
    }
    pending.clear();
    byLocal.clear();
  }

  /** @param {any} msg */
  async function startCall(msg) {
    const id = msg.id;
    if (typeof id !== 'string' || !id || pending.has(id) || answered.has(id)) return;
    const timeoutMs = Number.isFinite(msg.timeout_ms) && msg.timeout_ms > 0 ? msg.timeout_ms : DEFAULT_TIMEOUT_MS;
    const maxBytes = Number.isFinite(msg.max_bytes) && msg.max_bytes > 0 ? msg.max_bytes : DEFAULT_MAX_BYTES;
    /** @type {Call} */
    const call = { id, done: false, timer: 0, maxBytes, abort: () => {} };
    pending.set(id, call);
    call.timer = setTimeout(() => {
      call.abort();
      finish(call, fail('timeout', `The page did not answer within ${formatSeconds(timeoutMs)} s.`));
    }, timeoutMs);

    const name = msg.tool;
    let args = msg.args;
    if (args === undefined || args === null) args = {};
    if (!isPlainObject(args)) {
      finish(call, fail('invalid_args', 'The arguments must be a JSON object.'));
      return;
    }
    if (typeof name !== 'string') {
      finish(call, fail('not_found', 'The call names no tool.'));
      return;
    }

    if (native) {
      let rt = registered.get(name);
      if (!rt) {
        await refreshNative(); // registered a moment ago, before toolchange reached us?
        rt = registered.get(name);
      }
      if (call.done) return;
      if (!rt) {
        finish(call, fail('not_found', `This page has no tool named "${name}" now.`));
        return;
      }
      const ac = new AbortController();
      call.abort = () => ac.abort();
      try {
        const value = await mc.executeTool(rt, args, { signal: ac.signal });
        finish(call, success(value, maxBytes));
      } catch (e) {
        finish(call, fail('page_error', messageOf(e)));
      }
      return;
    }

    if (!current.some((t) => t.name === name)) {
      finish(call, fail('not_found', `This page has no tool named "${name}" now.`));
      return;
    }
    // The page sees a per-frame counter, never the ids of the extension or the host.
    const local = String(++localSeq);
    call.local = local;
    byLocal.set(local, call);
    call.abort = () => toPage({ type: 'cancel', id: local });
    toPage({ type: 'call', id: local, name, args });
  }

  /** @param {unknown} id */
  function cancelCall(id) {
    if (typeof id !== 'string') return;
    const call = pending.get(id);
    if (!call) return;
    call.abort();
    finish(call, fail('cancelled', 'The call was cancelled.'));
  }

  // ---- native mode -------------------------------------------------------------------------

  /** @type {Promise<void>|null} */
  let refreshing = null;
  let refreshAgain = false;

  /** Re-reads getTools(); calls made while one read runs are folded into one more read. */
  function refreshNative() {
    refreshAgain = true;
    if (!refreshing) {
      refreshing = (async () => {
        while (refreshAgain) {
          refreshAgain = false;
          let list = [];
          try {
            list = await mc.getTools();
          } catch {
            list = [];
          }
          if (!Array.isArray(list)) list = [];
          const valid = validate(list);
          const keep = new Set(valid.tools.map((t) => t.name));
          const map = new Map();
          for (const rt of list) {
            try {
              if (rt && keep.has(rt.name) && !map.has(rt.name)) map.set(rt.name, rt);
            } catch {
              /* skip */
            }
          }
          registered = map;
          update(valid);
        }
        refreshing = null;
      })();
    }
    return refreshing;
  }

  // ---- polyfill mode: the channel to main-world.js -------------------------------------------

  /** @param {unknown} msg */
  function toPage(msg) {
    window.dispatchEvent(new CustomEvent(EXT_EVENT, { detail: JSON.stringify(msg) }));
  }

  /** @param {Event} ev */
  function onPageEvent(ev) {
    if (dead) return;
    let msg;
    try {
      const d = /** @type {CustomEvent} */ (ev).detail;
      if (typeof d !== 'string' || d.length > MAX_PAGE_MESSAGE) return;
      msg = JSON.parse(d);
    } catch {
      return;
    }
    if (!isPlainObject(msg)) return;
    switch (msg.type) {
      case 'ready':
        toPage({ type: 'sync' });
        break;
      case 'tools':
        update(validate(msg.tools));
        break;
      case 'result': {
        const call = typeof msg.id === 'string' ? byLocal.get(msg.id) : undefined;
        if (!call) return;
        if (msg.ok === true) {
          if (typeof msg.value !== 'string') finish(call, fail('page_error', 'The page returned an invalid result.'));
          else finish(call, success(msg.value, call.maxBytes));
        } else {
          finish(call, fail('page_error', messageOf(typeof msg.error === 'string' ? msg.error : '')));
        }
        break;
      }
    }
  }

  // ---- start -------------------------------------------------------------------------------

  // bfcache: Chrome closes extension ports when a page is frozen. Let go of ours on the way in,
  // take a fresh one (and re-send the list) on the way out.
  window.addEventListener('pagehide', (ev) => {
    if (ev.persisted) disconnect();
  });
  window.addEventListener('pageshow', (ev) => {
    if (native) refreshNative();
    // A port that exists now was opened since the restore (main-world.js re-announces on
    // pageshow too, and its listener may run first): it already carries the list.
    if (ev.persisted && !port) flush();
  });

  document.addEventListener('prerenderingchange', () => flush(), { once: true });

  if (native) {
    mc.addEventListener('toolchange', () => refreshNative());
    window.addEventListener('popstate', () => refreshNative());
    window.addEventListener('hashchange', () => refreshNative());
    refreshNative();
  } else {
    window.addEventListener(PAGE_EVENT, onPageEvent);
    toPage({ type: 'sync' }); // main-world.js may have started first: ask for its list
  }
})();
