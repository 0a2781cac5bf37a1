// The page agent's skill ops (page/agent/skill-steps.js, selectors.js): `skill_step` runs one
// resolved step in the document, `skill_health` checks the page. Real agent files in jsdom.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentPage } from './skills-dom.mjs';

const SHOP = `
  <form id="search" action="/shop/search">
    <input id="q" name="q" value="old">
    <button id="go" type="submit">Search</button>
  </form>
  <div class="results">
    <div class="result"><a href="/shop/item/1"><span class="name">  Red
      shoes </span></a><span class="price">10</span></div>
    <div class="result"><a href="item/2"><span class="name">Blue hat</span></a><span class="price">20</span></div>
    <div class="result"><a href="https://shop.test/shop/item/3"><span class="name">Green bag</span></a></div>
  </div>
  <button class="add-to-cart" hidden>Add (hidden)</button>
  <button class="add-to-cart">Add to cart</button>
  <button class="add-to-cart">Add to wishlist</button>
  <textarea id="notes"></textarea>
  <div id="editor" contenteditable="true">draft</div>
  <input id="agree" type="checkbox">
  <input type="radio" name="size" id="small" checked><input type="radio" name="size" id="large">
  <select id="colour"><option value="r">Red</option><option value="g">Green</option><option value="b" disabled>Blue</option></select>
  <select id="tags" multiple><option value="a">Alpha</option><option value="b">Beta</option><option value="c">Gamma</option></select>
  <input id="pw" type="password" value="secret">
`;

const step = (s, index = 0) => ({ step: s, index });

