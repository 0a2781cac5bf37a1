// A chat page's isolated side (docs/CHAT_SITES.md), loaded by the worker (background/chat-sites.js)
// into tabs of a site a chat-site adapter names. It asks the worker for this site's state (on its
// `webmcp-chat` port), shows the toolbar (ui.js), answers the MAIN-world hook's question about
// each request (adds the instruction block to the first message; watches the adapter's request),
// reads the watched answers as they stream (lib/chat/streams.js) and catches tool calls as soon
// as they close (lib/chat/tool-calls.js); fallbacks: the whole answer at its end, the last answer
// in the DOM, a pasted call. A call runs only by the user's click (or auto-run: read-only tools
// when the site allows it, any tool the user allowed one by one); its result goes into the input
// box the way the page's editor takes text, and is sent if allowed (page/chat/input.js).
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  if (ns.chatPage) return;
  const { path, streams, calls } = ns.chat;
  const box = ns.chatInput; // page/chat/input.js: put text in the page's editor, send it
  const TO_ISOLATED = 'webmcp-sidecar:chat-page';
  const FROM_ISOLATED = 'webmcp-sidecar:chat-answer';
  const DOM_SETTLE_MS = 400;
  const DOM_WAIT_MS = 8_000;
  const MAX_STREAMS = 8;
  /** After the user sends, how long the adapter's request may take to show before we say so. */
  const SEEN_WAIT_MS = 8_000;
  /** Reading an answer from the page: how long it may take, and unchanged how long is settled. */
  const DOM_READ_MS = 180_000;
  const DOM_SETTLED_POLLS = 5;
  /** Auto-send waits at most this long for the answer to end (models often write on after a call). */
  const ANSWER_END_WAIT_MS = 120_000;

  const port = chrome.runtime.connect({ name: ns.protocol.CHAT_PORT_NAME }); // generated-limits.js
  /** @type {any} */
  let state = null;
  let armed = false; // the next matching request carries the instruction block
  let lastBlock = null;
  let awaitingRoundTrip = false; // a result went back: the next answer that reads well verifies the adapter
  let cardSeq = 0;
  /** @type {Map<number, {call: any, tool: any, card: any, running?: boolean}>} */
  const open = new Map();
  /** @type {Map<number, {reader: any, scanner: any, found: number, before: {count: number, text: string}, adapter: any}>} */
  const watched = new Map();
  // Never a silent failure: a message the user sent with no watched request for it, or a watched
  // answer that could not be read, says so in the toolbar and offers reading the page instead.
  let requestsSeen = 0; // watched requests so far (a send checks that one came after it)
  let domMode = false; // the user chose to read answers from the page (this tab, until reload)
  /** The page's last answer when the last unanswered send happened (for the DOM path). */
  let sentBefore = /** @type {{count: number, text: string}|null} */ (null);
  let staleText = '';

  const ui = ns.chatUi.create({
    set: (change) => port.postMessage({ type: 'set', ...change }),
    run: (id) => run(id),
    deny: (id) => {
      const c = open.get(id);
      if (!c) return;
      open.delete(id);
      c.card.done('Denied: nothing ran.');
    },
    paste: (text) => {
      const found = calls.callsIn(text);
      if (!found.length) ui.say('No <tool_call>…</tool_call> found in what you pasted.');
      for (const call of found) caught(call, true);
    },
    rearm: () => { armed = true; ui.say('The tools will be described again with your next message.'); render(); },
    domPath: () => {
      domMode = true;
      ui.warn(staleText, true);
      render();
      if (sentBefore) void domRead(sentBefore);
    },
    addToInput: () => {
      if (!state?.block) return;
      const input = document.querySelector(state.adapter.selectors.input);
      if (!input) return ui.say(`The input box (${state.adapter.selectors.input}) was not found on this page.`);
      if (!box.put(input, state.block + box.textOf(input))) ui.say('The input box did not take the tools; paste them yourself.');
      armed = false;
      render();
    },
  });
  // For debugging and the e2e tests (the isolated world only, out of the page's reach). The
  // e2e test of a stale adapter sets `seenWaitMs` lower rather than wait the real 8 s.
  ns.chatPage = { ui, seenWaitMs: SEEN_WAIT_MS };

  function render() {
    if (state) ui.render({ ...state, armed, inputMode: domMode || !state.adapter.request.message_path });
  }

  port.onMessage.addListener((msg) => {
    if (msg?.type === 'state') {
      state = msg;
      if (state.block !== lastBlock) { armed = !!state.block; lastBlock = state.block; }
      render();
    } else if (msg?.type === 'result') {
      void finished(msg.req, msg.outcome);
    }
  });
  port.postMessage({ type: 'hello' });

  // --- requests and streams, from the MAIN-world hook --------------------------------------------

  /** An adapter's URL pattern as a RegExp: `*` any run; a pattern starting `/` is on this origin. */
  function urlMatches(pattern, url) {
    const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    let u;
    try { u = new URL(url); } catch { return false; }
    if (pattern.startsWith('/')) return u.origin === location.origin && re.test(u.pathname + u.search);
    return re.test(u.href);
  }

  const reply = (msg) => window.dispatchEvent(new CustomEvent(FROM_ISOLATED, { detail: JSON.stringify(msg) }));

  window.addEventListener(TO_ISOLATED, (e) => {
    let msg;
    try { msg = JSON.parse(String(/** @type {any} */ (e).detail)); } catch { return; }
    if (!state?.enabled || !msg || typeof msg !== 'object') return;
    try {
      if (msg.type === 'request') onRequest(msg);
      else if (msg.type === 'chunk') onChunk(msg);
      else if (msg.type === 'end') void onEnd(msg);
    } catch (err) {
      ui.say(`Reading the chat failed: ${String(err?.message ?? err).slice(0, 200)}`);
    }
  });

  function onRequest(msg) {
    // The site's adapter, or another enabled one for this site (a site that runs two apps).
    if (typeof msg.url !== 'string') return;
    const which = [state.adapter, ...(state.alternates ?? [])]
      .find((a) => msg.method === a.request.method && urlMatches(a.request.url, msg.url));
    if (!which) return;
    const req = which.request;
    requestsSeen++;
    sentBefore = null;
    let body;
    let bin = false;
    if (armed && state.block && req.message_path && typeof msg.body === 'string') {
      const steps = path.parsePath(req.message_path);
      const add = (doc) => (steps ? path.updatePath(doc, steps, (old) => (typeof old === 'string' ? `${state.block}\n${old}` : undefined)) : undefined);
      if (req.envelope === 'connect') {
        // A Connect-RPC body: the message is JSON inside a binary envelope (bytes as a binary string).
        const bytes = msg.bin ? streams.bytesOf(msg.body) : null;
        const out = bytes && streams.rewriteConnect(bytes, add);
        if (out) { body = streams.binaryOf(out); bin = true; }
      } else {
        let doc;
        try { doc = msg.bin ? undefined : JSON.parse(msg.body); } catch { doc = undefined; }
        const changed = doc !== undefined ? add(doc) : undefined;
        if (changed !== undefined) body = JSON.stringify(changed);
      }
      if (body !== undefined) {
        armed = false;
        render();
      } else {
        stale(`the chat's request has no text at ${req.message_path}${req.envelope ? ` (in a ${req.envelope} envelope)` : ''}, so the tools could not be added to your message.`, lastAnswer());
      }
    }
    if (watched.size >= MAX_STREAMS) watched.delete(/** @type {number} */ (watched.keys().next().value));
    watched.set(msg.id, { reader: streams.answerReader(which.response), scanner: calls.callScanner(), found: 0, before: lastAnswer(), adapter: which });
    reply({ watch: true, body, bin, binary: which.response.kind === 'connect' });
  }

  function onChunk(msg) {
    const w = watched.get(msg.id);
    if (!w || w.adapter.response.kind === 'dom') return;
    const chunk = typeof msg.bin === 'string' ? streams.bytesOf(msg.bin) : msg.text;
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) return;
    for (const call of w.scanner.scan(w.reader.push(chunk))) { w.found++; caught(call); }
  }

  async function onEnd(msg) {
    const w = watched.get(msg.id);
    if (!w) return;
    watched.delete(msg.id);
    const { response, request } = w.adapter;
    if (response.kind !== 'dom') {
      for (const call of w.scanner.finish(w.reader.end())) { w.found++; caught(call); }
    }
    const readable = w.reader.events > 0;
    if (!readable && !msg.broken && response.kind !== 'dom') {
      stale(`the answer to ${request.url} came back, but no text was found in it where the adapter looks (${response.kind}).`, w.before);
    }
    if (readable) ui.fine(`Working: the last answer was read from the chat's ${response.kind === 'connect' ? 'Connect-RPC' : response.kind.toUpperCase()} stream (${new Date().toLocaleTimeString()}).`);
    if (readable && awaitingRoundTrip) {
      awaitingRoundTrip = false;
      port.postMessage({ type: 'round_trip', name: w.adapter.name });
    }
    if (w.found) return;
    // Fallback: the answer as the page shows it, once it has settled.
    const text = await settledAnswer(w.before);
    if (text === null) return;
    if (response.kind === 'dom') ui.fine(`Working: the last answer was read from the page (${new Date().toLocaleTimeString()}).`);
    if (response.kind === 'dom' && awaitingRoundTrip) {
      // An adapter that reads the page: its round trip is the answer read from `last_answer`.
      awaitingRoundTrip = false;
      port.postMessage({ type: 'round_trip', name: w.adapter.name });
    }
    for (const call of calls.callsIn(text)) caught(call);
  }

  /** The adapter did not match: the toolbar says so (and the side panel's view, through the worker). */
  function stale(text, before) {
    staleText = text;
    sentBefore = before;
    ui.warn(text, domMode);
    port.postMessage({ type: 'stale', reason: text.slice(0, 300) });
  }

  /** The user (or auto-send) sent a message: its request should come, unless the adapter is stale. */
  function userSent(seen = requestsSeen, before = lastAnswer()) {
    if (!state?.enabled) return;
    if (domMode) { void domRead(before); return; }
    setTimeout(() => {
      if (requestsSeen === seen && state?.enabled) {
        stale(`no request to ${state.adapter.request.url} was seen for the message you sent, so the tools were not added and the answer is not read.`, before);
      }
    }, ns.chatPage.seenWaitMs);
  }

  // Trusted sends only (the user's own Enter or click, before the page sees it, with text in
  // the box; auto-send calls userSent itself).
  const hasDraft = () => {
    const input = document.querySelector(state.adapter.selectors.input);
    return !!input && !!box.textOf(input).trim();
  };
  document.addEventListener('keydown', (e) => {
    if (!e.isTrusted || e.key !== 'Enter' || e.shiftKey || e.isComposing || !state) return;
    if (within(e.target, state.adapter.selectors.input) && hasDraft()) userSent();
  }, true);
  document.addEventListener('click', (e) => {
    if (e.isTrusted && state?.adapter.selectors.send && within(e.target, state.adapter.selectors.send) && hasDraft()) userSent();
  }, true);
  function within(target, selector) {
    try { return !!(target instanceof Element && target.closest(selector)); } catch { return false; }
  }

  /**
   * The DOM reading path: the newest answer after `before`, read as it grows; each call caught
   * once it is closed, until the answer stops changing.
   */
  async function domRead(before) {
    let taken = 0;
    let prev = null;
    let still = 0;
    for (let waited = 0; waited <= DOM_READ_MS && still < DOM_SETTLED_POLLS; waited += DOM_SETTLE_MS) {
      const now = lastAnswer();
      const isNew = now.count > before.count || (now.count && now.text !== before.text);
      if (isNew) {
        const found = calls.callsIn(now.text).filter((c) => c.ok || !/not closed/.test(c.error));
        for (const call of found.slice(taken)) caught(call);
        taken = Math.max(taken, found.length);
        still = now.text === prev ? still + 1 : 0;
        prev = now.text;
      }
      await new Promise((r) => setTimeout(r, DOM_SETTLE_MS));
    }
  }

  /**
   * Until no watched answer is still streaming (the hook says when each ends) and the page's last
   * answer has stopped changing (a site read from the DOM, or one that renders after its stream).
   */
  async function answerEnded() {
    let prev = null;
    for (let waited = 0; waited <= ANSWER_END_WAIT_MS; waited += DOM_SETTLE_MS) {
      const now = lastAnswer().text;
      if (!watched.size && now === prev) return;
      prev = now;
      await new Promise((r) => setTimeout(r, DOM_SETTLE_MS));
    }
  }

  /** The page's last answer: how many answers there are and the last one's text. */
  function lastAnswer() {
    let all = [];
    try { all = [...document.querySelectorAll(state.adapter.selectors.last_answer)]; } catch { /* a bad selector */ }
    return { count: all.length, text: all.length ? all[all.length - 1].textContent ?? '' : '' };
  }

  /** The last answer once it stops changing, if it is a new one; else null. */
  async function settledAnswer(before) {
    let prev = null;
    for (let waited = 0; waited <= DOM_WAIT_MS; waited += DOM_SETTLE_MS) {
      const now = lastAnswer();
      const isNew = now.count > before.count || (now.count && now.text !== before.text);
      if (isNew && prev !== null && now.text === prev) return now.text;
      prev = isNew ? now.text : null;
      await new Promise((r) => setTimeout(r, DOM_SETTLE_MS));
    }
    return prev;
  }

  // --- calls -----------------------------------------------------------------------------------

  function caught(call, pasted = false) {
    const id = ++cardSeq;
    const tool = call.ok ? state.tools.find((t) => t.chosen && t.name === call.name) : null;
    const card = ui.card(id, call, tool);
    if (!call.ok) return;
    open.set(id, { call, tool, card });
    if (!tool) {
      card.done(`${call.name} is not one of the tools you chose for this chat; nothing ran.`);
      open.delete(id);
      return;
    }
    // The worker says which tools run without a click: read-only ones if the site allows it, any
    // other only if the user allowed that tool (the side panel's Chat sites view).
    if (!pasted && tool.autoRun === true) run(id);
  }

  function run(id) {
    const c = open.get(id);
    if (!c || c.running) return;
    c.running = true;
    c.card.done('Running…');
    port.postMessage({ type: 'run', req: id, name: c.call.name, arguments: c.call.arguments });
  }

  async function finished(req, outcome) {
    const c = open.get(req);
    if (!c) return;
    open.delete(req);
    c.card.done(outcome?.ok ? 'Done: the result is in the input box.' : `Failed: ${outcome?.error?.message ?? 'the tool failed'}`);
    const { input: inputSel, send: sendSel } = state.adapter.selectors;
    // Sending now would cut in while the model still writes (or press a stop button standing
    // where send was): with auto-send, wait for the answer's stream to end and the page to settle.
    if (state.autoSend) await answerEnded();
    const input = document.querySelector(inputSel);
    if (!input) return ui.say(`The input box (${inputSel}) was not found; the result could not be put in.`);
    const before = box.textOf(input);
    const text = (before ? `${before}\n\n` : '') + calls.resultText(c.call.name, outcome ?? { ok: false });
    awaitingRoundTrip = true;
    if (!box.put(input, text)) return ui.say('The input box did not take the result as the page expects it; check it before sending.');
    if (!state.autoSend) return;
    // Synthetic events are all a page script has: a site that ignores them needs the user's click.
    const seen = requestsSeen;
    const beforeSend = lastAnswer();
    if (await box.send(input, sendSel) === 'sent') return userSent(seen, beforeSend);
    ui.say('The result is in the input box; if it was not sent, press send.');
  }
})();
