import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSnapshot, formatLine } from '../../extension/lib/snapshot.js';

// Records as the page agent makes them: parent index, role, ref, name, states.
const form = [
  { p: -1, role: 'navigation', ref: 'e1', name: 'Site' },
  { p: 0, role: 'link', ref: 'e2', name: 'Home', i: true, url: '/' },
  { p: -1, role: 'main', ref: 'e3' },
  { p: 2, role: 'heading', ref: 'e4', name: 'Sign up', level: 1 },
  { p: 2, role: 'form', ref: 'e5', name: 'Sign-up form' },
  { p: 4, role: 'textbox', ref: 'e6', name: 'Email', i: true, value: 'a@b.c', required: true },
  { p: 4, role: 'checkbox', ref: 'e7', name: 'News', i: true, checked: false },
  { p: 4, role: 'combobox', ref: 'e8', name: 'Plan', i: true, value: 'Free', options: ['Free', 'Pro'] },
  { p: 4, role: 'button', ref: 'e9', name: 'Create', i: true, disabled: true },
  { p: 2, role: 'paragraph', ref: 'e10' },
  { p: 9, role: 'text', text: 'Some words.' },
  { p: 2, role: 'status', ref: 'e11', name: 'Saved' },
  { p: 2, role: 'list', ref: 'e12' },
  { p: 12, role: 'listitem', ref: 'e13', name: 'Nothing to act on' },
];

test('interactive snapshot: controls with their context, one line each, indented', () => {
  const s = formatSnapshot(form);
  assert.equal(s.text, [
    '- navigation "Site" [e1]',
    '  - link "Home" [e2] -> /',
    '- main [e3]',
    '  - heading "Sign up" [e4] level=1',
    '  - form "Sign-up form" [e5]',
    '    - textbox "Email" [e6] value="a@b.c" required',
    '    - checkbox "News" [e7] unchecked',
    '    - combobox "Plan" [e8] value="Free" options=["Free","Pro"]',
    '    - button "Create" [e9] disabled',
    '  - status "Saved" [e11]',
  ].join('\n'));
  assert.equal(s.truncated, false);
  assert.equal(s.shown, 10);
  assert.equal(s.total, 10);
});

test('full snapshot keeps text and named containers', () => {
  const s = formatSnapshot(form, { interactive: false });
  assert.match(s.text, /\n {2}- paragraph \[e10\]\n {4}- text "Some words\."/);
  assert.match(s.text, / {4}- listitem \[e13\]/); // its name is its text: not repeated
  assert.match(s.text, /- list \[e12\]/);
});

test('a heading that only wraps a link of the same name gives way to the link', () => {
  const recs = [
    { p: -1, role: 'heading', ref: 'e1', name: 'Product 5', level: 3 },
    { p: 0, role: 'link', ref: 'e2', name: 'Product 5', i: true },
    { p: -1, role: 'heading', ref: 'e3', name: 'Reviews', level: 2 },
    { p: 2, role: 'link', ref: 'e4', name: 'all', i: true },
  ];
  assert.equal(formatSnapshot(recs).text, [
    '- link "Product 5" [e2]',
    '- heading "Reviews" [e3] level=2',
    '  - link "all" [e4]',
  ].join('\n'));
});

test('list items and rows stay only when their text says more than their controls', () => {
  const recs = [
    { p: -1, role: 'list', ref: 'e1' },
    { p: 0, role: 'listitem', ref: 'e2', name: 'Go home' },
    { p: 1, role: 'link', ref: 'e3', name: 'Go home', i: true },
    { p: -1, role: 'table', ref: 'e4' },
    { p: 3, role: 'row', ref: 'e5', name: 'Invoice 17 $40 Delete' },
    { p: 4, role: 'button', ref: 'e6', name: 'Delete', i: true },
  ];
  assert.equal(formatSnapshot(recs).text, [
    '- list [e1]',
    '  - link "Go home" [e3]',
    '- table [e4]',
    '  - row "Invoice 17 $40 Delete" [e5]',
    '    - button "Delete" [e6]',
  ].join('\n'));
});

