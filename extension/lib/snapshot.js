// Turns the page agent's node records (page/agent/snapshot.js) into the compact snapshot text an agent
// reads: one line per element, indented by nesting, with a short ref per element
// (`- button "Create account" [e12]`). Pure: the records come from the page, refs are already
// assigned there.
//
// By default only what an agent can act on is kept, with just enough around it to make sense
// of it: headings, landmarks and containers that hold something kept, list items and table rows
// whose text says more than their controls do, live status messages. A depth limit and a
// character cap bound the output; a longer outline comes in pages, and says how to see the rest.

/**
 * @typedef {{
 *   p: number, role: string, ref?: string, name?: string, text?: string, i?: boolean,
 *   level?: number, value?: string, url?: string, options?: string[],
 *   checked?: boolean|'mixed', pressed?: boolean|'mixed', selected?: boolean, expanded?: boolean,
 *   disabled?: boolean, required?: boolean, readonly?: boolean, focused?: boolean, current?: string,
 * }} NodeRecord
 *   p: index of the parent record (-1 at the top); i: the element is interactive;
 *   role 'text' carries `text` (full snapshots only)
 * @typedef {{interactive?: boolean, maxDepth?: number, maxChars?: number, page?: number}} SnapshotOptions
 *   page: 1-based, when the outline is longer than maxChars
 * @typedef {{text: string, shown: number, total: number, truncated: boolean, page: number, pages: number}} SnapshotText
 */

export const DEFAULT_MAX_CHARS = 12_000;
/** Containers whose text is their name: kept (interactive mode) only when it adds something. */
const CONTEXT_ROLES = new Set(['listitem', 'row', 'article']);
/** Shown for what they say, even with nothing to act on inside. */
const MESSAGE_ROLES = new Set(['status', 'alert', 'alertdialog']);

/**
 * @param {NodeRecord[]} records in document order, parents before children
 * @param {SnapshotOptions} [opts]
 * @returns {SnapshotText}
 */
export function formatSnapshot(records, { interactive = true, maxDepth = Infinity, maxChars = DEFAULT_MAX_CHARS, page = 1 } = {}) {
  const kids = records.map(() => /** @type {number[]} */ ([]));
  const roots = [];
  records.forEach((r, i) => (r.p >= 0 && r.p < i ? kids[r.p].push(i) : roots.push(i)));
  const tree = prune(records, kids, roots, interactive);
  const total = countNodes(tree);
  /** @type {{line: string, parent: PrunedNode|null, hidden: number}[]} */
  const all = [];
  /** @param {PrunedNode[]} nodes @param {number} depth @param {PrunedNode|null} parent */
  const walk = (nodes, depth, parent) => {
    for (const node of nodes) {
      const hidden = depth >= maxDepth - 1 ? countNodes(node.kids) : 0;
      all.push({ line: formatLine(records[node.index], depth, hidden, interactive), parent, hidden });
      if (!hidden) walk(node.kids, depth + 1, node);
    }
  };
  walk(tree, 0, null);

  // Pages of whole lines, each at most maxChars (a longer line is a page of its own).
  const starts = [0];
  for (let i = 0, used = 0; i < all.length; i++) {
    const len = all[i].line.length + 1;
    if (used + len > maxChars && used > 0) {
      starts.push(i);
      used = 0;
    }
    used += len;
  }
  const pages = starts.length;
  const from = starts[Math.min(page, pages) - 1];
  const to = page < pages ? starts[page] : all.length;
  const mine = page <= pages ? all.slice(from, to) : [];
  const lines = mine.map((x) => x.line);
  const shown = mine.length;
  const truncated = pages > 1;
  if (page > pages) {
    lines.push(`… the snapshot has ${pages} page${pages === 1 ? '' : 's'} of up to ${maxChars} characters; there is no page ${page}.`);
  } else if (truncated) {
    const rest = page < pages ? all[to] : null;
    const part = rest?.parent && records[rest.parent.index].ref
      ? `, or outline one part with ref (e.g. ref=${records[rest.parent.index].ref}, the ${records[rest.parent.index].role} it goes on in)`
      : ', or outline one part with ref';
    const next = page < pages ? `browser_snapshot with page=${page + 1} for the next ${all.length - to} lines` : 'this is the last page';
    lines.push(`… page ${page} of ${pages} (up to ${maxChars} characters each): ${next}${part}.`);
  }
  return { text: lines.join('\n'), shown, total, truncated, page: Math.min(page, pages), pages };
}