test('fill: the native setter (past an own `value` property, as React adds), then input and change', async () => {
  const p = agentPage(SHOP);
  const q = p.$('#q');
  const tracked = [];
  // A framework's value tracker on the instance: a fill that assigned el.value would go through it.
  Object.defineProperty(q, 'value', {
    configurable: true,
    get() { return p.window.HTMLInputElement.prototype.__lookupGetter__('value').call(this); },
    set(v) { tracked.push(v); p.window.HTMLInputElement.prototype.__lookupSetter__('value').call(this, v); },
  });
  const log = p.record(['input', 'change'], q);
  assert.deepEqual(await p.run('skill_step', step({ action: 'fill', selector: '#q', value: 'red shoes' })), { ok: true });
  assert.equal(q.value, 'red shoes');
  assert.deepEqual(tracked, [], 'the instance setter was bypassed');
  assert.deepEqual(log, ['input:q', 'change:q']);
  assert.equal(p.doc.activeElement, q);

  assert.deepEqual(await p.run('skill_step', step({ action: 'fill', selector: 'textarea', value: 42 })), { ok: true });
  assert.equal(p.$('#notes').value, '42');
  assert.deepEqual(await p.run('skill_step', step({ action: 'fill', selector: '#editor', value: 'new text' })), { ok: true });
  assert.equal(p.$('#editor').textContent, 'new text');

  const bad = await p.run('skill_step', step({ action: 'fill', selector: '#agree', value: 'x' }, 2));
  assert.equal(bad.error.code, 'page_error');
  assert.match(bad.error.message, /^step 3 \(fill "#agree"\): input#agree is a checkbox or radio button \(use a `check` step\)/);
});

test('type: key by key with beforeinput/input per character; clear by default, or append', async () => {
  const p = agentPage(SHOP);
  const q = p.$('#q');
  const log = p.record(['keydown', 'keypress', 'beforeinput', 'input', 'keyup', 'change'], q);
  assert.deepEqual(await p.run('skill_step', step({ action: 'type', selector: '#q', text: 'ab' })), { ok: true });
  assert.equal(q.value, 'ab');
  assert.deepEqual(log, ['input:q', // the clear
    'keydown:q', 'keypress:q', 'beforeinput:q', 'input:q', 'keyup:q',
    'keydown:q', 'keypress:q', 'beforeinput:q', 'input:q', 'keyup:q', 'change:q']);

  // A page that refuses a character in beforeinput does not get it.
  q.addEventListener('beforeinput', (e) => { if (e.data === 'x') e.preventDefault(); });
  await p.run('skill_step', step({ action: 'type', selector: '#q', text: 'cxd', clear: false }));
  assert.equal(q.value, 'abcd');

  await p.run('skill_step', step({ action: 'type', selector: '#editor', text: '!' , clear: false }));
  assert.equal(p.$('#editor').textContent, 'draft!');
});

test('click: pointer and mouse events then click; the first visible match; a text filter', async () => {
  const p = agentPage(SHOP);
  const clicked = [];
  for (const b of p.doc.querySelectorAll('.add-to-cart')) b.addEventListener('click', () => clicked.push(b.textContent));
  const log = p.record(['mousedown', 'mouseup', 'click'], p.doc.querySelectorAll('.add-to-cart')[1]);
  assert.deepEqual(await p.run('skill_step', step({ action: 'click', selector: '.add-to-cart' })), { ok: true });
  assert.deepEqual(clicked, ['Add to cart'], 'the hidden first match is passed over');
  assert.deepEqual(log, ['mousedown', 'mouseup', 'click']);
  await p.run('skill_step', step({ action: 'click', selector: 'button.add-to-cart', text: 'WISHLIST' }));
  assert.deepEqual(clicked, ['Add to cart', 'Add to wishlist']);
  // Only the hidden one has this text: it is the only match, so it is used.
  await p.run('skill_step', step({ action: 'click', selector: 'button', text: 'hidden' }));
  assert.equal(clicked.at(-1), 'Add (hidden)');
});

test('a missing element: the step, what went wrong, and what the page has instead', async () => {
  const p = agentPage(SHOP);
  const r = await p.run('skill_step', step({ action: 'click', selector: 'form#search button.submit-now', timeout_ms: 40 }, 2));
  assert.equal(r.error.code, 'page_error');
  const m = r.error.message;
  assert.match(m, /^step 3 \(click "form#search button\.submit-now"\): no element matches \(waited 40 ms\); the page \(https:\/\/shop\.test\/shop\/, "Shop"\) has /);
  // The controls a person would pick, each with a selector that finds it: the form's button and
  // input first (the form shares a word with the selector), then buttons (the same tag); one of
  // several alike by its text (a step's `text` filter). Never the form itself, nor its text.
  assert.ok(m.includes(' has these instead: button "Search" (#go); input[type=text] "q" (#q); '
    + 'button "Add to cart" (button.add-to-cart, text "Add to cart"); '), m);
  assert.ok(!m.includes('form') || !/form[^ ]* "/.test(m.split(' has ')[1]), 'no form listed with its text');
  assert.equal(m.split(' has these instead: ')[1].split('; ').length, 5, 'at most 5 candidates');

  // Nothing alike: the page's first controls.
  const q = await p.run('skill_step', step({ action: 'fill', selector: '#query', value: 'x', timeout_ms: 30 }));
  assert.match(q.error.message, /no element matches \(waited 30 ms\); the page \(https:\/\/shop\.test\/shop\/, "Shop"\) has these instead: input\[type=text\] "q" \(#q\); button "Search" \(#go\); a "Red shoes" \(a\[href="\/shop\/item\/1"\]\)/);

  const t = await p.run('skill_step', step({ action: 'click', selector: '.add-to-cart', text: 'checkout', timeout_ms: 30 }));
  assert.match(t.error.message, /^step 1 \(click "\.add-to-cart"\): 3 elements match but none has the text "checkout" \(waited 30 ms\); the page/);
  assert.match(t.error.message, /button "Add to cart" \(button\.add-to-cart, text "Add to cart"\)/);
});

test('an invalid selector is a bad_request naming it; an unknown action too', async () => {
  const p = agentPage(SHOP);
  const r = await p.run('skill_step', step({ action: 'click', selector: 'button[', timeout_ms: 30 }, 4));
  assert.equal(r.error.code, 'bad_request');
  assert.match(r.error.message, /^step 5 \(click "button\["\): "button\[" is not a valid CSS selector/);
  const n = await p.run('skill_step', step({ action: 'navigate', url: '/x' }));
  assert.equal(n.error.code, 'bad_request');
  const w = await p.run('skill_step', step({ action: 'wait_for', url: '*/done' }));
  assert.equal(w.error.code, 'bad_request');
  assert.equal((await p.run('skill_step', { step: null, index: 0 })).error.code, 'bad_request');
});

test('trusted click and type only aim: a point in the viewport, or the focused field', async () => {
  const p = agentPage(SHOP);
  const go = p.$('#go');
  const box = { left: 100, top: 50, right: 180, bottom: 70, width: 80, height: 20, x: 100, y: 50 };
  go.getClientRects = () => [box];
  go.getBoundingClientRect = () => box;
  let clicks = 0;
  go.addEventListener('click', () => clicks++);
  assert.deepEqual(await p.run('skill_step', step({ action: 'click', selector: '#go', trusted: true })),
    { trusted: true, point: { x: 140, y: 60 } });
  assert.equal(clicks, 0, 'the worker clicks, through CDP');
  const hidden = await p.run('skill_step', step({ action: 'click', selector: '.add-to-cart', trusted: true }));
  assert.match(hidden.error.message, /has no size on the page/);

  p.$('#q').value = 'old';
  assert.deepEqual(await p.run('skill_step', step({ action: 'type', selector: '#q', text: 'x', trusted: true })), { trusted: true, focused: true });
  assert.equal(p.doc.activeElement, p.$('#q'));
  assert.equal(p.$('#q').value, 'old', 'nothing typed by the page agent');
  assert.equal(p.$('#q').selectionStart, 0, 'selected, so the typed text replaces it');
  assert.equal(p.$('#q').selectionEnd, 3);
  assert.deepEqual(await p.run('skill_step', step({ action: 'press', selector: '#notes', key: 'Enter', trusted: true })), { trusted: true, focused: true });
  assert.equal(p.doc.activeElement, p.$('#notes'));
});

test('press Enter in a form field submits the form as a browser would, unless the page stops the key', async () => {
  const p = agentPage(`${SHOP}<form id="bare"><input id="solo"></form>`);
  const submits = [];
  p.doc.addEventListener('submit', (e) => { e.preventDefault(); submits.push(`${e.target.id}:${e.submitter?.id ?? ''}`); });
  const keys = p.record(['keydown', 'keyup'], p.$('#q'));
  assert.deepEqual(await p.run('skill_step', step({ action: 'press', selector: '#q', key: 'Enter' })), { ok: true });
  assert.deepEqual(keys, ['keydown:q', 'keyup:q']);
  assert.deepEqual(submits, ['search:go'], 'through its default button');
  await p.run('skill_step', step({ action: 'press', selector: '#solo', key: 'Enter' }));
  assert.deepEqual(submits, ['search:go', 'bare:']);
  // The focused element when no selector is given; a stopped keydown submits nothing.
  p.$('#q').focus();
  p.$('#q').addEventListener('keydown', (e) => e.preventDefault());
  await p.run('skill_step', step({ action: 'press', key: 'Enter' }));
  assert.equal(submits.length, 2);
  // Escape does nothing but the key events.
  await p.run('skill_step', step({ action: 'press', selector: '#solo', key: 'Escape' }));
  assert.equal(submits.length, 2);
});

test('select by value or label, several for multiple; input/change only when it changed', async () => {
  const p = agentPage(SHOP);
  const log = p.record(['input', 'change'], p.$('#colour'));
  assert.deepEqual(await p.run('skill_step', step({ action: 'select', selector: '#colour', value: 'g' })), { ok: true });
  assert.equal(p.$('#colour').value, 'g');
  await p.run('skill_step', step({ action: 'select', selector: '#colour', value: 'green' }));
  assert.deepEqual(log, ['input:colour', 'change:colour'], 'the same option again changes nothing');
  await p.run('skill_step', step({ action: 'select', selector: '#colour', value: 'Red' }));
  assert.equal(p.$('#colour').value, 'r');
  await p.run('skill_step', step({ action: 'select', selector: '#tags', values: ['a', 'Gamma'] }));
  assert.deepEqual([...p.$('#tags').selectedOptions].map((o) => o.value), ['a', 'c']);
  const none = await p.run('skill_step', step({ action: 'select', selector: '#colour', value: 'purple' }));
  assert.match(none.error.message, /has no option "purple"; its options: "Red", "Green", "Blue"/);
  assert.match((await p.run('skill_step', step({ action: 'select', selector: '#colour', value: 'b' }))).error.message, /is disabled/);
  assert.match((await p.run('skill_step', step({ action: 'select', selector: '#colour', values: ['r', 'g'] }))).error.message, /takes one option/);
});

test('check sets a checkbox by clicking it only when its state differs; a radio cannot be unchecked', async () => {
  const p = agentPage(SHOP);
  let clicks = 0;
  p.$('#agree').addEventListener('click', () => clicks++);
  assert.deepEqual(await p.run('skill_step', step({ action: 'check', selector: '#agree' })), { ok: true });
  assert.equal(p.$('#agree').checked, true);
  await p.run('skill_step', step({ action: 'check', selector: '#agree', checked: true }));
  assert.equal(clicks, 1);
  await p.run('skill_step', step({ action: 'check', selector: '#agree', checked: false }));
  assert.equal(p.$('#agree').checked, false);
  await p.run('skill_step', step({ action: 'check', selector: '#large' }));
  assert.equal(p.$('#large').checked, true);
  assert.equal(p.$('#small').checked, false);
  assert.match((await p.run('skill_step', step({ action: 'check', selector: '#large', checked: false }))).error.message, /radio button/);
});

test('extract: text (trimmed, collapsed), attributes (URLs absolute), all, and lists of records', async () => {
  const p = agentPage(SHOP);
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'n', selector: '.name' })), { ok: true, value: 'Red shoes' });
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'h', selector: '.result a', attribute: 'href' })),
    { ok: true, value: 'https://shop.test/shop/item/1' });
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'x', selector: '.result', attribute: 'data-missing' })), { ok: true, value: null });
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'all', selector: '.price', all: true })), { ok: true, value: ['10', '20'] });
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'none', selector: '.nothing', all: true })), { ok: true, value: [] });
  assert.deepEqual(await p.run('skill_step', step({
    action: 'extract', as: 'products', list: '.result', limit: 2,
    fields: { name: { selector: '.name' }, price: { selector: '.price' }, url: { selector: 'a', attribute: 'href' }, raw: {} },
  })), {
    ok: true,
    value: [
      { name: 'Red shoes', price: '10', url: 'https://shop.test/shop/item/1', raw: 'Red shoes 10' },
      { name: 'Blue hat', price: '20', url: 'https://shop.test/shop/item/2', raw: 'Blue hat20' },
    ],
  });
  const three = await p.run('skill_step', step({ action: 'extract', as: 'p', list: '.result', fields: { price: { selector: '.price' } } }));
  assert.deepEqual(three.value, [{ price: '10' }, { price: '20' }, { price: null }]);
  assert.deepEqual(await p.run('skill_step', step({ action: 'extract', as: 'pw', selector: '#pw' })), { ok: true, value: '' }, 'never a password');
  const badField = await p.run('skill_step', step({ action: 'extract', as: 'p', list: '.result', fields: { a: { selector: ':::' } } }));
  assert.equal(badField.error.code, 'bad_request');
});