test('containers with nothing kept inside are dropped, their kept children lifted', () => {
  const recs = [
    { p: -1, role: 'region', ref: 'e1', name: 'Empty' },
    { p: -1, role: 'dialog', ref: 'e2', name: 'Confirm' },
    { p: 1, role: 'article', ref: 'e3' }, // no text of its own: nothing to add
    { p: 2, role: 'button', ref: 'e4', name: 'Go', i: true },
  ];
  assert.equal(formatSnapshot(recs).text, '- dialog "Confirm" [e2]\n  - button "Go" [e4]');
});

test('the depth limit folds deeper levels into a count', () => {
  const s = formatSnapshot(form, { maxDepth: 1 });
  assert.equal(s.text, '- navigation "Site" [e1] (+1 inside)\n- main [e3] (+7 inside)');
  assert.equal(s.shown, 2);
  assert.equal(s.truncated, false);
});

test('a long outline comes in pages of whole lines, each saying how to go on', () => {
  const recs = [{ p: -1, role: 'main', ref: 'e1' }];
  for (let i = 0; i < 2000; i++) recs.push({ p: 0, role: 'button', ref: `e${i + 2}`, name: `Add to cart ${i}`, i: true });
  const first = formatSnapshot(recs, { maxChars: 1000 });
  assert.equal(first.truncated, true);
  assert.equal(first.page, 1);
  const lines = first.text.split('\n');
  const body = lines.slice(0, -1).join('\n');
  assert.ok(body.length <= 1000, `${body.length}`);
  assert.equal(lines[0], '- main [e1]');
  for (const l of lines.slice(1, -1)) assert.match(l, /^ {2}- button "Add to cart \d+" \[e\d+\]$/);
  assert.match(lines.at(-1), new RegExp(`^… page 1 of ${first.pages} \\(up to 1000 characters each\\): ` +
    `browser_snapshot with page=2 for the next ${2001 - first.shown} lines, or outline one part with ref ` +
    '\\(e\\.g\\. ref=e1, the main it goes on in\\)\\.$'));
  // Every line is on exactly one page.
  let seen = 0;
  for (let page = 1; page <= first.pages; page++) {
    const s = formatSnapshot(recs, { maxChars: 1000, page });
    seen += s.shown;
    if (page === first.pages) assert.match(s.text.split('\n').at(-1), /this is the last page/);
  }
  assert.equal(seen, 2001);
  assert.match(formatSnapshot(recs, { maxChars: 1000, page: 999 }).text, /there is no page 999/);
  assert.equal(formatSnapshot(recs.slice(0, 3), { page: 1 }).truncated, false);
});

test('names are quoted as JSON and states spelled out', () => {
  assert.equal(formatLine({ p: -1, role: 'button', ref: 'e1', name: 'Say "hi"', pressed: true, expanded: false, focused: true }, 2),
    '    - button "Say \\"hi\\"" [e1] pressed collapsed focused');
  assert.equal(formatLine({ p: -1, role: 'checkbox', ref: 'e2', name: 'All', checked: 'mixed' }, 0), '- checkbox "All" [e2] mixed');
  assert.equal(formatLine({ p: -1, role: 'link', ref: 'e3', name: 'Page', current: 'page', url: '/p' }, 0), '- link "Page" [e3] current=page -> /p');
  assert.equal(formatLine({ p: -1, role: 'text', text: 'a\nb' }, 1), '  - text "a\\nb"');
});

test('records whose parent index is wrong become top-level rather than crash', () => {
  const s = formatSnapshot([{ p: 5, role: 'button', ref: 'e1', name: 'X', i: true }, { p: 0, role: 'link', ref: 'e2', name: 'Y', i: true }]);
  assert.equal(s.text, '- button "X" [e1]\n  - link "Y" [e2]');
});
