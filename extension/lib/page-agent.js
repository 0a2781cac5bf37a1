// The browser tools' hands and eyes inside a page. The worker runs `pageAgent(op, params)` in the
// extension's isolated world of a tab's top frame (chrome.scripting.executeScript with
// `func: pageAgent`), so it must be self-contained: no imports, no outside names. The page
// cannot see that world, so the ref -> element map kept there cannot be read or forged by it,
// and it lives exactly as long as the document: a new page starts with no refs.
//
// Why in the page and not CDP's Accessibility.getFullAXTree: on a 30 000-element page that call
// takes 5-11 s through chrome.debugger (18 MB of nodes); walking the DOM here takes ~0.3 s and
// sends back only what a snapshot can show (bench/README.md, "Browser tools").
//
// Every op answers a plain object; failures are `{error: {code, message}}`, never a throw.

/**
 * @param {string} op snapshot | point | focus | value | select | scroll | rect | text | wait | mark | unmark | info
 * @param {any} params
 */
export function pageAgent(op, params = {}) {
  const KEY = '__webmcpSidecarAgent';
  const g = /** @type {any} */ (globalThis);
  /** @type {{started: boolean, base: number, next: number, refs: Map<string, {el: WeakRef<Element>, desc: string}>, ids: WeakMap<Element, string>}} */
  const st = g[KEY] || (g[KEY] = { started: false, base: 1, next: 1, refs: new Map(), ids: new WeakMap() });

  const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio',
    'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab', 'treeitem',
    'clickable', 'fileinput']);
  // Roles whose subtree adds nothing to the snapshot (their name is their content).
  const LEAF = new Set(['link', 'button', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'slider', 'spinbutton',
    'img', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'progressbar', 'meter', 'clickable',
    'fileinput']);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'treeitem', 'cell', 'columnheader', 'rowheader', 'row', 'listitem', 'tooltip',
    'status', 'alert', 'checkbox', 'radio', 'switch', 'article', 'clickable', 'paragraph']);
  // In full snapshots these show their name, so their text is not repeated as text lines.
  const NAME_SHOWN = new Set(['heading', 'cell', 'columnheader', 'rowheader', 'status', 'alert', 'tooltip', 'option']);
  const SHORT_NAME = new Set(['row', 'listitem', 'article', 'paragraph', 'status', 'alert']);
  const ARIA_ROLES = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'button', 'cell', 'checkbox',
    'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'dialog', 'directory', 'document',
    'feed', 'figure', 'form', 'grid', 'gridcell', 'group', 'heading', 'img', 'link', 'list', 'listbox', 'listitem',
    'log', 'main', 'marquee', 'math', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'navigation', 'note', 'option', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup',
    'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'switch', 'tab',
    'table', 'tablist', 'tabpanel', 'term', 'textbox', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
    'paragraph', 'generic']);
  const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'option',
    'optgroup', 'datalist', 'param', 'source', 'track']);
  const BLOCK_TAGS = new Set(['p', 'div', 'li', 'ul', 'ol', 'section', 'article', 'header', 'footer', 'nav', 'main',
    'aside', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'tr', 'td', 'th', 'br', 'dl', 'dt', 'dd', 'blockquote',
    'pre', 'form', 'fieldset', 'figure', 'figcaption', 'hr', 'address', 'details', 'summary']);
  const TEXT_INPUTS = new Set(['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date',
    'datetime-local', 'month', 'time', 'week', 'color']);
  const CLICKY_TAGS = new Set(['div', 'span', 'li', 'i', 'img', 'svg', 'p', 'td', 'em', 'strong', 'b', 'small']);

  const collapse = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const shadowOf = (el) => {
    try {
      return /** @type {any} */ (globalThis).chrome?.dom?.openOrClosedShadowRoot?.(el) ?? el.shadowRoot;
    } catch {
      return el.shadowRoot;
    }
  };
  const childrenOf = (node) => {
    if (node.localName === 'slot') {
      const assigned = node.assignedNodes({ flatten: true });
      if (assigned.length) return assigned;
    }
    const sr = node.nodeType === 1 ? shadowOf(node) : null;
    return sr ? sr.childNodes : node.childNodes;
  };
  const page = () => `"${cut(collapse(document.title), 80)}" ${location.href.slice(0, 200)}`;
  const fail = (code, message) => ({ error: { code, message } });

  // --- roles and names ---------------------------------------------------------------------------

  const inSectioning = (el) => !!el.parentElement?.closest('article, aside, main, nav, section');

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (explicit && ARIA_ROLES.has(explicit)) return explicit === 'generic' ? '' : explicit;
    const tag = el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'button': return 'button';
      case 'summary': return 'button';
      case 'input': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (type === 'hidden') return '';
        if (type === 'file') return 'fileinput'; // not an ARIA role: says what browser_upload_file takes
        if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'search': return 'search';
      case 'header': return inSectioning(el) ? '' : 'banner';
      case 'footer': return inSectioning(el) ? '' : 'contentinfo';
      case 'form': return 'form';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'article': return 'article';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'img': return el.getAttribute('alt') === '' ? '' : 'img';
      case 'svg': return el.hasAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : '';
      case 'dialog': return 'dialog';
      case 'fieldset': case 'details': return 'group';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'iframe': return 'iframe';
      case 'output': return 'status';
      default:
        if (el.isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
        return '';
    }
  }

  /** Visible text of a subtree (what a name from content is), stopping once it has `cap` chars. */
  function contentText(root, cap, skipControls = false) {
    let out = '';
    const stack = [...childrenOf(root)].reverse();
    while (stack.length && out.length < cap) {
      const n = stack.pop();
      if (n.nodeType === 3) {
        out += n.data;
        continue;
      }
      if (n.nodeType !== 1) continue;
      const tag = n.localName;
      if (SKIP_TAGS.has(tag) || n.hidden || n.getAttribute('aria-hidden') === 'true') continue;
      if (skipControls && (tag === 'select' || tag === 'textarea' || tag === 'input')) continue;
      if (tag === 'img' || tag === 'area') {
        out += ` ${n.getAttribute('alt') || ''} `;
        continue;
      }
      if (BLOCK_TAGS.has(tag)) out += ' ';
      const kids = [...childrenOf(n)];
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return collapse(out);
  }

  const byIds = (el, attr) => collapse((el.getAttribute(attr) || '').split(/\s+/)
    .map((id) => (id ? el.getRootNode().getElementById?.(id) ?? document.getElementById(id) : null))
    .filter(Boolean).map((n) => contentText(n, 200) || n.getAttribute('aria-label') || '').join(' '));

  function nameOf(el, role) {
    const cap = SHORT_NAME.has(role) ? 80 : 100;
    if (el.hasAttribute('aria-labelledby')) {
      const s = byIds(el, 'aria-labelledby');
      if (s) return cut(s, cap);
    }
    const label = collapse(el.getAttribute('aria-label'));
    if (label) return cut(label, cap);
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) {
        return cut(collapse(el.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), cap);
      }
      if (tag === 'input' && type === 'image') return cut(collapse(el.alt || el.value) || 'Submit', cap);
      const labels = el.labels ? [...el.labels].map((l) => contentText(l, 200, true)).filter(Boolean).join(' ') : '';
      if (labels) return cut(labels, cap);
      const fallback = collapse(el.getAttribute('title') || el.getAttribute('placeholder') || el.getAttribute('aria-placeholder'));
      if (fallback) return cut(fallback, cap);
      return tag === 'input' && type === 'file' ? 'Choose file' : '';
    }
    if (tag === 'img' || tag === 'area') return cut(collapse(el.getAttribute('alt') || el.getAttribute('title')), cap);
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return cut(contentText(legend, cap), cap);
    }
    if (tag === 'table') {
      const caption = el.querySelector(':scope > caption');
      if (caption) return cut(contentText(caption, cap), cap);
    }
    if (tag === 'svg') {
      const title = el.querySelector(':scope > title');
      if (title) return cut(collapse(title.textContent), cap);
    }
    if (tag === 'iframe') return cut(collapse(el.getAttribute('title')), cap);
    if (NAME_FROM_CONTENT.has(role) || tag === 'summary') {
      const s = contentText(el, cap + 1);
      if (s) return cut(s, cap);
    }
    return cut(collapse(el.getAttribute('title')), cap);
  }

  function describe(el) {
    const role = roleOf(el) || el.localName;
    const name = nameOf(el, role);
    return name ? `${role} "${cut(name, 60)}"` : role;
  }

  function isDisabled(el) {
    return el.disabled === true || el.getAttribute('aria-disabled') === 'true' || !!el.closest?.('fieldset[disabled]');
  }

  // --- refs --------------------------------------------------------------------------------------

  function refFor(el, desc) {
    let ref = st.ids.get(el);
    if (ref) {
      const entry = st.refs.get(ref);
      if (entry) {
        entry.desc = desc;
        return ref;
      }
    } else {
      if (!st.started) {
        st.started = true;
        st.base = st.next = Math.max(1, Math.floor(Number(params.base) || 1));
      }
      ref = `e${st.next++}`;
      st.ids.set(el, ref);
    }
    st.refs.set(ref, { el: new WeakRef(el), desc });
    return ref;
  }

  /** @returns {{el: Element, desc: string}|{error: {code: string, message: string}}} */
  function lookup(ref) {
    if (typeof ref !== 'string' || !/^e\d+$/.test(ref)) {
      return fail('invalid_args', `"${String(ref).slice(0, 40)}" is not a ref: refs look like e12 and come from browser_snapshot.`);
    }
    const again = 'Take a new snapshot (browser_snapshot) and use its refs.';
    if (!st.started) {
      return fail('not_found', `Ref ${ref} is stale: the page has changed (navigated or reloaded) since the snapshot it came from, and this page (${page()}) has no snapshot yet. ${again}`);
    }
    if (Number(ref.slice(1)) < st.base) {
      return fail('not_found', `Ref ${ref} is stale: it is from an earlier page, and the tab has navigated since (now ${page()}). ${again}`);
    }
    const entry = st.refs.get(ref);
    if (!entry) return fail('not_found', `Ref ${ref} was not given for this page (${page()}). ${again}`);
    const el = entry.el.deref();
    if (!el || !el.isConnected) {
      return fail('not_found', `Ref ${ref} (${entry.desc}) is stale: that element is no longer on the page, which has changed since the snapshot. ${again}`);
    }
    return { el, desc: entry.desc };
  }

  // --- snapshot ----------------------------------------------------------------------------------

  function snapshot() {
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
        rec.ref = refFor(el, name ? `${role} "${cut(name, 60)}"` : role);
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

  // --- acting ------------------------------------------------------------------------------------

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

  function point() {
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
    const x = (left + right) / 2, y = (top + bottom) / 2;
    const hit = hitTest(x, y);
    const ok = hit && (composedContains(target, hit) || composedContains(el, hit) ||
      (hit.localName === 'label' && hit.control === el) || (target !== el && composedContains(hit, el)));
    if (!ok) {
      const cover = hit ? `${hit.localName}${hit.id ? `#${hit.id}` : ''}${hit.className && typeof hit.className === 'string' ? `.${hit.className.trim().split(/\s+/).slice(0, 2).join('.')}` : ''}` : 'nothing';
      const coverDesc = hit ? describe(hit) : '';
      return fail('page_error', `${params.ref} (${desc}) is covered by another element (<${cover}>${coverDesc && !coverDesc.startsWith(hit.localName) ? `, ${coverDesc}` : ''}) at its centre, so a click would land on that instead. Close or move what covers it first (a dialog, banner or overlay), then try again.`);
    }
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

  function focus() {
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
        sel.removeAllRanges();
        sel.addRange(range);
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
    return { desc, kind };
  }

  function value() {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    const v = 'value' in el && typeof el.value === 'string' ? el.value : collapse(el.innerText);
    return { desc, value: (editableKind(el) === 'text' && (el.getAttribute('type') || '') === 'password') ? '•'.repeat(Math.min(8, v.length)) : v.slice(0, 2000) };
  }

  function select() {
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

  function scroll() {
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

  function rect() {
    const found = lookup(params.ref);
    if ('error' in found) return found;
    const { el, desc } = found;
    bringIntoView(el);
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return fail('invalid_args', `${params.ref} (${desc}) has no size on the page, so there is nothing to capture.`);
    return { desc, x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  }

  function text() {
    let root = null;
    if (params.ref) {
      const found = lookup(params.ref);
      if ('error' in found) return found;
      root = found.el;
    }
    if (!root) {
      // The main content when the page marks it and it holds real text, else the whole body.
      const candidates = [...document.querySelectorAll('main, [role="main"], article')];
      root = candidates.find((c) => c.innerText.trim().length >= 200) ?? document.body ?? document.documentElement;
    }
    return { url: location.href, title: document.title, text: root.innerText ?? root.textContent ?? '' };
  }

  function waitFor() {
    const timeout = Math.max(0, Number(params.timeoutMs) || 0);
    const gone = params.gone === true;
    const needle = typeof params.text === 'string' ? collapse(params.text).toLowerCase() : null;
    let el = null;
    if (params.ref) {
      const found = lookup(params.ref);
      if ('error' in found) {
        if (gone && found.error.code === 'not_found' && st.started) return { ok: true, waitedMs: 0 };
        return found;
      }
      el = found.el;
    }
    const met = () => {
      if (needle !== null) {
        const has = collapse(document.body?.innerText ?? '').toLowerCase().includes(needle);
        return gone ? !has : has;
      }
      const visible = !!el && el.isConnected && el.checkVisibility({ visibilityProperty: true });
      return gone ? !visible : visible;
    };
    const t0 = performance.now();
    if (met()) return { ok: true, waitedMs: 0 };
    return new Promise((resolve) => {
      let timer = 0;
      let queued = false;
      const done = (ok) => {
        obs.disconnect();
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ ok, waitedMs: Math.round(performance.now() - t0) });
      };
      const check = () => {
        queued = false;
        if (met()) done(true);
      };
      const obs = new MutationObserver(() => {
        if (!queued) {
          queued = true;
          setTimeout(check, 30);
        }
      });
      obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
      // Style changes that no mutation shows (CSS transitions, :hover) are caught by this.
      const poll = setInterval(check, 250);
      timer = setTimeout(() => done(false), timeout);
    });
  }

  function mark() {
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

  function unmark() {
    for (const el of document.querySelectorAll(`[${params.attr}]`)) el.removeAttribute(params.attr);
    const found = params.ref ? lookup(params.ref) : null;
    if (found && !('error' in found) && found.el.files) {
      return { files: [...found.el.files].map((f) => f.name) };
    }
    return {};
  }

  try {
    switch (op) {
      case 'snapshot': return snapshot();
      case 'point': return point();
      case 'focus': return focus();
      case 'value': return value();
      case 'select': return select();
      case 'scroll': return scroll();
      case 'rect': return rect();
      case 'text': return text();
      case 'wait': return waitFor();
      case 'mark': return mark();
      case 'unmark': return unmark();
      case 'info': return { url: location.href, title: document.title, readyState: document.readyState };
      default: return fail('internal', `unknown page op ${op}`);
    }
  } catch (e) {
    return fail('page_error', `The page agent failed: ${e?.message ?? e}`);
  }
}
