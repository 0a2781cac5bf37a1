// WebMCP Sidecar, page agent, first file: roles and names, and the start of the agent.
//
// The browser tools' hands and eyes inside a page. The worker injects these files (page/agent/*.js,
// in the order of AGENT_FILES in background/page-calls.js) into the extension's isolated world
// of a tab's top frame ONCE per document, with chrome.scripting.executeScript({files}); each call
// is then a small func that runs `webmcpSidecar.agent.run(op, params)` there. The page cannot see
// that world, so the ref -> element map kept there cannot be read or forged by it, and it lives
// exactly as long as the document: a new page starts with no agent and no refs, and the worker
// injects the files again (the marker is `webmcpSidecar.agent`, with the extension's version).
//
// The files share `webmcpSidecar.agentParts` while they load: each takes what earlier files put
// there and adds its own; run.js (the last) publishes `agent` and drops `agentParts`. A second
// injection into a document that has this version's agent does nothing.
//
// Why in the page and not CDP's Accessibility.getFullAXTree: on a 30 000-element page that call
// takes 5-11 s through chrome.debugger (18 MB of nodes); walking the DOM here takes ~0.3 s and
// sends back only what a snapshot can show (bench/README.md, "Browser tools").
//
// Every op answers a plain object; failures are `{error: {code, message}}`, never a throw.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  const version = chrome.runtime.getManifest().version;
  if (ns.agent?.version === version) return;
  // Refs outlive a newer agent's injection (an extension update with the page open).
  /** @type {{started: boolean, base: number, next: number, refs: Map<string, {el: WeakRef<Element>, desc: string}>, ids: WeakMap<Element, string>}} */
  const st = ns.agentState ??= { started: false, base: 1, next: 1, refs: new Map(), ids: new WeakMap() };

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

  ns.agentParts = {
    version, st, INTERACTIVE, LEAF, NAME_SHOWN, SKIP_TAGS, BLOCK_TAGS, TEXT_INPUTS, CLICKY_TAGS,
    collapse, cut, shadowOf, page, fail, roleOf, nameOf, describe, isDisabled,
  };
})();
