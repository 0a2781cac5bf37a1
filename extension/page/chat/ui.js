// The chat toolbar and call cards (docs/CHAT_SITES.md), in the chat page's isolated world: a
// closed Shadow DOM, so the page can neither read nor press it, and every button answers only a
// trusted (user) event. It only shows and asks; page/chat/main.js decides and talks to the worker.
//
// The toolbar's host element still sits in the page's DOM: the page can make it transparent,
// move it, or lay its own decoy over it so that the user's click on the decoy lands here. So a
// control that runs something or widens what runs without asking (Run; turning on the tools, a
// tool, auto-run, auto-send) takes a click only once the browser has seen it visible (an
// IntersectionObserver v2 `trackVisibility`: unoccluded, no opacity, transform or filter on it
// or its ancestors) for MIN_SHOWN_MS, unmoved; else the click is dropped and the toolbar says so.
// Nothing is exposed as a `part` the page's CSS could style.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  if (ns.chatUi) return;

  const CSS = `
    :host { all: initial; }
    .bar { position: fixed; right: 12px; bottom: 12px; z-index: 2147483647; width: 320px; max-height: 70vh;
      overflow: auto; font: 13px/1.4 system-ui, sans-serif; color: #1b1b1f; background: #fff;
      border: 1px solid #c8c8d0; border-radius: 10px; box-shadow: 0 4px 18px rgba(0,0,0,.18); }
    header { display: flex; gap: 6px; align-items: center; padding: 6px 8px; cursor: pointer; }
    header b { flex: 1; }
    .badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #fff3cd; color: #6b4e00; }
    .badge.ok { background: #d8f5dd; color: #14532d; }
    section { padding: 6px 8px; border-top: 1px solid #eee; }
    label { display: block; margin: 2px 0; }
    .tools label { font-family: ui-monospace, monospace; font-size: 12px; }
    .card { margin: 6px 0; padding: 6px; border: 1px solid #c8c8d0; border-radius: 8px; background: #fafafe; }
    .card pre { white-space: pre-wrap; word-break: break-word; max-height: 160px; overflow: auto; margin: 4px 0;
      font: 12px ui-monospace, monospace; }
    .card.bad { border-color: #d33; background: #fff5f5; }
    button { font: inherit; margin-right: 6px; padding: 2px 10px; border-radius: 6px; border: 1px solid #99a; background: #fff; cursor: pointer; }
    button.run { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
    textarea { width: 100%; box-sizing: border-box; min-height: 48px; font: 12px ui-monospace, monospace; }
    .note { color: #555; font-size: 12px; }
    .warn { margin: 4px 0; padding: 6px; border-radius: 8px; background: #fff3cd; color: #6b4e00; font-size: 12px; }
    [hidden] { display: none !important; }`;

  const MIN_SHOWN_MS = 600;
  const GUARD = 'data-guard'; // on a control whose click must be proven seen (see the top)

  /** Makes an element. @param {string} tag @param {Record<string, any>} [props] @param {...any} kids */
  function h(tag, props = {}, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k.startsWith('on')) el.addEventListener(k.slice(2), (e) => { if (e.isTrusted) v(e); });
      else if (k === 'text') el.textContent = v;
      else if (v === true) el.setAttribute(k, '');
      else if (v !== false && v != null) el.setAttribute(k, String(v));
    }
    for (const kid of kids) if (kid != null) el.append(kid);
    return el;
  }

  /**
   * @param {{set: (change: any) => void, run: (id: number) => void, deny: (id: number) => void,
   *   paste: (text: string) => void, rearm: () => void, addToInput: () => void, domPath: () => void}} on
   */
  function create(on) {
    const hostEl = document.createElement('webmcp-sidecar-chat');
    const root = hostEl.attachShadow({ mode: 'closed' });
    const style = document.createElement('style');
    style.textContent = CSS;
    const bar = h('div', { class: 'bar' });
    root.append(style, bar);
    (document.body ?? document.documentElement).append(hostEl);

    // Guarded controls seen visible: since when (performance.now()) and where, by control (what
    // it does and for which tool or call), so a redraw that puts the same control in the same
    // place keeps it shown; a move, or the browser seeing it hidden, starts over.
    /** @type {Map<string, {since: number, at: string}>} */
    const seen = new Map();
    const keyOf = (el) => `${el.getAttribute('data-act')}|${el.getAttribute('data-key') ?? ''}|${el.closest('[data-call]')?.getAttribute('data-call') ?? ''}`;
    const where = (el) => { const r = el.getBoundingClientRect(); return `${r.x},${r.y},${r.width},${r.height}`; };
    /** @type {WeakMap<Element, ReturnType<typeof setTimeout>>} */
    const timers = new WeakMap();
    /** Controls the browser itself has last reported visible (not a redraw's new ones yet). @type {WeakSet<Element>} */
    const reported = new WeakSet();
    /** The control shown anew from now, where it is. @param {Element} el */
    const anew = (el) => {
      const s = { since: performance.now(), at: where(el) };
      seen.set(keyOf(el), s);
      el.removeAttribute('data-ready');
      return s;
    };
    /** data-ready (inside the closed root: for the tests and the eye) once it may be pressed.
     * @param {Element} el @param {{since: number}} s */
    const arm = (el, s) => {
      clearTimeout(timers.get(el));
      timers.set(el, setTimeout(() => el.setAttribute('data-ready', ''), Math.max(0, MIN_SHOWN_MS - (performance.now() - s.since))));
    };
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const el = e.target;
        if (!el.isConnected) continue; // redrawn: its successor reports for the control
        const k = keyOf(el);
        clearTimeout(timers.get(el));
        el.removeAttribute('data-ready');
        if (/** @type {any} */ (e).isVisible !== true || e.intersectionRatio < 0.99) {
          seen.delete(k);
          reported.delete(el);
          continue;
        }
        reported.add(el);
        const s = seen.get(k);
        arm(el, s && s.at === where(el) ? s : anew(el));
      }
    }, /** @type {any} */ ({ threshold: [0, 0.99, 1], trackVisibility: true, delay: 100 }));
    const observeGuarded = () => {
      io.disconnect();
      for (const el of root.querySelectorAll(`[${GUARD}]`)) io.observe(el);
    };
    // Our own changes move controls too (a status line, a card above, the user scrolling the
    // bar) without the browser reporting a visibility change: a control seen visible that has
    // moved is shown anew from now, ready again MIN_SHOWN_MS later (else the user's next click
    // on it would be refused however long they had looked at it).
    // Run in the observer's microtask, not at the next frame: until then the moved control would
    // still say `data-ready` for its old place, and a click read off it would be refused.
    const restamp = () => {
      for (const el of root.querySelectorAll(`[${GUARD}]`)) {
        const s = seen.get(keyOf(el));
        if (s && reported.has(el) && s.at !== where(el)) arm(el, anew(el));
      }
    };
    new MutationObserver(restamp).observe(root, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['hidden'] });
    bar.addEventListener('scroll', restamp, { passive: true });
    // Capturing, before the control's own listener: a click not proven seen does nothing (a
    // checkbox stays as it was).
    root.addEventListener('click', (e) => {
      const el = /** @type {Element|null} */ (/** @type {any} */ (e.target)?.closest?.(`[${GUARD}]`));
      if (!el) return;
      const widening = el.localName !== 'input' || /** @type {HTMLInputElement} */ (el).checked; // a box being ticked
      if (!widening) return;
      const s = seen.get(keyOf(el));
      // data-ready too: a control redrawn a moment ago keeps its predecessor's `seen` entry, but
      // counts only once the browser has reported this very element visible (else a redraw
      // while the page hides the toolbar would let a click through).
      const ok = e.isTrusted && s && performance.now() - s.since >= MIN_SHOWN_MS && s.at === where(el) && el.hasAttribute('data-ready');
      if (ok) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (s && s.at !== where(el)) anew(el); // moved: shown anew from now
      status.textContent = 'That click was not taken: the toolbar was covered, hidden, moved or only just shown. Look at it and press again.';
    }, true);
    let open = false;
    /** @type {any} */
    let state = null;
    const cards = h('div', { class: 'cards' });
    const status = h('div', { class: 'note', 'data-role': 'status' });
    // The adapter did not match what the site did: said plainly, with the way on that works
    // without it (reading the answers from the page). Kept across redraws, like the status.
    const warning = h('div', { class: 'warn', 'data-role': 'stale', hidden: true });
    // And when it works, that too: the user always knows whether the tools work on this page.
    // A badge in the header (its title says what was read): no line that would move the controls.
    const health = h('span', { class: 'badge ok', 'data-role': 'health', hidden: true, text: 'working' });

    function render(s) {
      state = s;
      bar.replaceChildren();
      const verified = s.adapter.verified;
      bar.append(h('header', { onclick: () => { open = !open; render(state); }, 'data-act': 'toggle-open' },
        h('b', { text: `Tools: ${s.adapter.title}` }),
        h('span', { class: verified ? 'badge ok' : 'badge', text: verified ? 'verified' : 'unverified',
          title: verified ? 'This adapter has worked on this site.' : 'This adapter has not been seen working on this site yet.' }),
        s.enabled ? health : null,
        h('span', { text: s.enabled ? 'on' : 'off', 'data-role': 'onoff' })));
      const body = h('section');
      body.append(h('label', {}, h('input', { type: 'checkbox', 'data-act': 'enable', [GUARD]: true, checked: s.enabled,
        onchange: (e) => on.set({ enabled: e.target.checked }) }), ' Use tools on this site'));
      if (s.enabled && open) {
        const list = h('div', { class: 'tools' });
        if (!s.tools.length) list.append(h('div', { class: 'note', text: 'No tools: open a site with WebMCP tools, add a skill, or a local MCP server.' }));
        for (const t of s.tools) {
          list.append(h('label', { title: t.key }, h('input', { type: 'checkbox', 'data-act': 'choose', 'data-key': t.key, [GUARD]: true, checked: t.chosen,
            onchange: (e) => {
              const chosen = new Set(state.tools.filter((x) => x.chosen).map((x) => x.key));
              if (e.target.checked) chosen.add(t.key); else chosen.delete(t.key);
              on.set({ chosen: [...chosen] });
            } }), ` ${t.name} `, h('span', { class: 'note', text: `${t.where}${t.readOnly ? (t.trusted ? ', read-only' : ', read-only (says the page)') : ''}${t.autoRun ? ', runs without asking' : ''}` })));
        }
        body.append(list,
          h('label', {}, h('input', { type: 'checkbox', 'data-act': 'autorun', [GUARD]: true, checked: s.autoRun, onchange: (e) => on.set({ autoRun: e.target.checked }) }), ' Run read-only tools of local servers and skills without asking'),
          h('label', {}, h('input', { type: 'checkbox', 'data-act': 'autosend', [GUARD]: true, checked: s.autoSend, onchange: (e) => on.set({ autoSend: e.target.checked }) }), ' Send results automatically'),
          h('div', {}, h('button', { 'data-act': 'rearm', onclick: () => on.rearm() , text: 'Tell the chat about the tools again' })));
        const paste = /** @type {HTMLTextAreaElement} */ (h('textarea', { 'data-role': 'paste', placeholder: '<tool_call>{"name": …, "arguments": {…}}</tool_call>' }));
        body.append(h('div', { class: 'note', text: 'Paste a tool call from the answer:' }), paste,
          h('button', { 'data-act': 'paste-run', onclick: () => on.paste(paste.value), text: 'Check the call' }));
      }
      if (s.enabled && s.inputMode && s.armed) {
        body.append(h('button', { 'data-act': 'add-to-input', onclick: () => on.addToInput(), text: 'Add the tools to my message' }));
      }
      bar.append(h('section', {}, warning, status, cards), body); // calls first: they are what needs the user
      observeGuarded();
    }

    /** A caught call: Run / Deny, or (bad) its plain message. */
    function card(id, call, tool) {
      const el = call.ok
        ? h('div', { class: 'card', 'data-call': id },
          h('div', {}, h('b', { text: call.name }), h('span', { class: 'note', text: tool ? ` ${tool.where}${tool.readOnly ? ', read-only' : ''}` : ' (not a chosen tool)' })),
          h('pre', { text: JSON.stringify(call.arguments, null, 2) }),
          h('div', { 'data-role': 'actions' },
            h('button', { class: 'run', 'data-act': 'run', [GUARD]: true, onclick: () => on.run(id), text: 'Run' }),
            h('button', { 'data-act': 'deny', onclick: () => on.deny(id), text: 'Deny' })),
          h('div', { class: 'note', 'data-role': 'outcome' }))
        : h('div', { class: 'card bad', 'data-call': id, 'data-bad': '' },
          h('div', { 'data-role': 'outcome', text: call.error }), h('pre', { text: call.raw }));
      cards.prepend(el);
      observeGuarded();
      return {
        /** The call is over: no more buttons, what happened instead. @param {string} text */
        done(text) {
          el.querySelector('[data-role=actions]')?.remove();
          const out = el.querySelector('[data-role=outcome]');
          if (out) out.textContent = text;
        },
      };
    }

    return {
      root, render, card,
      /** @param {string} text */
      say(text) { status.textContent = text; },
      /** The adapter read an answer: any out-of-date warning goes. @param {string} text */
      fine(text) {
        warning.hidden = true;
        health.hidden = false;
        health.title = text;
      },
      /**
       * The adapter may be out of date: `text` says how, with the DOM reading path offered
       * (once taken, `domOn` says so instead). @param {string} text @param {boolean} domOn
       */
      warn(text, domOn) {
        health.hidden = true;
        warning.hidden = false;
        warning.replaceChildren(h('div', { text: `This site's adapter may be out of date: ${text}` }),
          domOn
            ? h('div', { class: 'note', 'data-role': 'dom-on', text: 'Answers are read from the page now; tools go into your message with "Add the tools to my message".' })
            : h('div', {}, h('button', { 'data-act': 'dom-path', onclick: () => on.domPath(), text: 'Read answers from the page instead' })));
      },
      get state() { return state; },
    };
  }

  ns.chatUi = Object.freeze({ create });
})();
