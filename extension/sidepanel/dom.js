// Tiny DOM helpers for the side panel (no framework, no innerHTML with data: text only).

/**
 * Creates an element. props: class, text, title, on: {event: handler}, and any attribute
 * (aria-*, data-*, type, value...). Children: nodes, strings, arrays, null/false (skipped).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag typed by its tag: h('select') is an HTMLSelectElement
 * @param {Record<string, any>} [props]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === 'value') /** @type {any} */ (el).value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'open' || k === 'selected') {
      /** @type {any} */ (el)[k] = !!v;
    } else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/**
 * An element of the panel's own page (index.html), which is always there: a missing one is a
 * bug in the page, so it fails loudly here rather than as a null dereference later.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement}
 */
export function one(selector, root = document) {
  const el = root.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`the side panel has no ${selector}`);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** @param {number|null|undefined} ms */
export function fmtMs(ms) {
  if (ms === null || ms === undefined) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** @param {number} epochMs */
export function fmtTime(epochMs) {
  const d = new Date(epochMs);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** JSON text (or any value) pretty-printed; text that is not JSON stays as it is. */
export function pretty(value) {
  if (typeof value === 'string') {
    if (value === 'undefined') return '(nothing)';
    try {
      const parsed = JSON.parse(value);
      return typeof parsed === 'string' ? parsed : JSON.stringify(parsed, null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A one-line preview of arguments, for card headers. */
export function argsPreview(args, max = 80) {
  let s;
  try {
    s = JSON.stringify(args ?? {});
  } catch {
    s = '';
  }
  if (s === '{}') return '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Whether a scroll box is (nearly) at its bottom: keep following new content then. */
export function atBottom(el) {
  return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
}
