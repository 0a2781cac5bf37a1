// The chat page's input box (docs/CHAT_SITES.md), from the isolated world: putting text in it so
// the page's own editor takes it, and sending it. Chat sites keep the message in their own state,
// updated from input events (React-controlled textareas, ProseMirror / Lexical / Quill-like
// contenteditable editors), and send that state, not the DOM; so the text goes in the way typing
// would: `execCommand('insertText')` on the focused, selected box (it fires the editor's
// beforeinput/input events as the browser's own), and where that does not take, the value's own
// setter (past React's tracker) or the DOM, with the InputEvent an editor listens to. Sending
// waits for the send button to be enabled (a page re-renders a moment after its state changes),
// then clicks it; no usable button: Enter. These are synthetic events, all a page script can do:
// a site that ignores untrusted ones needs the user's own click on send.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  if (ns.chatInput) return;

  const SEND_WAIT_MS = 3_000; // for the send button to be enabled
  const SENT_WAIT_MS = 1_500; // for the box to empty once sent
  const STEP_MS = 50;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  const isField = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;
  /** The box's text as the page shows it (a contenteditable's innerText keeps its line breaks). */
  const textOf = (el) => (isField(el) ? String(el.value) : String(el.innerText ?? el.textContent ?? '')).replace(/\n$/, '');
  /** Whether the box holds `text` (editors turn line breaks into paragraphs: spacing aside). */
  const holds = (el, text) => textOf(el).replace(/\s+/g, '') === String(text).replace(/\s+/g, '');

  /** Selects the whole content of the box, so the insertion replaces it. */
  function selectAll(el) {
    if (isField(el)) return el.select();
    const sel = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(el);
    sel?.removeAllRanges();
    sel?.addRange(range);
  }

  /** The box's whole text becomes `text`, told to the page as input. @returns {boolean} it holds it */
  function put(el, text) {
    el.focus();
    selectAll(el);
    const was = textOf(el);
    let ran = false;
    try { ran = document.execCommand('insertText', false, text); } catch { ran = false; }
    if (ran && holds(el, text)) return true;
    // The editor took the edit its own way (it changed, but not into the text): inserting again
    // would double it; the caller says to check the box.
    if (ran && textOf(el) !== was) return false;
    // execCommand did not take (an editor that cancels it, a browser without it): say it the way
    // an editor listens, beforeinput first (Lexical-like editors apply it to their model and
    // cancel it), then the DOM, then input.
    const init = { bubbles: true, inputType: 'insertText', data: text };
    const before = new InputEvent('beforeinput', { ...init, cancelable: true });
    if (el.dispatchEvent(before) && !holds(el, text)) {
      if (isField(el)) {
        // The prototype's setter: an instance `value` that a framework defined is not called.
        const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')?.set;
        if (setter) setter.call(el, text); else el.value = text;
      } else {
        el.textContent = text;
      }
    }
    el.dispatchEvent(new InputEvent('input', init));
    if (isField(el)) el.dispatchEvent(new Event('change', { bubbles: true }));
    return holds(el, text);
  }

  const usable = (b) => b && !b.disabled && b.getAttribute('aria-disabled') !== 'true' && b.isConnected;

  /**
   * Sends what is in the box: the send button once it is enabled (no selector, or it never
   * enables: Enter on the box). @returns {Promise<'sent'|'unsure'>} sent: the box emptied.
   */
  async function send(el, sendSelector) {
    let button = null;
    if (sendSelector) {
      for (let waited = 0; waited <= SEND_WAIT_MS; waited += STEP_MS) {
        try { button = document.querySelector(sendSelector); } catch { button = null; }
        if (usable(button)) break;
        button = null;
        await sleep(STEP_MS);
      }
    }
    if (button) {
      /** @type {HTMLElement} */ (button).click();
    } else {
      el.focus();
      for (const type of ['keydown', 'keypress', 'keyup']) {
        el.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
      }
    }
    for (let waited = 0; waited <= SENT_WAIT_MS; waited += STEP_MS) {
      if (!el.isConnected || !textOf(el).trim()) return 'sent';
      await sleep(STEP_MS);
    }
    return 'unsure';
  }

  ns.chatInput = Object.freeze({ put, send, textOf });
})();
