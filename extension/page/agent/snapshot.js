// WebMCP Sidecar, page agent: the snapshot walk. Compact records (parent index, role, ref,
// name, states) that lib/snapshot.js turns into the outline.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const {
    INTERACTIVE, LEAF, NAME_SHOWN, SKIP_TAGS, BLOCK_TAGS, CLICKY_TAGS, st, collapse, cut, shadowOf, roleOf, nameOf,
    isDisabled, refFor, lookup,
  } = P;

  function snapshot(params) {
    const full = params.interactive === false;
    const maxRecords = 60_000;
    /** @type {any[]} */
    const records = [];
    let lastText = -1; // index of a text record that the next text may join
    let clipped = false;
    const active = document.activeElement;

    const addText = (text, parent) => {
      const t = collapse(text);
      if (!t) return;
      if (lastText >= 0 && records[lastText].p === parent && records[lastText].text.length < 300) {
        records[lastText].text = cut(`${records[lastText].text} ${t}`, 300);
        return;
      }
      if (records.length >= maxRecords) { clipped = true; return; }
      records.push({ p: parent, role: 'text', text: cut(t, 300) });
      lastText = records.length - 1;
    };

    const visit = (el, parent, depth, pointerAbove) => {
      if (records.length >= maxRecords) { clipped = true; return; }
      const tag = el.localName;
      if (SKIP_TAGS.has(tag) || depth > 400) return;
      if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('inert')) return;
      // One computed style answers display, visibility and cursor: cheaper than checkVisibility
      // (this loop runs for every element of the page).
      const cs = getComputedStyle(el);
      const display = cs.display;
      if (display === 'none' || cs.contentVisibility === 'hidden') return;
      // visibility:hidden or display:contents: not shown itself, its children may be.
      const shown = display !== 'contents' && cs.visibility === 'visible';
      let role = shown ? roleOf(el) : '';
      let pointer = pointerAbove;
      if (shown && !role && CLICKY_TAGS.has(tag)) {
        // Elements made clickable by script: focusable, an onclick attribute, or a pointer cursor
        // of their own (not inherited from a clickable parent).
        pointer = cs.cursor === 'pointer';
        const tabindex = el.getAttribute('tabindex');
        if ((tabindex !== null && Number(tabindex) >= 0) || el.hasAttribute('onclick') || (pointer && !pointerAbove)) role = 'clickable';
      } else if (shown && role) {
        pointer = false;
      }
      let me = parent;
      if (role && (full || role !== 'paragraph')) {
        const name = nameOf(el, role);
        const rec = { p: parent, role };
        if (name) rec.name = name;
        rec.ref = refFor(el, name ? `${role} "${cut(name, 60)}"` : role, params.base);
        if (INTERACTIVE.has(role)) rec.i = true;
        if (role === 'heading') rec.level = Number(el.getAttribute('aria-level')) || Number(tag[1]) || 2;
        states(el, role, rec, active);
        if (role === 'link' && el.href && params.urls !== false) {
          const href = el.getAttribute('href') || '';
          // Where it leads, when that says something: same-page #anchors and script links do not.
          const url = el.href.startsWith(location.origin + '/') ? el.href.slice(location.origin.length) : el.href;
          if (url.length <= 100 && !href.startsWith('#') && !url.startsWith('javascript:')) rec.url = url;
        }
        records.push(rec);
        me = records.length - 1;
        lastText = -1;
        if (LEAF.has(role) || tag === 'select' || tag === 'textarea') return;
      }
      const textHere = full && shown && !(role && NAME_SHOWN.has(role));
      const closedDetails = tag === 'details' && !el.open; // only its summary shows
      const each = (child) => {
        if (child.nodeType === 3) {
          if (textHere) addText(child.data, me);
        } else if (child.nodeType === 1) {
          if (closedDetails && child.localName !== 'summary') return;
          const block = BLOCK_TAGS.has(child.localName);
          if (block) lastText = -1;
          visit(child, me, depth + 1, pointer);
          if (block) lastText = -1;
        }
      };
      const assigned = tag === 'slot' ? el.assignedNodes({ flatten: true }) : null;
      if (assigned?.length) assigned.forEach(each);
      else for (let c = (shadowOf(el) ?? el).firstChild; c; c = c.nextSibling) each(c);
    };

    let start = document.body || document.documentElement;
    if (params.root) {
      const found = lookup(params.root);
      if ('error' in found) return found;
      start = found.el;
    }
    visit(start, -1, 0, false);
    return { url: location.href, title: document.title, base: st.base, next: st.next, records, clipped };
  }

  function states(el, role, rec, active) {
    const tag = el.localName;
    const aria = (a) => el.getAttribute(a);
    if (tag === 'input' || tag === 'textarea') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') rec.checked = el.indeterminate ? 'mixed' : el.checked;
      else if (type === 'file') {
        if (el.files?.length) rec.value = cut([...el.files].map((f) => f.name).join(', '), 100);
      } else if (!['button', 'submit', 'reset', 'image'].includes(type) && el.value) {
        rec.value = type === 'password' ? '•'.repeat(Math.min(8, el.value.length)) : cut(collapse(el.value), 100);
      }
      if (el.required) rec.required = true;
      if (el.readOnly) rec.readonly = true;
    } else if (tag === 'select') {
      const chosen = [...el.selectedOptions].map((o) => collapse(o.label || o.text));
      if (chosen.length) rec.value = cut(chosen.join(', '), 100);
      const labels = [...el.options].map((o) => cut(collapse(o.label || o.text), 40));
      rec.options = labels.length > 25 ? [...labels.slice(0, 25), `… ${labels.length - 25} more`] : labels;
      if (el.required) rec.required = true;
    } else if (role === 'textbox' && el.isContentEditable) {
      const v = collapse(el.innerText);
      if (v) rec.value = cut(v, 100);
    }
    const checked = aria('aria-checked');
    if (checked !== null && rec.checked === undefined) rec.checked = checked === 'mixed' ? 'mixed' : checked === 'true';
    const pressed = aria('aria-pressed');
    if (pressed === 'true') rec.pressed = true;
    if (aria('aria-selected') === 'true') rec.selected = true;
    const expanded = aria('aria-expanded');
    if (expanded !== null) rec.expanded = expanded === 'true';
    else if (tag === 'summary' && el.parentElement?.localName === 'details') rec.expanded = el.parentElement.open;
    if (isDisabled(el) && INTERACTIVE.has(role)) rec.disabled = true;
    if (aria('aria-required') === 'true') rec.required = true;
    if (aria('aria-readonly') === 'true') rec.readonly = true;
    const current = aria('aria-current');
    if (current && current !== 'false') rec.current = current === 'true' ? 'true' : current;
    if (el === active && INTERACTIVE.has(role)) rec.focused = true;
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter') {
      const v = aria('aria-valuetext') || aria('aria-valuenow') || (el.value !== undefined ? String(el.value) : '');
      if (v && !rec.value) rec.value = cut(v, 40);
    }
  }

  P.snapshot = snapshot;
})();