/** @typedef {{index: number, kids: PrunedNode[]}} PrunedNode */

/**
 * The tree of kept records: a dropped record's kept children move up to its parent.
 * @param {NodeRecord[]} records @param {number[][]} kids @param {number[]} roots @param {boolean} interactive
 * @returns {PrunedNode[]}
 */
function prune(records, kids, roots, interactive) {
  /** @returns {PrunedNode[]} */
  const visit = (i) => {
    const r = records[i];
    const below = kids[i].flatMap(visit);
    if (r.role === 'text') return interactive ? [] : [{ index: i, kids: [] }];
    if (r.i) return [{ index: i, kids: below }];
    if (r.role === 'heading') {
      // A heading that only wraps a link of the same name says nothing the link does not.
      if (below.length === 1 && records[below[0].index].i && records[below[0].index].name === r.name) return below;
      return [{ index: i, kids: below }];
    }
    if (MESSAGE_ROLES.has(r.role) && (r.name || below.length)) return [{ index: i, kids: below }];
    if (!below.length) return !interactive && r.name ? [{ index: i, kids: [] }] : [];
    if (interactive && CONTEXT_ROLES.has(r.role) && !addsContext(r, below, records)) return below;
    return [{ index: i, kids: below }];
  };
  return roots.flatMap(visit);
}

/** Whether a list item's (or row's) text says more than the names of what it holds. */
function addsContext(r, below, records) {
  const own = norm(r.name);
  if (!own) return false;
  let rest = own;
  const names = [];
  const collect = (nodes) => nodes.forEach((n) => { names.push(norm(records[n.index].name)); collect(n.kids); });
  collect(below);
  for (const n of names) if (n) rest = rest.replace(n, '');
  return rest.replace(/[\s\p{P}]+/gu, '').length > 0;
}

const norm = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

/** @param {PrunedNode[]} nodes */
function countNodes(nodes) {
  let n = 0;
  for (const node of nodes) n += 1 + countNodes(node.kids);
  return n;
}

/**
 * One line of the snapshot.
 * @param {NodeRecord} r @param {number} depth @param {number} hidden kept nodes below, past the depth limit
 * @param {boolean} interactive
 */
export function formatLine(r, depth, hidden = 0, interactive = true) {
  const indent = '  '.repeat(depth);
  if (r.role === 'text') return `${indent}- text ${JSON.stringify(r.text ?? '')}`;
  let s = `${indent}- ${r.role}`;
  // Full snapshots show a container's text as its own lines; its name would repeat it.
  const showName = r.name && (interactive || !CONTEXT_ROLES.has(r.role));
  if (showName) s += ` ${JSON.stringify(r.name)}`;
  if (r.ref) s += ` [${r.ref}]`;
  if (r.level) s += ` level=${r.level}`;
  if (r.value) s += ` value=${JSON.stringify(r.value)}`;
  if (r.checked === 'mixed') s += ' mixed';
  else if (r.checked === true) s += ' checked';
  else if (r.checked === false && (r.role === 'checkbox' || r.role === 'radio' || r.role === 'switch')) s += ' unchecked';
  if (r.pressed === true) s += ' pressed';
  if (r.selected) s += ' selected';
  if (r.expanded === true) s += ' expanded';
  else if (r.expanded === false) s += ' collapsed';
  if (r.disabled) s += ' disabled';
  if (r.required) s += ' required';
  if (r.readonly) s += ' readonly';
  if (r.focused) s += ' focused';
  if (r.current) s += ` current=${r.current}`;
  if (r.options?.length) s += ` options=${JSON.stringify(r.options)}`;
  if (r.url) s += ` -> ${r.url}`;
  if (hidden) s += ` (+${hidden} inside)`;
  return s;
}