test('extract caps each value at 16 KiB and a list at 500 records', async () => {
  const p = agentPage(`<p id="long">${'word '.repeat(10000)}</p><ul>${'<li>x</li>'.repeat(600)}</ul>`);
  const long = await p.run('skill_step', step({ action: 'extract', as: 'l', selector: '#long' }));
  assert.equal(long.value.length, 16384);
  const list = await p.run('skill_step', step({ action: 'extract', as: 'l', list: 'li', limit: 10000 }));
  assert.equal(list.value.length, 500);
});

test('wait_for: an element that appears, one that goes, page text; a timeout says what the page has', async () => {
  const p = agentPage(SHOP);
  const w = p.window;
  w.setTimeout(() => { const d = p.doc.createElement('div'); d.className = 'toast'; d.textContent = 'Saved!'; p.doc.body.append(d); }, 20);
  assert.deepEqual(await p.run('skill_step', step({ action: 'wait_for', selector: '.toast', timeout_ms: 5000 })), { ok: true });
  w.setTimeout(() => p.$('.toast').remove(), 20);
  assert.deepEqual(await p.run('skill_step', step({ action: 'wait_for', selector: '.toast', gone: true, timeout_ms: 5000 })), { ok: true });
  w.setTimeout(() => { p.$('#notes').textContent = 'Order   CONFIRMED'; }, 20);
  assert.deepEqual(await p.run('skill_step', step({ action: 'wait_for', text: 'order confirmed', timeout_ms: 5000 })), { ok: true });
  // A hidden match does not count as there.
  const hidden = await p.run('skill_step', step({ action: 'wait_for', selector: 'button', text: 'hidden', timeout_ms: 30 }, 1));
  assert.match(hidden.error.message, /^step 2 \(wait_for "button"\): no visible element matched within 30 ms; the page \(https:\/\/shop\.test\/shop\/, "Shop"\) has these instead: button "Search" \(#go\); button "Add to cart" \(button\.add-to-cart, text "Add to cart"\)/);

  const never = await p.run('skill_step', step({ action: 'wait_for', selector: '.result-card', timeout_ms: 30 }, 2));
  assert.equal(never.error.code, 'page_error');
  assert.match(never.error.message, /^step 3 \(wait_for "\.result-card"\): no visible element matched within 30 ms; the page \(https:\/\/shop\.test\/shop\/, "Shop"\) has these instead: div "Red shoes 10" \(div\.result, text "Red shoes 10"\)/);
  const stays = await p.run('skill_step', step({ action: 'wait_for', selector: '#go', gone: true, timeout_ms: 30 }));
  assert.match(stays.error.message, /button#go "Search" was still on the page after 30 ms/);
  const text = await p.run('skill_step', step({ action: 'wait_for', text: 'Sold out', timeout_ms: 30 }));
  assert.match(text.error.message, /the page's text did not have "Sold out" after 30 ms/);
});

test('skill_health: every selector must match and the text be there; an invalid selector is unhealthy, never a throw', async () => {
  const p = agentPage(SHOP);
  assert.deepEqual(await p.run('skill_health', { selectors: ['form#search', '#q'], text: 'ADD TO CART' }), { healthy: true, missing: [] });
  assert.deepEqual(await p.run('skill_health', {}), { healthy: true, missing: [] });
  assert.deepEqual(await p.run('skill_health', { selectors: ['form#search', '#nope'], text: null }),
    { healthy: false, missing: ['#nope'], reason: 'no element matches "#nope"' });
  const bad = await p.run('skill_health', { selectors: ['a[', 42], text: 'Checkout' });
  assert.equal(bad.healthy, false);
  assert.deepEqual(bad.missing, ['a[', '42']);
  assert.match(bad.reason, /"a\[" is not a valid CSS selector; "42" is not a valid CSS selector; the page's text lacks "Checkout"/);
});
