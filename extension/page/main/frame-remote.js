// WebMCP Sidecar, MAIN world: the polyfill across cross-origin frames, as Chromium 156 does it.
// A document's getTools({fromOrigins: [o]}) lists the tools that its cross-origin relatives of
// origin `o` (its ancestors, its descendant frames) registered with `exposedTo` naming this
// document's origin; a descendant counts only when each iframe down to it has the `tools`
// permission (allow="tools"; read from the iframe's attribute, all a polyfill can know: a frame
// between of another origin is asked about its own iframe, `grant?`). executeTool runs such a tool in its
// frame: results, failures and aborts come back as Chromium gives them, and a call pending in a
// frame that goes away rejects. The frames talk with postMessage: the page can see these
// messages (the spec's model has them in the browser), so they carry only what the receiving
// origin may see: each list is posted for the origin its tools are exposed to (targetOrigin),
// every message is checked by event.source (this window's ancestor or a descendant frame) and
// event.origin, and names the receiving document by its random id (a frame's next document is
// another peer). Chromium keeps one registry per page, so a document also lists (and runs) what
// its same-origin relatives' cross-origin relatives exposed to their origin, through each
// frame's `Symbol.for('webmcp-sidecar.frame-remote')` hook, which only same-origin documents
// can read. docs/WEBMCP_WPT.md, "Polyfill vs Chromium".
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const {
    W, D, rApply, oCreate, oFreeze, oDefineProperty, jsonStringify, StringC, MapC, SetC, DOMExceptionC, listen, isObj, elGetAttribute,
    docQuerySelectorAll, abortReason, task, plainJson, annotationsOut, unknownTool,
    originOf, frameGrants, later, readRows, safeParse, FRAME_MAX_FIELD: MAX_FIELD, toolsDenied,
    msgDataGet: dataGet, msgOriginGet: originGet, msgSourceGet: sourceGet, frameWindowGet, frameSrcGet, setTimeoutC,
    randomUUID, cryptoObj, surface,
  } = ns;

  const KEY = 'webmcp-sidecar:frames';
  const HOOK = Symbol.for('webmcp-sidecar.frame-remote');
  const MAX_TEXT = 16 * 1024 * 1024; // a message (a result may be large)
  const MAX_LIST = 1024 * 1024; // a list of tools
  const MAX_FRAMES = 256;
  const SELF = StringC(W.origin);
  // This window's ancestors of other origins, nearest first (each named by ancestorOrigins).
  /** @type {{win: any, origin: string}[]} */
  const ANCESTORS = [];
  for (let w = W, i = 0; w.parent !== w && i < 32; i++) {
    w = w.parent;
    const o = StringC(location.ancestorOrigins?.[i] ?? '');
    if (o && o !== SELF && o !== 'null') ANCESTORS[ANCESTORS.length] = { win: w, origin: o };
  }
  const CID = StringC(rApply(randomUUID, cryptoObj, []));
  /**
   * Connects this document's registry to its cross-origin relatives.
   * @param {{
   *   tools: Map<string, any>,
   *   runHere: (name: string, input: unknown, signal: AbortSignal|undefined, settle: (kind: string, v: unknown) => void) => boolean,
   *   fire: (type: string) => void,
   * }} registry
   */
  function installRemote({ tools, runHere, fire }) {
    /**
     * @typedef {{win: any, origin: string, cid: string, up: boolean, rows: any[], rowsText: string, sent: string,
     *   grants: Map<string, {win: any, ok: boolean}>, asked: Set<string>, waiting?: boolean, wantsList?: boolean,
     *   askedPolicy?: boolean}} Peer
     *   up: an ancestor; grants: its word on its own iframes' permission (by `index origin`), asked: the questions put
     *   to it; waiting / wantsList: a list / an ask of a descendant whose permission was not known yet
     */
    /** @type {Map<any, Peer>} relatives of another origin that spoke to us, by their window */
    const peers = new MapC();
    /** @type {Map<string, {win: any, cid: string, settle: (kind: string, v: unknown) => void}>} our calls */
    const pending = new MapC();
    /** @type {Map<string, AbortController>} their calls running here, by `cid id` */
    const incoming = new MapC();
    let seq = 0;
    if (SELF === 'null') return { frames: () => [], run: () => false, changed() {}, policy: (/** @type {(ok: boolean) => void} */ f) => f(true) };

    // ---- this document's own `tools` permission (Chromium: NotAllowedError without it): known at
    // once at the top and under a parent of this origin (its iframe's `allow`, and the parent's own
    // permission through its hook); else asked of the parent (`policy?`), which reads its iframe
    // as Chromium would (`src`'s origin: a frame that navigated elsewhere has none).
    const mine = later();
    const policy = mine.when;
    let askParent = false;
    if (toolsDenied) mine.set(false);
    else if (W.parent === W) mine.set(true);
    else {
      const el = W.frameElement; // null under a parent of another origin
      if (el) {
        let ok = true;
        try {
          ok = frameGrants(StringC(rApply(elGetAttribute, el, ['allow']) ?? ''), StringC(rApply(frameSrcGet, el, [])), SELF, SELF);
        } catch {
          /* not an iframe (object, embed): the default */
        }
        const up = W.parent[HOOK]; // a parent of this origin
        if (up && typeof up.policy === 'function') rApply(up.policy, undefined, [(/** @type {boolean} */ p) => mine.set(p && ok)]);
        else mine.set(ok);
      } else if (/^https?:/.test(StringC(location.ancestorOrigins?.[0] ?? ''))) askParent = true;
      else mine.set(true);
    }

    /** The same-origin frames' remote hooks (this one's first), from frame-tree.js's tree. */
    const relatives = () => {
      const out = [];
      for (const f of ns.tree()) {
        try {
          const h = f.win === W ? own : f.win[HOOK];
          if (h && typeof h.frames === 'function' && !out.includes(h)) out[out.length] = h;
        } catch {
          /* a frame going away */
        }
      }
      if (!out.includes(own)) out.unshift(own);
      return out;
    };

    /** @param {any} win @param {string} origin @param {Record<string, unknown>} msg */
    const send = (win, origin, msg) => {
      try {
        win.postMessage({ [KEY]: jsonStringify({ ...msg, from: CID }) }, origin);
      } catch {
        /* a window going away */
      }
    };

    /**
     * A child `win` of origin `origin` holds the `tools` permission, as its iframe in `doc` (this
     * document, or a same-origin one's) says now. @param {any} win @param {string} origin
     */
    const allowed = (win, origin, doc = D) => {
      const list = rApply(docQuerySelectorAll, doc, ['iframe']);
      for (let i = 0; i < list.length && i < MAX_FRAMES; i++) {
        if (rApply(frameWindowGet, list[i], []) !== win) continue;
        const f = list[i];
        return frameGrants(StringC(rApply(elGetAttribute, f, ['allow']) ?? ''), StringC(rApply(frameSrcGet, f, [])), SELF, origin);
      }
      return false;
    };
    /** `win` is a frame below this document's. @param {any} win */
    const below = (win) => {
      try {
        for (let w = win, i = 0; i < 32 && w.parent !== w; i++, w = w.parent) if (w.parent === W) return true;
      } catch {
        /* a window going away */
      }
      return false;
    };
    /**
     * A descendant `win` of `origin` holds the permission: every iframe from here down to it
     * gives it on. This document reads its own and same-origin documents' iframes; a frame
     * between of another origin is asked about its own (once; the answer rechecks, see `grant`).
     * @param {any} win @param {string} origin @returns {boolean}
     */
    const permitted = (win, origin, depth = 0) => {
      let up;
      try {
        up = win.parent;
      } catch {
        return false;
      }
      if (!up || up === win || depth > 32) return false;
      if (up === W) return allowed(win, origin);
      const q = peers.get(up);
      if (!q) {
        let doc = null;
        try {
          doc = up.document; // a document of this origin between: read its iframe
        } catch {
          return false; // another origin's that has not spoken yet
        }
        return !!doc && allowed(win, origin, doc) && permitted(up, SELF, depth + 1);
      }
      if (q.up || !permitted(up, q.origin, depth + 1)) return false;
      let index = 0;
      while (index < q.win.length && q.win[index] !== win) index++;
      const key = index + ' ' + origin;
      const g = q.grants.get(key);
      if (g && g.win === win) return g.ok;
      if (!q.asked.has(key) && q.asked.size < MAX_FRAMES) {
        q.asked.add(key);
        send(q.win, q.origin, { t: 'grant?', to: q.cid, index, origin });
      }
      return false;
    };
    /** @param {Peer} p */
    const counts = (p) => p.up || permitted(p.win, p.origin);
    /** Descendants waiting on a permission: the ones it now holds are listed (and answered). */
    const recheck = () => {
      for (const r of peers.values()) {
        if (r.up || !(r.waiting || r.wantsList) || !counts(r)) continue;
        if (r.waiting && r.rows.length) {
          fire('toolchange');
          ns.notifyOthers();
        }
        if (r.wantsList) offer(r.win, r.origin, r, true);
        r.waiting = r.wantsList = false;
      }
    };

    /** This document's tools exposed to `origin`, as rows. @param {string} origin */
    const exposedTo = (origin) => {
      const out = [];
      for (const e of tools.values()) {
        if (!e.exposedTo || !e.exposedTo.some((/** @type {string} */ o) => originOf(o) === origin)) continue;
        out[out.length] = {
          name: e.name, title: StringC(e.title ?? ''), description: StringC(e.description),
          inputSchema: e.inputSchema === undefined ? undefined : plainJson(e.inputSchema),
          annotations: e.annotations === undefined ? undefined : annotationsOut(e.annotations),
        };
      }
      return out;
    };

    /**
     * Tells `win` (of `origin`) the tools exposed to it, when they changed or `always`; `ask`
     * asks for its list back (only a document's first word: an answer never asks, no ping-pong).
     * @param {any} win @param {string} origin @param {Peer} [p] @param {boolean} [always] @param {boolean} [ask]
     */
    const offer = (win, origin, p, always = false, ask = false) => {
      const text = plainJson(exposedTo(origin));
      if (p && !always && p.sent === text) return;
      if (p) p.sent = text;
      send(win, origin, { t: 'list', to: p ? p.cid : '', tools: text, ask });
    };

    /** A relative gone (its document left): its tools go, calls pending there reject. @param {Peer} p */
    const drop = (p) => {
      if (peers.get(p.win) === p) peers.delete(p.win);
      for (const [id, c] of [...pending]) {
        if (c.win !== p.win || c.cid !== p.cid) continue;
        pending.delete(id);
        task(() => c.settle('gone', undefined));
      }
    };

    /** @param {MessageEvent} ev */
    const onMessage = (ev) => {
      let data, origin, source;
      try {
        data = rApply(dataGet, ev, []);
        origin = StringC(rApply(originGet, ev, []));
        source = rApply(sourceGet, ev, []);
      } catch {
        return;
      }
      const text = isObj(data) ? data[KEY] : undefined;
      if (typeof text !== 'string' || text.length > MAX_TEXT || !source) return;
      if (origin === SELF || origin === 'null') return; // same-origin frames: frame-tree.js
      const up = ANCESTORS.some((a) => a.win === source);
      // Only this window's relatives (a child removed from the document still says goodbye).
      if (up ? !ANCESTORS.some((a) => a.win === source && a.origin === origin) : !(peers.has(source) || below(source))) return;
      const m = safeParse(text);
      if (!isObj(m) || typeof m.from !== 'string' || m.from.length > 64 || typeof m.t !== 'string') return;
      let p = peers.get(source);
      if (p && (p.cid !== m.from || p.origin !== origin)) {
        drop(p); // another document in that frame now
        p = undefined;
      }
      if (m.t === 'policy' ? m.to !== CID : m.t !== 'list' && m.t !== 'policy?' && (!p || m.to !== CID)) return;
      if (!p) {
        p = { win: source, origin, cid: m.from, up, rows: [], rowsText: '[]', sent: '', grants: new MapC(), asked: new SetC() };
        peers.set(source, p);
      }
      if (m.t === 'list') {
        if (typeof m.tools !== 'string' || m.tools.length > MAX_LIST) return;
        const rows = readRows(safeParse(m.tools));
        const ok = counts(p);
        if (rows && m.tools !== p.rowsText) {
          p.rows = rows; // listed only while it counts (frames())
          p.rowsText = m.tools;
          if (ok) {
            fire('toolchange');
            ns.notifyOthers(); // the page's other documents of this origin list these tools too
          } else p.waiting = true;
        }
        if (m.ask && ok) offer(source, origin, p, true);
        else if (m.ask) p.wantsList = true;
        recheck(); // a new relative may be the frame between that a descendant waits on
      } else if (m.t === 'grant?' && p.up && Number.isInteger(m.index) && m.index >= 0 && typeof m.origin === 'string') {
        // An ancestor asks about one of our iframes (it knows its window and origin already).
        send(source, origin, { t: 'grant', to: p.cid, index: m.index, origin: m.origin, ok: allowed(W[m.index], m.origin) });
      } else if (m.t === 'grant' && !p.up && Number.isInteger(m.index) && typeof m.origin === 'string') {
        const key = m.index + ' ' + m.origin;
        if (!p.asked.has(key)) return;
        p.grants.set(key, { win: p.win[m.index], ok: m.ok === true });
        recheck();
      } else if (m.t === 'policy?' && !p.up && !p.askedPolicy) {
        p.askedPolicy = true; // once per document: a flood adds nothing
        // A child asks about its own permission: ours, and what its iframe gives its origin.
        const child = source;
        const cid = p.cid;
        if (child.parent === W) policy((ok) => send(child, origin, { t: 'policy', to: cid, ok: ok && allowed(child, origin) }));
      } else if (m.t === 'policy' && p.up && source === W.parent) mine.set(m.ok === true);
      else if (m.t === 'call') onCall(p, m);
      else if (m.t === 'cancel') incoming.get(p.cid + ' ' + StringC(m.id))?.abort();
      else if (m.t === 'result') {
        const c = pending.get(StringC(m.id));
        if (!c || c.win !== source || c.cid !== p.cid) return;
        pending.delete(StringC(m.id));
        if (m.ok === true && typeof m.value === 'string') c.settle('ok', m.value);
        else c.settle('reject', new DOMExceptionC(StringC(m.message ?? '').slice(0, MAX_FIELD), StringC(m.name ?? 'UnknownError').slice(0, 64)));
      } else if (m.t === 'bye') drop(p);
    };

    /** Runs a relative's call of one of our tools exposed to it. @param {Peer} p @param {any} m */
    const onCall = (p, m) => {
      const id = StringC(m.id);
      const key = p.cid + ' ' + id;
      const e = tools.get(StringC(m.name));
      /** @param {Record<string, unknown>} r */
      const reply = (r) => send(p.win, p.origin, { t: 'result', to: p.cid, id, ...r });
      const gone = unknownTool();
      const input = typeof m.input === 'string' ? safeParse(m.input) : undefined;
      const exposed = e && e.exposedTo && e.exposedTo.some((/** @type {string} */ o) => originOf(o) === p.origin);
      if (!exposed || !counts(p) || !isObj(input) || incoming.has(key)) return reply({ ok: false, name: gone.name, message: gone.message });
      const ac = new AbortController();
      incoming.set(key, ac);
      const ran = runHere(e.name, input, ac.signal, (kind, v) => {
        incoming.delete(key);
        if (ac.signal.aborted) return; // the caller has settled already
        if (kind === 'ok') return reply({ ok: true, value: v });
        const err = v instanceof DOMExceptionC ? v : gone;
        reply({ ok: false, name: err.name, message: err.message });
      });
      if (!ran) {
        incoming.delete(key);
        reply({ ok: false, name: gone.name, message: gone.message });
      }
    };

    rApply(listen, W, ['message', onMessage]);
    // What relatives said before this file came (surface.js held it, and asked for us).
    for (const ev of surface.held()) onMessage(ev);
    rApply(listen, W, ['pagehide', () => {
      for (const p of [...peers.values()]) {
        send(p.win, p.origin, { t: 'bye', to: p.cid });
        drop(p);
      }
    }]);
    // A document back from the back/forward cache says hello again.
    rApply(listen, W, ['pageshow', (/** @type {PageTransitionEvent} */ ev) => {
      if (ev.persisted) for (const a of ANCESTORS) offer(a.win, a.origin, undefined, true, true);
    }]);
    // Our ancestors of other origins hear of us at once (and answer with their own lists).
    for (const a of ANCESTORS) offer(a.win, a.origin, undefined, true, true);
    if (askParent) {
      send(W.parent, StringC(location.ancestorOrigins?.[0]), { t: 'policy?', to: '' });
      // A parent that never answers (not injected yet after an install, or it stops our listener)
      // must not hold the API forever.
      rApply(setTimeoutC, W, [() => mine.set(true), 5000]);
    }

    /** This document's own cross-origin relatives, for it and its same-origin relatives. */
    const own = oCreate(null);
    /** The relatives of `origins` whose tools may be listed, as frame-tree.js frames. @param {string[]|undefined} origins */
    own.frames = (origins) => {
      const want = (origins || []).map((o) => originOf(o));
      const out = [];
      for (const p of peers.values()) {
        if (!want.includes(p.origin) || !p.rows.length || !counts(p)) continue;
        const rows = p.rows;
        out[out.length] = { win: p.win, hook: { list: () => rows, origin: p.origin } };
      }
      return out;
    };
    /**
     * Runs a relative's tool in its frame; false when `ref` names none of ours.
     * @param {{name: string, origin: string, window: any}} ref @param {unknown} input
     * @param {AbortSignal|undefined} signal @param {(kind: string, v: unknown) => void} settle
     */
    own.run = (ref, input, signal, settle) => {
      const p = peers.get(ref.window);
      if (!p || ref.origin !== p.origin || !counts(p) || !p.rows.some((r) => r.name === ref.name)) return false;
      const id = StringC(++seq);
      pending.set(id, { win: p.win, cid: p.cid, settle });
      if (signal) {
        rApply(listen, signal, ['abort', () => {
          if (!pending.delete(id)) return;
          // As Chromium: the call rejects at once, inside abort(); the tool hears of it later.
          settle('reject', abortReason(signal));
          send(p.win, p.origin, { t: 'cancel', to: p.cid, id });
        }, { once: true }]);
      }
      send(p.win, p.origin, { t: 'call', to: p.cid, id, name: ref.name, input: jsonStringify(input) });
      return true;
    };
    own.policy = policy;
    oFreeze(own);
    // Its relatives reach `own` through the hook surface.js put on this window at document_start.

    return {
      /**
       * The cross-origin frames of `origins` whose tools this document lists: its own relatives'
       * and its same-origin relatives' (each window once). @param {string[]|undefined} origins
       */
      frames(origins) {
        const out = [];
        const wins = [];
        for (const h of relatives()) {
          let list;
          try {
            list = rApply(h.frames, undefined, [origins]);
          } catch {
            continue; // a frame going away
          }
          for (const f of list) {
            if (wins.includes(f.win)) continue;
            wins[wins.length] = f.win;
            out[out.length] = f;
          }
        }
        return out;
      },
      /** Runs a listed tool through the document whose relative it is (see `frames`). */
      run(/** @type {any} */ ref, /** @type {unknown} */ input, /** @type {AbortSignal|undefined} */ signal, /** @type {(kind: string, v: unknown) => void} */ settle) {
        for (const h of relatives()) {
          try {
            if (rApply(h.run, undefined, [ref, input, signal, settle])) return true;
          } catch {
            /* a frame going away */
          }
        }
        return false;
      },
      policy,
      own,
      /** This document's list changed: each relative hears what is exposed to it. */
      changed() {
        for (const p of peers.values()) if (counts(p)) offer(p.win, p.origin, p);
        for (const a of ANCESTORS) if (!peers.has(a.win)) offer(a.win, a.origin);
      },
    };
  }

  Object.assign(ns, { installRemote });
})();
