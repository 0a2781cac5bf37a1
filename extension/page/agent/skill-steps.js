// WebMCP Sidecar, page agent: one step of a skill tool (docs/SKILLS.md), in the top document.
// The worker resolves templates and handles navigation, `navigate`, `wait_for url|navigation`,
// `return`, `optional` and trusted input (for `trusted` steps this file only aims: it focuses
// the element or gives the point to click, and the worker sends real input through CDP).
// The page is hostile: selectors are the skill's, but everything read from the page is capped,
// nothing is evaluated, every wait is bounded, and a failure is an answer, never a throw.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { TEXT_INPUTS, collapse, cut, fail, isDisabled, brief, pageSays, StepFailure, refuse, queryAll, needleOf,
    findNow, waitUntil, instead, find, pageText, markAim } = P;
  /** The worker's nonce for the trusted step under way: its element is marked (act.js markAim). */
  /** @type {string|null} */
  let aimNonce = null;
  const setAim = (nonce) => { aimNonce = typeof nonce === 'string' ? nonce : null; };

  const DEFAULT_TIMEOUT_MS = 5000;
  const MAX_TIMEOUT_MS = 60000;
  const MAX_VALUE = 16384; // characters of one extracted value
  const MAX_RECORDS = 500;
  const MAX_TOTAL = 4 << 20; // characters of one extract step's answer
  const MAX_TYPED = 5000; // characters typed key by key (fill or a trusted type for more)
  const URL_ATTRS = new Set(['href', 'src', 'action']);
  // The isolated world's own setters (read when first used): the page cannot replace them, and
  // they bypass the `value` property that frameworks such as React put on each input.
  /** @type {Map<string, ((this: any, v: string) => void) | undefined>} */
  const setters = new Map();
  const setterOf = (tag) => {
    if (!setters.has(tag)) {
      const proto = tag === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      setters.set(tag, Object.getOwnPropertyDescriptor(proto, 'value')?.set);
    }
    return setters.get(tag);
  };

  /** `step 3 (click "form#search button")`, as the worker's runner labels steps. */
  function label(step, index) {
    const what = step.selector ?? step.url ?? step.key ?? step.text ?? step.as;
    const shown = typeof what === 'string' ? ` ${JSON.stringify(cut(what, 80))}` : '';
    return `step ${Number(index) + 1} (${cut(String(step.action), 20)}${shown})`;
  }

  const richText = (el) => el.isContentEditable === true ||
    (el.isContentEditable === undefined && /^(|true|plaintext-only)$/i.test(el.getAttribute('contenteditable') ?? 'x'));

  /** 'text' (input or textarea), 'rich' (contenteditable), else why it cannot take text. */
  function textKind(el) {
    const tag = el.localName;
    if (tag === 'textarea') return 'text';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (TEXT_INPUTS.has(type)) return 'text';
      if (type === 'checkbox' || type === 'radio') return 'a checkbox or radio button (use a `check` step)';
      return `an input of type ${cut(type, 20)}`;
    }
    if (tag === 'select') return 'a drop-down list (use a `select` step)';
    if (richText(el)) return 'rich';
    return 'not a text field';
  }

  function editable(el) {
    const kind = textKind(el);
    if (kind !== 'text' && kind !== 'rich') throw refuse(`${brief(el)} is ${kind}, so it takes no text; ${pageSays()}`);
    if (isDisabled(el)) throw refuse(`${brief(el)} is disabled`);
    if (el.readOnly) throw refuse(`${brief(el)} is read-only`);
    return kind;
  }

  const fire = (el, type, init = {}) => el.dispatchEvent(
    type === 'input' || type === 'beforeinput' ? new InputEvent(type, { bubbles: true, cancelable: type === 'beforeinput', composed: true, ...init })
      : new Event(type, { bubbles: true }));
  const key = (el, type, k) => el.dispatchEvent(new KeyboardEvent(type, { key: k, bubbles: true, cancelable: true, composed: true }));
  const setText = (el, v) => {
    const set = setterOf(el.localName);
    if (set) set.call(el, v);
    else el.value = v;
  };

  function selectAll(el, kind) {
    el.focus({ preventScroll: true });
    if (kind === 'text') {
      el.select?.();
      return;
    }
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  }

  /** An edit at the selection, as the browser makes it (editors listen for those); false if not made. */
  const edit = (command, v) => {
    try {
      return typeof document.execCommand === 'function' && document.execCommand(command, false, v);
    } catch {
      return false;
    }
  };

  /** Replaces a rich field's content as an edit (so editors see it), else by hand. */
  function replaceRich(el, v) {
    selectAll(el, 'rich');
    if (!(edit(v ? 'insertText' : 'delete', v) && collapse(el.textContent) === collapse(v))) {
      el.textContent = v;
      fire(el, 'input', { inputType: 'insertText', data: v });
    }
  }

  function fill(el, step) {
    const kind = editable(el);
    const v = step.value === undefined || step.value === null ? '' : typeof step.value === 'string' ? step.value : JSON.stringify(step.value);
    if (kind === 'rich') {
      replaceRich(el, v);
    } else {
      el.focus({ preventScroll: true });
      setText(el, v);
      fire(el, 'input', { inputType: 'insertText', data: v });
      if (el.value !== v && v !== '') {
        throw refuse(`${brief(el)} did not take the value (it holds ${JSON.stringify(cut(String(el.value), 40))}; a ${cut(el.type, 20)} field takes only its own format)`);
      }
    }
    fire(el, 'change');
    return { ok: true };
  }

  /** Inserts `ch` at the caret of a text field (or appends, for types without a selection). */
  function insertChar(el, ch) {
    let start = null;
    let end = null;
    try {
      start = el.selectionStart;
      end = el.selectionEnd;
    } catch {
      // email, number: no selection API
    }
    const old = String(el.value);
    if (start === null || end === null) {
      setText(el, old + ch);
      return;
    }
    setText(el, old.slice(0, start) + ch + old.slice(end));
    try {
      el.setSelectionRange(start + ch.length, start + ch.length);
    } catch {
      // as above
    }
  }

  function type(el, step) {
    const kind = editable(el);
    const text = step.text === undefined || step.text === null ? '' : String(step.text);
    if (step.clear !== false) selectAll(el, kind);
    else {
      el.focus({ preventScroll: true });
      try {
        if (kind === 'text') el.setSelectionRange(el.value.length, el.value.length); // type after what is there
      } catch {
        // types without a selection (email, number): the caret stays where it is
      }
    }
    if (step.trusted) {
      markAim(el, null, aimNonce);
      return { trusted: true, focused: true };
    }
    if (text.length > MAX_TYPED) throw new StepFailure('bad_request', `${text.length} characters are too many to type key by key (at most ${MAX_TYPED}); use a \`fill\` step or \`trusted: true\``);
    if (step.clear !== false && (kind === 'rich' ? el.textContent : el.value)) {
      if (kind === 'rich') replaceRich(el, '');
      else {
        setText(el, '');
        fire(el, 'input', { inputType: 'deleteContentBackward' });
      }
    }
    for (const ch of text) {
      if (key(el, 'keydown', ch) && key(el, 'keypress', ch) && fire(el, 'beforeinput', { inputType: 'insertText', data: ch })) {
        if (kind !== 'rich') insertChar(el, ch);
        else if (!edit('insertText', ch)) el.append(ch);
        fire(el, 'input', { inputType: 'insertText', data: ch });
      }
      key(el, 'keyup', ch);
    }
    fire(el, 'change');
    return { ok: true };
  }

  const hasBox = (e) => [...e.getClientRects()].some((r) => r.width > 0 && r.height > 0);

  /** The element's centre in viewport CSS pixels, scrolled into view; refused when covered. */
  function aim(el) {
    const target = hasBox(el) ? el : [...(el.labels ?? [])].find(hasBox);
    if (!target) throw refuse(`${brief(el)} has no size on the page (hidden by its styles), so it cannot be clicked`);
    const r0 = target.getBoundingClientRect();
    if (r0.top < 0 || r0.left < 0 || r0.bottom > innerHeight || r0.right > innerWidth) {
      target.scrollIntoView?.({ block: 'center', inline: 'center', behavior: 'instant' });
    }
    const r = [...target.getClientRects()].find((x) => x.width > 0 && x.height > 0) ?? target.getBoundingClientRect();
    const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    if (right <= left || bottom <= top) throw refuse(`${brief(el)} is outside the visible part of the page`);
    const x = Math.floor((left + right) / 2), y = Math.floor((top + bottom) / 2); // whole pixels, as act.js
    const hit = typeof document.elementFromPoint === 'function' ? document.elementFromPoint(x, y) : null;
    if (hit && !target.contains(hit) && !el.contains(hit) && !hit.contains(el) && /** @type {any} */ (hit).control !== el) {
      throw refuse(`${brief(el)} is covered by ${brief(hit)} at its centre, so a click would land there`);
    }
    markAim(el, target, aimNonce);
    return { x, y };
  }

  function click(el, step) {
    if (isDisabled(el)) throw refuse(`${brief(el)} is disabled`);
    if (step.trusted) return { trusted: true, point: aim(el) };
    el.scrollIntoView?.({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    const at = { bubbles: true, cancelable: true, composed: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, button: 0, view: window };
    const pointer = typeof PointerEvent === 'function';
    if (pointer) el.dispatchEvent(new PointerEvent('pointerdown', { ...at, pointerId: 1, pointerType: 'mouse', isPrimary: true, buttons: 1 }));
    if (el.dispatchEvent(new MouseEvent('mousedown', { ...at, buttons: 1 }))) el.focus?.({ preventScroll: true });
    if (pointer) el.dispatchEvent(new PointerEvent('pointerup', { ...at, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new MouseEvent('mouseup', at));
    // click() runs the element's activation (follow a link, toggle, submit) as a user's click does.
    if (typeof el.click === 'function') el.click();
    else el.dispatchEvent(new MouseEvent('click', at));
    return { ok: true };
  }

  const NO_IMPLICIT = new Set(['button', 'submit', 'reset', 'image', 'file', 'hidden', 'checkbox', 'radio', 'range', 'color']);

  /** Enter as a browser treats it: a form field submits its form (through its default button,
   * as implicit submission does); a button or link is activated. */
  function enter(el) {
    const tag = el.localName;
    const itype = (el.getAttribute?.('type') || '').toLowerCase();
    if ((tag === 'button' || (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(itype)) ||
      (tag === 'a' && el.hasAttribute('href')) || tag === 'summary') && !isDisabled(el)) {
      el.click();
      return;
    }
    if (tag !== 'input' || NO_IMPLICIT.has(itype) || !el.form) return;
    const form = el.form;
    const submitter = [...form.elements].find((e) => (e.localName === 'button' && (e.getAttribute('type') || 'submit').toLowerCase() === 'submit') ||
      (e.localName === 'input' && ['submit', 'image'].includes((e.getAttribute('type') || '').toLowerCase())));
    if (submitter) {
      if (!isDisabled(submitter)) submitter.click();
      return;
    }
    form.requestSubmit();
  }

  async function press(step, timeoutMs) {
    const k = step.key;
    if (typeof k !== 'string' || !k || k.length > 32) throw new StepFailure('bad_request', 'a `press` step needs `key`, a KeyboardEvent key such as "Enter"');
    const el = step.selector !== undefined ? await find(step, timeoutMs) : (document.activeElement ?? document.body);
    if (!el) throw refuse(`nothing on the page has the keyboard focus; ${pageSays()}`);
    if (step.selector !== undefined) el.focus?.({ preventScroll: true });
    if (step.trusted) {
      markAim(el, null, aimNonce);
      return { trusted: true, focused: true };
    }
    const down = key(el, 'keydown', k);
    if (down && k.length === 1) key(el, 'keypress', k);
    key(el, 'keyup', k);
    if (down && k === 'Enter') enter(el);
    return { ok: true };
  }

  function select(el, step) {
    if (el.localName !== 'select') throw refuse(`${brief(el)} is not a drop-down list (<select>); click a custom one's options instead`);
    if (isDisabled(el)) throw refuse(`${brief(el)} is disabled`);
    const wanted = (Array.isArray(step.values) ? step.values : step.value !== undefined ? [step.value] : []).map((w) => String(w ?? ''));
    if (!wanted.length) throw new StepFailure('bad_request', 'a `select` step needs `value` or `values`');
    if (wanted.length > 1 && !el.multiple) throw refuse(`${brief(el)} takes one option; the step gives ${wanted.length}`);
    const opts = [...el.options];
    const labelOf = (o) => collapse(o.label || o.text);
    const picked = wanted.map((w) => {
      const lw = collapse(w).toLowerCase();
      const o = opts.find((x) => x.value === w) ?? opts.find((x) => labelOf(x) === collapse(w)) ?? opts.find((x) => labelOf(x).toLowerCase() === lw);
      if (!o) throw refuse(`${brief(el)} has no option ${JSON.stringify(cut(w, 80))}; its options: ${opts.slice(0, 20).map((x) => JSON.stringify(cut(labelOf(x), 40))).join(', ')}${opts.length > 20 ? ', …' : ''}`);
      if (o.disabled) throw refuse(`the option ${JSON.stringify(cut(labelOf(o), 40))} of ${brief(el)} is disabled`);
      return o;
    });
    const before = opts.map((o) => o.selected).join();
    for (const o of opts) o.selected = picked.includes(o);
    if (opts.map((o) => o.selected).join() !== before) {
      fire(el, 'input');
      fire(el, 'change');
    }
    return { ok: true };
  }

  async function check(el, step, timeoutMs) {
    const want = step.checked !== false;
    const tag = el.localName;
    const itype = (el.getAttribute('type') || '').toLowerCase();
    const native = tag === 'input' && (itype === 'checkbox' || itype === 'radio');
    const role = (el.getAttribute('role') || '').toLowerCase();
    if (!native && !['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
      throw refuse(`${brief(el)} is not a checkbox, radio button or switch`);
    }
    const state = () => (native ? el.checked : el.getAttribute('aria-checked') === 'true');
    if (state() === want) return { ok: true };
    if (!want && (itype === 'radio' || role === 'radio' || role === 'menuitemradio')) {
      throw refuse(`${brief(el)} is a radio button: it is unchecked by checking another option of its group`);
    }
    click(el, {});
    // A page may update a custom control's state a moment after the click.
    if (!(await waitUntil(() => state() === want, Math.min(timeoutMs, 1000)))) {
      throw refuse(`clicking ${brief(el)} did not ${want ? 'check' : 'uncheck'} it (the page kept its state)`);
    }
    return { ok: true };
  }


  async function waitFor(step, timeoutMs) {
    if (step.url !== undefined || step.navigation) throw new StepFailure('bad_request', 'the worker waits for URLs and navigations, not the page');
    const gone = step.gone === true;
    if (step.selector !== undefined) {
      const ok = await waitUntil(() => {
        const el = findNow(step.selector, step.text, true);
        return gone ? !el : el;
      }, timeoutMs);
      if (ok) return { ok: true };
      if (gone) throw refuse(`${brief(findNow(step.selector, step.text, true) ?? document.body)} was still on the page after ${timeoutMs} ms; ${pageSays()}`);
      throw refuse(`no visible element matched within ${timeoutMs} ms; ${instead(step.selector)}`);
    }
    const needle = needleOf(step.text);
    if (needle === null) throw new StepFailure('bad_request', 'a `wait_for` step needs `selector`, `text`, `url` or `navigation`');
    if (await waitUntil(() => pageText().includes(needle) !== gone, timeoutMs)) return { ok: true };
    throw refuse(`the page's text ${gone ? 'still had' : 'did not have'} ${JSON.stringify(cut(String(step.text), 80))} after ${timeoutMs} ms; ${pageSays()}`);
  }

  /** An element's value for `extract`: an attribute (URLs made absolute) or its text (a form field's value). */
  function valueOf(el, attribute, budget) {
    let v;
    if (typeof attribute === 'string' && attribute) {
      v = el.getAttribute(attribute);
      const prop = URL_ATTRS.has(attribute.toLowerCase()) ? el[attribute.toLowerCase()] : null;
      if (v !== null && typeof prop === 'string' && prop) v = prop;
    } else if (el.localName === 'input' || el.localName === 'textarea') {
      v = (el.getAttribute('type') || '').toLowerCase() === 'password' ? '' : String(el.value);
    } else if (el.localName === 'select') {
      v = [...el.selectedOptions].map((o) => collapse(o.label || o.text)).join(', ');
    } else {
      v = collapse(typeof el.innerText === 'string' ? el.innerText : el.textContent);
    }
    if (v === null) return null;
    v = v.length > MAX_VALUE ? v.slice(0, MAX_VALUE) : v;
    budget.left -= v.length + 8;
    if (budget.left < 0) throw new StepFailure('too_large', `the extracted data is over ${MAX_TOTAL} characters; lower \`limit\` or extract less`);
    return v;
  }

  function extract(step) {
    const budget = { left: MAX_TOTAL };
    if (step.list !== undefined) {
      const limit = Math.min(MAX_RECORDS, Math.max(1, Math.floor(Number(step.limit)) || 50));
      const fields = step.fields && typeof step.fields === 'object' ? Object.entries(step.fields).slice(0, 64) : null;
      for (const [, f] of fields ?? []) if (f?.selector !== undefined) queryAll(f.selector); // a bad one is refused up front
      const items = [...queryAll(step.list)].slice(0, limit);
      const value = items.map((item) => {
        if (!fields) return valueOf(item, null, budget);
        return Object.fromEntries(fields.map(([name, f]) => {
          const el = f?.selector !== undefined ? item.querySelector(f.selector) : item;
          return [name, el ? valueOf(el, f?.attribute, budget) : null];
        }));
      });
      return { ok: true, value };
    }
    if (step.all === true) {
      return { ok: true, value: [...queryAll(step.selector)].slice(0, MAX_RECORDS).map((el) => valueOf(el, step.attribute, budget)) };
    }
    return null; // a single element: found (waiting) by the caller
  }

  // The ops built on these steps are in skill-ops.js.
  Object.assign(P, {
    skillParts: { setAim, label, fill, type, click, press, select, check, waitFor, extract, valueOf, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MAX_TOTAL },
  });
})();
