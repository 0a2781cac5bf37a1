// WebMCP Sidecar, ISOLATED world, last file: the relay (injected by the worker into a frame whose
// stub, stub.js, saw it use WebMCP: lib/page-files.js).
//
// Relays between the page's tools and the service worker over a `webmcp-page` port
// (docs/PROTOCOL.md, "content script <-> service worker"). It trusts nothing the page says:
// names, sizes and counts are checked here before anything is forwarded, and the page is only
// ever handed its own tools' inputs. This file holds the port, the frame's tool list and the
// channel to the MAIN world; the calls themselves are calls.js's.
//
// - Native WebMCP: `document.modelContext` is visible in this world too, so tools are listed and
//   executed directly; only the top frame reports (Chromium's getTools() there already includes
//   same-origin iframes' tools, and getTools({fromOrigins}) the tools cross-origin frames
//   exposed to it).
// - Polyfill: the MAIN-world scripts (page/main/) own the tools; we speak to it with
//   CustomEvents whose detail is JSON text. Every frame of the top frame's origin reports, with
//   the `tools` permission its iframes were given (frame-policy.js); a cross-origin frame
//   reports only the tools it exposed to the top origin, and the worker checks both.
(() => {
  'use strict';

  // stub.js's mark says "our scripts are here" (open-tabs.js); this one, "the relay runs".
  const MARK = Symbol.for('webmcp-sidecar.relay');
  if (/** @type {any} */ (globalThis)[MARK]) return;
  /** @type {any} */ (globalThis)[MARK] = true;
  // No secure context, no WebMCP (see page/main/base.js): no tools to relay, no port, nothing
  // posted to the page or its frames.
  if (!isSecureContext) return;

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  const { canonicalJson } = ns.toolChecks;
  const { validate: validateList, isPlainObject } = ns.frameTools;
  const { allowedFrames, postGrants, listenForGrant, watch: watchFrames, exposingOrigins } = ns.framePolicy;

  const PAGE_EVENT = 'webmcp-sidecar:page'; // MAIN -> ISOLATED
  const EXT_EVENT = 'webmcp-sidecar:ext'; // ISOLATED -> MAIN
  const { PAGE_PORT_NAME: PORT_NAME } = ns.protocol;
  const MAX_PAGE_MESSAGE = 48 * 1024 * 1024; // a flood is read, then cut to the first tools

  /** @type {any} */
  const mc = /** @type {any} */ (document).modelContext;
  const native = !!mc;

  // Which frames speak for the site (see the header): 'site' (the top origin's frames), 'exposed'
  // (a cross-origin frame, polyfill: only the tools it exposed to the top origin), or null.
  /** @returns {'site'|'exposed'|null} */
  function reports() {
    if (native) return window === window.top ? 'site' : null;
    // The document's origin: an about:srcdoc / about:blank frame's URL origin is "null", but
    // it runs with its creator's origin, and its tools belong to that site.
    const origin = self.origin;
    if (origin === 'null') return null;
    const anc = location.ancestorOrigins;
    if (anc) {
      for (let i = 0; i < anc.length; i++) if (anc[i] !== origin) return 'exposed';
      return 'site';
    }
    try {
      return window === window.top || window.top?.location.origin === origin ? 'site' : 'exposed';
    } catch {
      return 'exposed';
    }
  }
  const mode = reports();
  if (!mode) return;
  const anc = location.ancestorOrigins;
  /** The top-level origin, as the browser gives it to this frame (null when it does not). */
  const topOrigin = anc && anc.length ? anc[anc.length - 1] : null;

  /**
   * @typedef {{name: string, title?: string, description: string, inputSchema?: object,
   *            annotations?: Record<string, boolean|string>, source: string, origin?: string,
   *            exposedTo?: string[]}} Tool
   * @typedef {{count: Record<string, number>, some: {name: string, why: string}[]}} Dropped
   */

  /** @type {Tool[]} the frame's validated list */
  let current = [];
  /** @type {Dropped|null} what validate() left out of it, if anything */
  let currentDropped = null;
  /** @type {{token: string, origins: string[]}[]} polyfill: this document's iframes given `tools` (frame-policy.js) */
  let allows = [];
  /** @type {string|null} polyfill, a cross-origin frame: the token its parent granted `tools` with */
  let grant = null;
  // One the stub (stub.js) heard before we came.
  if (typeof (/** @type {any} */ (globalThis).webmcpSidecarStub?.grant) === 'string') grant = /** @type {any} */ (globalThis).webmcpSidecarStub.grant;
  let currentCanon = '[]';
  /** @type {string|null} what the service worker has from us on this port (null: nothing yet) */
  let sentCanon = null;
  /** @type {chrome.runtime.Port|null} */
  let port = null;
  /** @type {{post: (msg: unknown) => boolean, close: () => void}|null} the port's frame lane */
  let lane = null;
  let dead = false; // the extension was reloaded or removed: this script is an orphan
  let connectedAt = 0;
  let backoff = 50;
  let reconnectTimer = 0;
  /** @type {Map<string, any>} native: RegisteredTool objects by name (executeTool needs them) */
  let registered = new Map();

  // ---- the port to the service worker ------------------------------------------------------

  /** To the worker on the port. @param {unknown} msg */
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
      closeLane();
      calls.drop();
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

  /**
   * Only calls and their cancels come on the lane (lane.js); the worker's other messages take
   * the port. A call that came on the lane is answered on it (answerOnLane: its reply).
   * @param {any} msg
   */
  function onLaneMessage(msg) {
    if (msg?.type === 'call') calls.start(msg, answerOnLane);
    else if (msg?.type === 'cancel') calls.cancel(msg.id);
  }

  /** The way back of a call that came on the lane: the lane, or the port once it is gone. @param {unknown} msg */
  function answerOnLane(msg) {
    if (port && lane?.post(msg)) return;
    send(msg);
  }

  function closeLane() {
    lane?.close();
    lane = null;
  }

  function disconnect() {
    const p = port;
    port = null;
    closeLane();
    calls.drop();
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
      if (current.length === 0 && !currentDropped && !allows.length) return;
      connect();
      if (!port) return;
    }
    if (sentCanon === currentCanon) return;
    sentCanon = currentCanon;
    /** @type {Record<string, unknown>} */
    const msg = { type: 'tools', url: location.href, native, tools: current };
    if (currentDropped) msg.dropped = currentDropped;
    if (allows.length) msg.allows = allows;
    if (grant) msg.grant = grant;
    send(msg);
  }

  /** @param {{tools: Tool[], dropped: Dropped}} valid what validate() gave */
  function update({ tools, dropped }) {
    if (mode === 'exposed') {
      // Only what this frame exposed to the top origin, claiming this document's origin (the
      // worker checks both against what the browser says of this frame and its tab).
      tools = tools
        .filter((t) => Array.isArray(t.exposedTo) && (!topOrigin || t.exposedTo.some((o) => originOf(o) === topOrigin)))
        .map((t) => ({ ...t, origin: self.origin }));
      dropped = { count: {}, some: [] };
    }
    current = tools;
    currentDropped = dropped.some.length || Object.keys(dropped.count).length ? dropped : null;
    recanon();
    flush();
  }

  function recanon() {
    currentCanon = canonicalJson([current, currentDropped, allows, grant]);
  }

  /** @param {string} u */
  function originOf(u) {
    try {
      return new URL(u).origin;
    } catch {
      return null;
    }
  }

  /** Polyfill, the top origin's frames: the `tools` permission of this document's iframes. */
  function readAllows() {
    const next = allowedFrames().map((f) => ({ token: f.token, origins: f.origins }));
    postGrants(); // the iframes' documents may be new (a load)
    if (canonicalJson(next) === canonicalJson(allows)) return;
    allows = next;
    recanon();
    flush();
  }

  /** @param {any} msg */
  function onPortMessage(msg) {
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'call') {
      // The first call asks for a frame lane for the next ones (lane.js): a document nobody
      // calls never gets the bridge frame.
      if (!lane && port) {
        lane = ns.lane.open({ claim: (/** @type {string} */ nonce) => send({ type: 'lane', nonce }), onMessage: onLaneMessage });
      }
      calls.start(msg);
    } else if (msg.type === 'cancel') calls.cancel(msg.id);
    else if (msg.type === 'sync') {
      sentCanon = null;
      flush();
    }
  }

  // ---- native mode: getTools() read again on changes, Chromium's hidden errors (native-tools.js)

  const nativeTools = ns.nativeTools.create({
    mc, native, exposingOrigins, validateList,
    onList: (/** @type {Map<string, any>} */ map, /** @type {any} */ valid) => {
      registered = map;
      update(valid);
    },
  });
  const refreshNative = () => nativeTools.refresh();

  // ---- calls (calls.js) ----------------------------------------------------------------------

  // Made before the pagehide listener below: leaving.js's, which it adds, must run first.
  const calls = ns.calls.create({
    native, mc, nativeTools, send, toPage,
    hasTool: (/** @type {string} */ name) => current.some((t) => t.name === name),
    nativeTool: (/** @type {string} */ name) => registered.get(name),
  });

  // ---- polyfill mode: the channel to the MAIN world (page/main/bridge.js) -------------------------------------------

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
        update(validateList(msg.tools, false));
        break;
      case 'result':
        calls.pageResult(msg);
        break;
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
    // A port that exists now was opened since the restore (the MAIN world re-announces on
    // pageshow too, and its listener may run first): it already carries the list.
    if (ev.persisted && !port) flush();
  });

  document.addEventListener('prerenderingchange', () => flush(), { once: true });

  if (mode === 'site') {
    watchFrames(() => (native ? refreshNative() : readAllows()));
    if (!native) readAllows(); // iframes already there (files injected into an open tab)
  } else {
    listenForGrant((t) => {
      if (t === grant) return;
      grant = t;
      recanon();
      flush();
    });
  }
  if (native) {
    mc.addEventListener('toolchange', () => refreshNative());
    window.addEventListener(PAGE_EVENT, (ev) => nativeTools.onPageEvent(ev));
    window.addEventListener('popstate', () => refreshNative());
    window.addEventListener('hashchange', () => refreshNative());
    refreshNative();
  } else {
    window.addEventListener(PAGE_EVENT, onPageEvent);
    // The list that made the stub ask for us (stub.js), else the MAIN world's, asked for.
    const stub = /** @type {any} */ (globalThis).webmcpSidecarStub;
    const last = stub?.last;
    if (stub) stub.relay = true;
    if (typeof last === 'string') onPageEvent(/** @type {any} */ ({ detail: last }));
    else toPage({ type: 'sync' });
  }
})();
