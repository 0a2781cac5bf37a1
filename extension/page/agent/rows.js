// WebMCP Sidecar, page agent: the page's main repeated element (a table's rows, a list of
// results), for "save as skill": a run that read a page whose content is such a list gets an
// `extract` of its rows, not of the whole page's text. Loaded after selectors.js.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { collapse, cut, visible, robustSelector } = P;

  const MAX_SCAN = 5000; // elements looked at
  const MAX_FIELDS = 16;
  const MIN_ROWS = 3; // outside a table: fewer alike siblings are not "a list"
  const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head', 'select', 'option', 'svg', 'nav', 'header', 'footer']);
  const ident = (s) => CSS.escape(s);

  /** The classes that name an element's kind (not a framework's generated ones, not state). */
  const kindClasses = (el) => (typeof el.className === 'string' ? el.className.trim().split(/\s+/) : [])
    .filter((c) => c && c.length <= 40 && !/\d{3,}|^(?:active|selected|odd|even|first|last|hidden|open)$/i.test(c)).sort();

  /** A field's name from a column header: `Created at` -> `created_at`. */
  const fieldName = (text, k) => {
    const s = collapse(text).normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
      .replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40);
    return s && !/^\d/.test(s) ? s : `column_${k}`;
  };

  /** A selector for the rows: the container's own selector, then the rows' kind. */
  function listSelector(parent, sample, members) {
    const kind = `${ident(sample.localName)}${kindClasses(sample).map((c) => `.${ident(c)}`).join('')}`;
    const base = parent.localName === 'tbody' && parent.parentElement ? robustSelector(parent.parentElement) : robustSelector(parent);
    if (!base) return null;
    const sel = parent.localName === 'tbody' ? `${base} > tbody > ${kind}` : `${base} > ${kind}`;
    try {
      const found = document.querySelectorAll(sel);
      return found.length === members.length && members.every((m) => [...found].includes(m)) ? sel : null;
    } catch {
      return null;
    }
  }

  /** A table's columns as fields, named by its header cells. */
  function tableFields(table, rows) {
    const head = table.tHead?.rows?.[0] ?? [...table.rows].find((r) => [...r.cells].every((c) => c.localName === 'th'));
    const cells = head ? [...head.cells] : [];
    const width = Math.max(...rows.slice(0, 20).map((r) => r.cells.length));
    if (!cells.length || cells.length !== width || width > MAX_FIELDS) return null;
    /** @type {Record<string, {selector: string}>} */
    const fields = {};
    cells.forEach((c, k) => {
      let name = fieldName(c.textContent ?? '', k + 1);
      while (Object.hasOwn(fields, name)) name = `${name}_${k + 1}`;
      fields[name] = { selector: `:scope > :nth-child(${k + 1})` };
    });
    return fields;
  }

  /**
   * Op `rows`: the page's main repeated element as `{list, fields?, count}` (an `extract` step's
   * `list` and `fields`), or `{list: null}` when the page has none.
   */
  function rows() {
    /** @type {{parent: Element, members: Element[], score: number}|null} */
    let best = null;
    const all = document.body?.getElementsByTagName('*') ?? [];
    for (let i = 0; i < Math.min(all.length, MAX_SCAN); i++) {
      const parent = all[i];
      if (SKIP.has(parent.localName) || parent.children.length < 2) continue;
      const groups = new Map();
      for (const child of parent.children) {
        if (SKIP.has(child.localName)) continue;
        const key = `${child.localName}|${kindClasses(child).join('.')}`;
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(child);
      }
      for (const members of groups.values()) {
        const isRows = parent.localName === 'tbody' && members[0].localName === 'tr';
        if (members.length < (isRows ? 2 : MIN_ROWS)) continue;
        const shown = members.slice(0, 50).filter(visible);
        if (!shown.length) continue;
        const chars = shown.reduce((n, m) => n + Math.min(300, collapse(m.textContent ?? '').length), 0);
        const score = chars * (isRows ? 2 : 1) * (members.length / shown.length);
        if (chars >= 20 && (!best || score > best.score)) best = { parent, members, score };
      }
    }
    if (!best) return { list: null };
    const list = listSelector(best.parent, best.members[0], best.members);
    if (!list) return { list: null };
    const table = best.parent.localName === 'tbody' ? best.parent.parentElement : null;
    const fields = table ? tableFields(table, best.members) : null;
    return { list: cut(list, 1024), ...(fields ? { fields } : {}), count: best.members.length };
  }

  Object.assign(P, { rows });
})();
