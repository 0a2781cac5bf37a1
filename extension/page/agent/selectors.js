// WebMCP Sidecar, page agent: elements by CSS selector, for skills (docs/SKILLS.md). Finding
// one (the first visible match, else the first; with a text filter; waiting, bounded), saying
// what the page has instead when none is found (candidate elements, each with a selector), and making a selector that finds a given element
// again ("save as skill"). Loaded before skill-steps.js, which uses the finding half.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { collapse, cut, fail, roleOf, lookup } = P;

  const MAX_SCAN = 2000; // matches examined for `text` and visibility
  const MAX_NEARBY_SCAN = 5000; // elements examined for "what the page has instead"
  const NOT_SHOWN = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'br', 'html', 'body']);

  const isButtonInput = (el) => el.localName === 'input' && ['submit', 'button', 'reset'].includes((el.getAttribute('type') || '').toLowerCase());

  /** An element's visible text (collapsed, capped); an input button's value. */
  function textOf(el) {
    let t = typeof el.innerText === 'string' ? el.innerText : el.textContent ?? '';
    if (t.length > 65536) t = t.slice(0, 65536);
    if (!t.trim() && isButtonInput(el)) t = String(el.value ?? '');
    return collapse(t);
  }

  /** What a `text` filter compares: the text content (no layout, so cheap on many matches). */
  function filterText(el) {
    let t = el.textContent ?? '';
    if (t.length > 65536) t = t.slice(0, 65536);
    if (!t.trim() && isButtonInput(el)) t = String(el.value ?? '');
    return collapse(t).toLowerCase();
  }

  /** An element in a few words: `button#go.primary[name=q] "Search"` (page data, capped). */
  function brief(el) {
    let s = el.localName;
    if (el.id) s += `#${cut(el.id, 30)}`;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    for (const c of classes) s += `.${cut(c, 24)}`;
    const name = el.getAttribute('name');
    if (name) s += `[name=${cut(name, 24)}]`;
    const t = textOf(el) || collapse(el.getAttribute('aria-label') || el.getAttribute('placeholder') || '');
    return t ? `${s} ${JSON.stringify(cut(t, 30))}` : s;
  }

  const pageSays = () => `the page (${cut(location.href, 200)}, ${JSON.stringify(cut(collapse(document.title), 80))})`;

  const CONTROLS = 'input:not([type=hidden]), textarea, select, button, a[href], [role=button], [contenteditable=""], [contenteditable=true]';
  const STOP_WORDS = new Set(['type', 'name', 'class', 'data', 'aria', 'label', 'role', 'value', 'href', 'nth', 'child',
    'not', 'first', 'last', 'has', 'checked', 'disabled', 'hover', 'focus', 'visible', 'enabled', 'contains', 'scope']);

  /** How a person would name a candidate: its kind and what it says (text, label, placeholder, name). */
  function candidateLabel(el) {
    const type = el.localName === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    const kind = type ? `input[type=${cut(type, 16)}]` : el.localName;
    const said = (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'select')
      && !isButtonInput(el)
      ? collapse(el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.getAttribute('placeholder') || el.getAttribute('name') || '')
      : textOf(el) || collapse(el.getAttribute('aria-label') || el.getAttribute('title') || '');
    return said ? `${kind} ${JSON.stringify(cut(said, 30))}` : kind;
  }

  /**
   * A candidate for a message: what it is, and how a step finds it: `button "Search" (#go)`; for
   * one of several alike, a selector and its text (a step's `text` filter) rather than a path of
   * positions: `button "Add to cart" (button.add-to-cart, text "Add to cart")`.
   */
  function candidate(el) {
    const label = candidateLabel(el);
    const sel = robustSelector(el);
    if (sel && !sel.includes(':nth-of-type(')) return `${label} (${cut(sel, 120)})`;
    const text = cut(textOf(el), 40);
    if (text && !text.endsWith('…')) {
      const tag = ident(el.localName);
      const byText = [...ownCandidates(el).filter((c) => !c.startsWith('#')), tag]
        .find((c) => { try { return findNow(c, text) === el; } catch { return false; } });
      if (byText) return `${label} (${cut(byText, 120)}, text ${JSON.stringify(text)})`;
    }
    return sel ? `${label} (${cut(sel, 120)})` : label;
  }

  /** The id, classes and naming attributes of an element, as lower-case words. */
  function ownWords(el) {
    const own = [el.id, typeof el.className === 'string' ? el.className : '', ...['name', 'aria-label', 'data-testid', 'role', 'type', 'placeholder']
      .map((a) => el.getAttribute(a) ?? '')].join(' ').toLowerCase().slice(0, 500);
    return new Set(own.split(/[^a-z0-9]+/).filter((w) => w.length >= 3));
  }

  /**
   * Up to `n` elements a person would pick instead of what `selector` names, each with a
   * selector: the page's controls (buttons, inputs, links…), elements of the selector's tag and
   * ones named like its target part; those sharing a word with it (in their own id, class, name
   * or label, or a form or section around them) or of its tag first, visible ones first. A
   * container named like a part around the target (the form of `form#search button`) is not
   * one: its text is nothing to pick; its controls are.
   */
  function nearby(selector, n) {
    const s = String(selector).slice(0, 1000);
    const wordsOf = (/** @type {string} */ t) => t.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
    const tags = new Set();
    /** Words of the parts that name the element itself (`.result-card` of `#list .result-card`). */
    const targetWords = new Set();
    for (const part of s.split(',')) {
      const last = part.trim().split(/[\s>+~]+/).pop() ?? '';
      const m = /^[a-zA-Z][\w-]*/.exec(last);
      if (m) tags.add(m[0].toLowerCase());
      for (const w of wordsOf(last.slice(m ? m[0].length : 0))) targetWords.add(w);
    }
    const words = new Set(wordsOf(s));
    const scored = [];
    const all = document.body?.getElementsByTagName('*') ?? [];
    for (let i = 0; i < Math.min(all.length, MAX_NEARBY_SCAN); i++) {
      const el = all[i];
      if (NOT_SHOWN.has(el.localName)) continue;
      const ofTag = tags.has(el.localName);
      const own = ownWords(el);
      // A control, an element of the tag, or one named like the target (`div.result` for
      // `.result-card`); not one named like a part around it (the form of `form#search button`).
      if (!ofTag && !el.matches(CONTROLS) && ![...own].some((w) => targetWords.has(w))) continue;
      let score = ofTag ? 2 : 0;
      for (const w of own) if (words.has(w)) score += 3;
      // A word of the form or section around it (form#search's button, for "#search .go").
      for (let up = el.parentElement, k = 0; up && up !== document.body && k < 4; up = up.parentElement, k++) {
        if ([...ownWords(up)].some((w) => words.has(w))) {
          score += 2;
          break;
        }
      }
      if (!score) continue;
      if (visible(el)) score += 1;
      scored.push({ el, score, i });
    }
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    if (scored.length) return scored.slice(0, n).map((x) => candidate(x.el));
    // Nothing alike: the page's first visible controls, which a skill's selector usually names.
    const controls = [...document.querySelectorAll(CONTROLS)].slice(0, MAX_SCAN).filter(visible).slice(0, n);
    return controls.map(candidate);
  }

  /** A failure of the step: its code and what went wrong (the step's label is added later). */
  class StepFailure extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }
  const refuse = (message) => new StepFailure('page_error', message);

  function queryAll(selector, root = document) {
    if (typeof selector !== 'string' || !selector.trim() || selector.length > 4096) {
      throw new StepFailure('bad_request', `${JSON.stringify(cut(String(selector), 100))} is not a CSS selector`);
    }
    try {
      return root.querySelectorAll(selector);
    } catch (e) {
      throw new StepFailure('bad_request', `${JSON.stringify(cut(selector, 100))} is not a valid CSS selector (${cut(String(e?.message ?? e), 160)})`);
    }
  }

  const visible = (el) => {
    try {
      if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true });
    } catch {
      // an element of another document: counts as not visible
    }
    return el.getClientRects().length > 0;
  };
  const needleOf = (text) => (text === undefined || text === null || text === '' ? null : collapse(String(text)).toLowerCase());

  /** The first visible match (with the text, if any), else the first match; `visibleOnly` skips hidden ones. */
  function findNow(selector, text, visibleOnly = false) {
    const all = queryAll(selector);
    const needle = needleOf(text);
    /** @type {Element|null} */
    let first = null;
    for (let i = 0; i < Math.min(all.length, MAX_SCAN); i++) {
      const el = all[i];
      if (needle !== null && !filterText(el).includes(needle)) continue;
      if (visible(el)) return el;
      first ??= el;
    }
    return visibleOnly ? null : first;
  }

  /**
   * Resolves with `check()`'s first truthy answer, or null once `timeoutMs` pass: checked on
   * DOM changes (batched) and every 100 ms (style changes show no mutation). A throw rejects.
   */
  function waitUntil(check, timeoutMs) {
    const now = check();
    if (now || timeoutMs <= 0) return Promise.resolve(now || null);
    return new Promise((resolve, reject) => {
      let queued = false;
      let finished = false;
      const finish = (value, error) => {
        if (finished) return;
        finished = true;
        obs.disconnect();
        clearInterval(poll);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(value);
      };
      const run = () => {
        queued = false;
        if (finished) return;
        try {
          const v = check();
          if (v) finish(v);
        } catch (e) {
          finish(null, e);
        }
      };
      const obs = new MutationObserver(() => {
        if (!queued) {
          queued = true;
          setTimeout(run, 30);
        }
      });
      obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
      const poll = setInterval(run, 100);
      const timer = setTimeout(() => {
        run();
        finish(null);
      }, timeoutMs);
    });
  }

  /** What the page has instead, for a message: `the page (url, "title") has: button "Go" (#go), …`. */
  const instead = (selector) => {
    const near = nearby(selector, 5);
    return `${pageSays()} has ${near.length ? `these instead: ${near.join('; ')}` : 'nothing like it'}`;
  };

  /** The step's element, waiting up to `timeoutMs`; its `text` filters, except in `type` (what to type). */
  async function find(step, timeoutMs) {
    const filter = step.action === 'type' ? null : step.text;
    const el = await waitUntil(() => findNow(step.selector, filter), timeoutMs);
    if (el) return el;
    const count = queryAll(step.selector).length;
    const what = count && needleOf(filter) !== null
      ? `${count} element${count > 1 ? 's match' : ' matches'} but none has the text ${JSON.stringify(cut(String(filter), 80))}`
      : 'no element matches';
    throw refuse(`${what} (waited ${timeoutMs} ms); ${instead(step.selector)}`);
  }

  const pageText = () => collapse(document.body?.innerText ?? document.body?.textContent ?? '').toLowerCase();

  // --- a selector for an element ("save as skill") ------------------------------------------------

  const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
  const LABEL_ATTRS = ['aria-label', 'placeholder', 'title', 'alt'];
  const ident = (s) => CSS.escape(s);
  /** A CSS string: quotes and backslashes escaped, line breaks as escapes. */
  const str = (v) => `"${String(v).replace(/[\\"]/g, '\\$&').replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;

  /** Ids and classes a framework or build made up (they change between builds or visits). */
  function looksGenerated(s) {
    return s.length > 40 || /\d{4,}/.test(s) || /[:«»]/.test(s) ||
      /^(?:radix|headlessui|mui|react|ember|ext-gen|yui|ui-id|downshift|rc-|el-|j_id|css-|sc-|jsx-|emotion-)/i.test(s) ||
      (/[0-9a-f]{6,}/i.test(s) && /\d/.test(s) && /[a-f]/i.test(s)) ||
      (s.match(/[a-z][0-9]|[0-9][a-z]/gi) ?? []).length >= 3 || /_[a-zA-Z0-9]{5}$/.test(s) && /\d/.test(s);
  }

  const uniqueFor = (el) => (sel) => {
    try {
      const all = document.querySelectorAll(sel);
      return all.length === 1 && all[0] === el;
    } catch {
      return false;
    }
  };

  /** Selectors for `el` alone, best first (not yet checked for uniqueness). */
  function ownCandidates(el) {
    const tag = ident(el.localName);
    const out = [];
    if (el.id && !looksGenerated(el.id)) out.push(`#${ident(el.id)}`);
    for (const a of TEST_ATTRS) {
      const v = el.getAttribute(a);
      if (v && v.length <= 200) out.push(`[${a}=${str(v)}]`, `${tag}[${a}=${str(v)}]`);
    }
    const name = el.getAttribute('name');
    if (name && name.length <= 200) out.push(`${tag}[name=${str(name)}]`);
    for (const a of LABEL_ATTRS) {
      const v = el.getAttribute(a);
      if (v && v.length <= 200) out.push(`${tag}[${a}=${str(v)}]`);
    }
    // Role and accessible name, where CSS can say them: an explicit role, a link's target, an
    // input button's label.
    const role = el.getAttribute('role');
    const label = el.getAttribute('aria-label');
    if (role && label && label.length <= 200) out.push(`[role=${str(role)}][aria-label=${str(label)}]`);
    const href = el.localName === 'a' ? el.getAttribute('href') : null;
    if (href && href.length <= 300 && !href.startsWith('javascript:')) out.push(`a[href=${str(href)}]`);
    const type = el.getAttribute('type');
    if (type && el.localName === 'input' && el.getAttribute('value') && String(el.getAttribute('value')).length <= 100) {
      out.push(`input[type=${str(type)}][value=${str(el.getAttribute('value'))}]`);
    }
    if (type) out.push(`${tag}[type=${str(type)}]`);
    if (role && !label) out.push(`${tag}[role=${str(role)}]`);
    const classes = typeof el.className === 'string'
      ? el.className.trim().split(/\s+/).filter((c) => c && !looksGenerated(c)).slice(0, 4) : [];
    for (const c of classes) out.push(`${tag}.${ident(c)}`);
    if (classes.length > 1) out.push(`${tag}.${ident(classes[0])}.${ident(classes[1])}`);
    return out;
  }

  /** The element's step in a structural path: `tag:nth-of-type(k)`. */
  function nthOfType(el) {
    let k = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) k++;
    return `${ident(el.localName)}:nth-of-type(${k})`;
  }

  /**
   * A CSS selector that finds `el`, and only it, in its document: a stable id, a test id, a name,
   * a label, role and name, classes; then one of those under the nearest ancestor that has a
   * unique one; a structural `:nth-of-type` path last. Null for an element the document's
   * querySelector cannot reach (in a shadow tree, or not connected).
   * @param {Element} el @returns {string|null}
   */
  function robustSelector(el) {
    if (!el || el.nodeType !== 1 || !el.isConnected || el.getRootNode() !== document) return null;
    const unique = uniqueFor(el);
    const own = ownCandidates(el);
    const direct = own.find(unique);
    if (direct) return direct;
    if (el === document.documentElement) return ':root';
    // Under the nearest ancestor named uniquely by its own id/test id/name/label.
    const tail = [...own.filter((c) => !c.startsWith('#')), ident(el.localName)];
    let path = nthOfType(el);
    for (let anc = el.parentElement, depth = 0; anc && depth < 12; anc = anc.parentElement, depth++) {
      const ancSel = anc === document.body ? 'body' : anc === document.documentElement ? ':root' : ownCandidates(anc).find(uniqueFor(anc));
      if (ancSel) {
        const scoped = tail.map((t) => `${ancSel} ${t}`).find(unique);
        if (scoped) return scoped;
        if (unique(`${ancSel} > ${path}`)) return `${ancSel} > ${path}`;
      }
      path = `${nthOfType(anc)} > ${path}`;
    }
    // The full structural path from the root.
    let full = nthOfType(el);
    for (let anc = el.parentElement; anc && anc !== document.documentElement; anc = anc.parentElement) full = `${nthOfType(anc)} > ${full}`;
    full = `:root > ${full}`;
    return unique(full) ? full : null;
  }

  /** Op `selector_for` {ref}: a selector for a snapshot's element, for a skill being written. */
  function selectorFor(params) {
    const found = lookup(params?.ref);
    if ('error' in found) return found;
    const selector = robustSelector(found.el);
    if (!selector) return fail('invalid_args', `${params.ref} (${found.desc}) is inside a shadow tree, which a skill's CSS selectors cannot reach.`);
    return { selector, desc: found.desc, role: roleOf(found.el) || found.el.localName };
  }

  Object.assign(P, {
    StepFailure, refuse, queryAll, visible, needleOf, findNow, waitUntil, instead, find, pageText,
    textOf, brief, nearby, pageSays, robustSelector, selectorFor,
  });
})();
