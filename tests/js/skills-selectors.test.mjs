// robustSelector (page/agent/selectors.js): a CSS selector that finds an element, and only it,
// for "save as skill"; stable attributes first, a structural path last. Op `selector_for {ref}`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentPage } from './skills-dom.mjs';

const PAGE = `
  <header><nav><a href="/shop/">Home</a><a href="/shop/cart">Cart</a></nav></header>
  <form id="search"><input name="q" placeholder="Search the shop"><button type="submit">Go</button></form>
  <div id="ember1234" class="css-1x9z2k item"><button data-testid="buy-now">Buy</button></div>
  <div id="a1b2c3d4e5"><button aria-label="Close dialog">×</button><button aria-label="Close dialog">x</button></div>
  <ul class="list"><li>one</li><li>two <span>inner</span></li><li>three</li></ul>
  <section><p>a</p><p>b</p></section><section><p>c</p><p>d</p></section>
  <input type="submit" value="Send order">
  <div id="has space">spaced</div>
  <div id="host"></div>
`;

function setup() {
  const p = agentPage(PAGE);
  const sel = (el) => selectorOf(p, el);
  return { p, sel };
}

/** The selector for `el`, checked to find it alone in its document. */
function selectorOf(p, el) {
  const ref = p.ref(el);
  return p.run('selector_for', { ref }).then((r) => {
    assert.ok(r.selector, JSON.stringify(r));
    const all = p.doc.querySelectorAll(r.selector);
    assert.equal(all.length, 1, `${r.selector} is unique`);
    assert.equal(all[0], el, `${r.selector} finds the element`);
    return r.selector;
  });
}

test('stable attributes first: id, test id, name, labels, link targets, input buttons', async () => {
  const { p, sel } = setup();
  const $ = (s) => p.doc.querySelector(s);
  assert.equal(await sel($('#search')), '#search');
  assert.equal(await sel($('[data-testid=buy-now]')), '[data-testid="buy-now"]');
  assert.equal(await sel($('input[name=q]')), 'input[name="q"]');
  assert.equal(await sel($('a[href="/shop/cart"]')), 'a[href="/shop/cart"]');
  assert.equal(await sel($('input[type=submit]')), 'input[type="submit"][value="Send order"]');
  assert.equal(await sel($('#search button')), 'button[type="submit"]');
  assert.equal(await sel($('[id="has space"]')), '#has\\ space');
});

test('made-up ids and classes are passed over; a unique ancestor anchors what is not unique', async () => {
  const { p, sel } = setup();
  const $ = (s) => p.doc.querySelector(s);
  const item = await sel($('.item'));
  assert.ok(!item.includes('ember1234') && !item.includes('css-1x9z2k'), item);
  assert.equal(item, 'div.item');
  const closes = p.doc.querySelectorAll('[aria-label="Close dialog"]');
  const second = await sel(closes[1]);
  assert.ok(!second.includes('a1b2c3d4e5'), second);
  assert.match(second, /:nth-of-type\(2\)$/);
});

test('a structural :nth-of-type path only as the last resort, and it finds the element', async () => {
  const { p, sel } = setup();
  const li = p.doc.querySelectorAll('li')[1];
  assert.equal(await sel(li), 'ul.list > li:nth-of-type(2)');
  const span = li.querySelector('span');
  assert.equal(await sel(span), 'ul.list span');
  const d = p.doc.querySelectorAll('section p')[3];
  const path = await sel(d);
  assert.match(path, /section:nth-of-type\(2\) > p:nth-of-type\(2\)$/);
});

test('an element in a shadow tree has no document selector; a bad ref is refused', async () => {
  const { p } = setup();
  const root = p.doc.querySelector('#host').attachShadow({ mode: 'open' });
  root.innerHTML = '<button>inside</button>';
  const r = await p.run('selector_for', { ref: p.ref(root.querySelector('button')) });
  assert.equal(r.error.code, 'invalid_args');
  assert.match(r.error.message, /shadow tree/);
  assert.equal((await p.run('selector_for', { ref: 'e999' })).error.code, 'not_found');
  assert.equal((await p.run('selector_for', { ref: 'nope' })).error.code, 'invalid_args');
});
