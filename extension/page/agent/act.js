// WebMCP Sidecar, page agent: acting. Where to point (scrolled into view, hit-tested),
// focus for typing, values, <select> options, scrolling, an element's box, and the marks an
// upload uses to find its <input type=file> from CDP.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { TEXT_INPUTS, collapse, shadowOf, fail, describe, isDisabled, lookup } = P;

  const inViewport = (r) => r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;

  function bringIntoView(el) {
    const r = el.getBoundingClientRect();
    if (!inViewport(r) || r.top < 0 || r.bottom > innerHeight) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    }
  }

  /** The element whose box a pointer should aim at: the element, or a label for a hidden control. */
  function aimAt(el) {
    const hasBox = (e) => [...e.getClientRects()].some((r) => r.width > 0 && r.height > 0);
    if (hasBox(el)) return el;
    for (const l of el.labels ?? []) if (hasBox(l)) return l;
    return null;
  }

  const hitTest = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    // Into open and closed shadow trees, to the innermost element.
    for (let i = 0; hit && i < 20; i++) {
      const sr = shadowOf(hit);
      const inner = sr?.elementFromPoint?.(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };

  const composedContains = (outer, node) => {
    for (let n = node; n; n = n.parentNode || n.host) if (n === outer) return true;
    return false;
  };

  // Trusted input is aimed here but sent by the worker through CDP to the tab: right before it
  // presses or types, the worker asks (in a world of its own) what is at the point or has the
  // focus, and refuses unless it is the element marked here (input-guard.js). The mark is a
  // fresh nonce on the element (and its label), and `host:nonce` on the shadow hosts around it
  // (closed ones hide it from that world). Only the last aim is kept, here and in the DOM.
  const AIM_ATTR = 'data-webmcp-sidecar-aim';
  /** @type {{nonce: string, el: Element, marked: Element[]}|null} */
  let aimed = null;
  function markAim(el, target, nonce) {
    for (const m of aimed?.marked ?? []) m.removeAttribute(AIM_ATTR);
    aimed = null;
    if (typeof nonce !== 'string' || !/^[\w-]{8,64}$/.test(nonce)) return;
    const marked = [el];
    if (target && target !== el) marked.push(target);
    for (const m of marked) m.setAttribute(AIM_ATTR, nonce);
    for (let n = el.parentNode || el.host; n; n = n.parentNode || n.host) {
      if (n.nodeType === 11 && n.host) {
        n.host.setAttribute(AIM_ATTR, `host:${nonce}`);
        marked.push(n.host);
      }
    }
    aimed = { nonce, el, marked };
  }

  /** Op `aimed` {nonce}: the value of the element last aimed at (the worker checks typing landed). */
  function aimedValue(params) {
    if (!aimed || aimed.nonce !== params.nonce) return fail('page_error', 'The element aimed at is gone (the page changed).');
    return { value: fieldValue(aimed.el) };
  }

  const fieldValue = (el) => String('value' in el && typeof el.value === 'string' ? el.value : el.textContent ?? '').slice(0, 100_000);

  function point(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    if (params.enabled !== false && isDisabled(el)) return fail('invalid_args', `${params.ref} (${desc}) is disabled, so it cannot be used now.`);
    const target = aimAt(el);
    if (!target) {
      return fail('invalid_args', `${params.ref} (${desc}) has no size on the page (hidden by its styles), so it cannot be pointed at. Take a new snapshot to see what is usable.`);
    }
    bringIntoView(target);
    const rects = [...target.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    const r = rects.find(inViewport) ?? rects[0];
    const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    if (right <= left || bottom <= top) {
      return fail('invalid_args', `${params.ref} (${desc}) is outside the visible part of the page and could not be scrolled into view.`);
    }
    // Whole CSS pixels: the worker's hit test (DOM.getNodeForLocation) takes integers.
    const x = Math.floor((left + right) / 2), y = Math.floor((top + bottom) / 2);
    const hit = hitTest(x, y);
    const ok = hit && (composedContains(target, hit) || composedContains(el, hit) ||
      (hit.localName === 'label' && /** @type {HTMLLabelElement} */ (hit).control === el) || (target !== el && composedContains(hit, el)));
    if (!ok) {
      const cover = hit ? `${hit.localName}${hit.id ? `#${hit.id}` : ''}${hit.className && typeof hit.className === 'string' ? `.${hit.className.trim().split(/\s+/).slice(0, 2).join('.')}` : ''}` : 'nothing';
      const coverDesc = hit ? describe(hit) : '';
      return fail('page_error', `${params.ref} (${desc}) is covered by another element (<${cover}>${hit && coverDesc && !coverDesc.startsWith(hit.localName) ? `, ${coverDesc}` : ''}) at its centre, so a click would land on that instead. Close or move what covers it first (a dialog, banner or overlay), then try again.`);
    }
    markAim(el, target, params.aim);
    return { x, y, desc, url: location.href };
  }

  function editableKind(el) {
    const tag = el.localName;
    if (tag === 'textarea') return 'text';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (TEXT_INPUTS.has(type)) return 'text';
      return type;
    }
    if (el.isContentEditable) return 'rich';
    if (tag === 'select') return 'select';
    return '';
  }

  function focus(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    const kind = editableKind(el);
    const typing = params.needEditable !== false; // else: focus for a key press, any element
    if (typing) {
      if (kind === 'select') return fail('invalid_args', `${params.ref} (${desc}) is a drop-down list: use browser_select_option to choose from it.`);
      if (kind === 'file') return fail('invalid_args', `${params.ref} (${desc}) is a file chooser: use browser_upload_file.`);
      if (kind !== 'text' && kind !== 'rich') {
        return fail('invalid_args', `${params.ref} (${desc}) is not a text field, so it cannot take typed text${kind ? ': use browser_click on it' : ''}. Take a snapshot and use a textbox's ref.`);
      }
      if (el.readOnly) return fail('invalid_args', `${params.ref} (${desc}) is read-only.`);
    }
    if (isDisabled(el)) return fail('invalid_args', `${params.ref} (${desc}) is disabled, so it cannot take ${typing ? 'text' : 'keys'} now.`);
    bringIntoView(el);
    el.focus({ preventScroll: true });
    if (typing && params.clear) {
      if (kind === 'rich') {
        const range = document.createRange();
        range.selectNodeContents(el);
        const sel = getSelection();
        sel?.removeAllRanges(); // null only in a frame without a browsing context
        sel?.addRange(range);
      } else {
        el.select();
      }
    } else if (kind === 'text') {
      try {
        const end = el.value.length;
        el.setSelectionRange(end, end); // type after what is there
      } catch {
        // types without a text selection (email, number): the caret is where it is
      }
    }
    const focused = document.activeElement === el || el.contains(document.activeElement) || composedContains(el, document.activeElement);
    if (!focused) return fail('page_error', `${params.ref} (${desc}) did not take the keyboard focus (the page moved it elsewhere).`);
    markAim(el, null, params.aim);
    return { desc, kind, before: fieldValue(el) };
  }

  function value(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    const v = 'value' in el && typeof el.value === 'string' ? el.value : collapse(el.innerText);
    return { desc, value: (editableKind(el) === 'text' && (el.getAttribute('type') || '') === 'password') ? '•'.repeat(Math.min(8, v.length)) : v.slice(0, 2000) };
  }

  function select(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    if (el.localName !== 'select') {
      return fail('invalid_args', `${params.ref} (${desc}) is not a drop-down list (<select>). For a custom one, click it (browser_click), take a snapshot, and click the option.`);
    }
    if (isDisabled(el)) return fail('invalid_args', `${params.ref} (${desc}) is disabled.`);
    const wanted = (params.values ?? []).map(String);
    if (!wanted.length) return fail('invalid_args', 'Give the option(s) to choose in `values` (their labels or values).');
    if (wanted.length > 1 && !el.multiple) return fail('invalid_args', `${params.ref} (${desc}) takes one option; you gave ${wanted.length}.`);
    const opts = [...el.options];
    const picked = [];
    for (const w of wanted) {
      const lw = collapse(w).toLowerCase();
      const o = opts.find((x) => x.value === w) ?? opts.find((x) => collapse(x.label || x.text) === collapse(w)) ??
        opts.find((x) => collapse(x.label || x.text).toLowerCase() === lw);
      if (!o) {
        const all = opts.map((x) => collapse(x.label || x.text)).slice(0, 50).join(', ');
        return fail('invalid_args', `${params.ref} (${desc}) has no option "${w}". Its options: ${all}.`);
      }
      if (o.disabled) return fail('invalid_args', `The option "${collapse(o.label || o.text)}" of ${params.ref} is disabled.`);
      picked.push(o);
    }
    bringIntoView(el);
    for (const o of opts) o.selected = picked.includes(o);
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { desc, selected: picked.map((o) => collapse(o.label || o.text)) };
  }

  function scroll(params) {
    /** @type {Element|null} */
    let el = null;
    let desc = 'the page';
    if (params.ref) {
      const found = lookup(params.ref);
      if ('error' in found) return found;
      ({ el, desc } = found);
    }
    const dir = params.direction;
    if (el && !dir) {
      el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
    } else {
      const box = el ?? document.scrollingElement ?? document.documentElement;
      const pages = Number(params.amount) > 0 ? Number(params.amount) : 1;
      const h = (el ? box.clientHeight : innerHeight) * 0.85 * pages;
      const w = (el ? box.clientWidth : innerWidth) * 0.85 * pages;
      const dx = dir === 'left' ? -w : dir === 'right' ? w : 0;
      const dy = dir === 'up' ? -h : dir === 'down' || !dir ? h : 0;
      box.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    }
    const s = document.scrollingElement ?? document.documentElement;
    const box = el && dir ? el : s;
    return {
      desc, x: Math.round(box.scrollLeft), y: Math.round(box.scrollTop),
      maxY: Math.max(0, Math.round(box.scrollHeight - box.clientHeight)),
      maxX: Math.max(0, Math.round(box.scrollWidth - box.clientWidth)),
    };
  }

  function rect(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    bringIntoView(el);
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return fail('invalid_args', `${params.ref} (${desc}) has no size on the page, so there is nothing to capture.`);
    return { desc, x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  }

  function mark(params) {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    if (params.file && !(el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'file')) {
      return fail('invalid_args', `${params.ref} (${desc}) is not a file chooser (<input type=file>). Take a snapshot and use the ref of the "Choose file" button.`);
    }
    if (params.file && isDisabled(el)) return fail('invalid_args', `${params.ref} (${desc}) is disabled.`);
    if (params.file && params.count > 1 && !el.multiple) return fail('invalid_args', `${params.ref} (${desc}) takes one file; you gave ${params.count}.`);
    el.setAttribute(params.attr, params.nonce);
    return { desc };
  }

  function unmark(params) {
    for (const el of document.querySelectorAll(`[${params.attr}]`)) el.removeAttribute(params.attr);
    const found = params.ref ? lookup(params.ref) : null;
    if (found && !('error' in found) && found.el.files) {
      return { files: [...found.el.files].map((f) => f.name) };
    }
    return {};
  }

  Object.assign(P, { markAim, aimedValue, fieldValue, point, focus, value, select, scroll, rect, mark, unmark });
})();
