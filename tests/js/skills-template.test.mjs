// Skill templates (extension/lib/skills/template.js): `{{name}}` filled from arguments and
// extracted values, as docs/SKILLS.md "Templates" says; nothing is ever evaluated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveStep, resolveValue, MAX_TEMPLATE_OUTPUT, TemplateError } from '../../extension/lib/skills/template.js';

const vars = {
  query: 'red shoes', n: 3, yes: true, none: null,
  products: [{ name: 'A', price: '1' }, { name: 'B', price: '2' }], obj: { k: 'v' },
  link: '/shop/item?id=3&x=y',
};

test('a string that is exactly {{name}} gives the value itself; elsewhere text, JSON for objects', () => {
  const step = resolveStep({ action: 'fill', selector: '#q', value: '{{query}}', timeout_ms: 100 }, vars);
  assert.deepEqual(step, { action: 'fill', selector: '#q', value: 'red shoes', timeout_ms: 100 });
  assert.deepEqual(resolveStep({ action: 'select', selector: 's', values: '{{products}}' }, vars).values, vars.products);
  // The host's one rule for names: no spaces inside the braces (the host refuses `{{ n }}`).
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{ n }}' }, vars).value, '{{ n }}');
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: 'n={{n}} {{yes}} [{{none}}]' }, vars).value, 'n=3 true []');
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: 'got {{obj}} and {{products}}' }, vars).value,
    'got {"k":"v"} and [{"name":"A","price":"1"},{"name":"B","price":"2"}]');
  assert.equal(resolveStep({ action: 'click', selector: 'button', text: 'Add {{query}}' }, vars).text, 'Add red shoes');
  assert.equal(resolveStep({ action: 'click', selector: 'li[data-n="{{n}}"] a' }, vars).selector, 'li[data-n="3"] a');
});

test('a missing name gives ""; prototype names are not found; nothing is evaluated', () => {
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{missing}}' }, vars).value, '');
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: 'a{{missing}}b' }, vars).value, 'ab');
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.equal(resolveStep({ action: 'fill', selector: 's', value: `x{{${name}}}` }, vars).value, 'x');
    assert.equal(resolveStep({ action: 'fill', selector: 's', value: `{{${name}}}` }, vars).value, '');
  }
  // No expression language: these are not names, so they stay as written.
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{ 1 + 1 }}' }, vars).value, '{{ 1 + 1 }}');
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{query.length}}' }, vars).value, '{{query.length}}');
  // A value that looks like a template is not resolved again.
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{t}}!' }, { t: '{{query}}' }).value, '{{query}}!');
});

test("navigate's url: interpolated values are percent-encoded; other steps' fields are not", () => {
  assert.equal(resolveStep({ action: 'navigate', url: '/search?q={{query}}&n={{n}}' }, vars).url, '/search?q=red%20shoes&n=3');
  assert.equal(resolveStep({ action: 'navigate', url: '/p/{{link}}' }, vars).url, '/p/%2Fshop%2Fitem%3Fid%3D3%26x%3Dy');
  // the whole URL from a value (an extracted link) is that URL as text
  assert.equal(resolveStep({ action: 'navigate', url: '{{link}}' }, vars).url, '/shop/item?id=3&x=y');
  assert.equal(resolveStep({ action: 'wait_for', url: '*q={{query}}*' }, vars).url, '*q=red shoes*');
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{query}}', url: 'x{{query}}' }, vars, { urlEncodeIn: ['url'] }).url, 'xred%20shoes');
});

test('steps are copied deep, names (action, as, field keys) are kept, the input is not changed', () => {
  const raw = {
    action: 'extract', as: '{{query}}', list: '.r-{{n}}',
    fields: { '{{n}}': { selector: '.name-{{n}}' }, url: { selector: 'a', attribute: 'href' } }, limit: 5,
  };
  const copy = JSON.parse(JSON.stringify(raw));
  const out = resolveStep(raw, vars);
  assert.deepEqual(out, {
    action: 'extract', as: '{{query}}', list: '.r-3',
    fields: { '{{n}}': { selector: '.name-3' }, url: { selector: 'a', attribute: 'href' } }, limit: 5,
  });
  assert.deepEqual(raw, copy);
  const proto = resolveStep(JSON.parse('{"action":"fill","__proto__":{"polluted":"{{query}}"}}'), vars);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ['action', '__proto__']);
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
});

test("resolveValue: return's value, deep, strings as templates", () => {
  assert.deepEqual(resolveValue({ query: '{{query}}', products: '{{products}}', count: '{{n}} found', fixed: 7, list: ['{{yes}}', null] }, vars),
    { query: 'red shoes', products: vars.products, count: '3 found', fixed: 7, list: [true, null] });
  assert.equal(resolveValue('{{nothing}}', vars), '');
  assert.equal(resolveValue(null, vars), null);
});

test('output is capped and nesting is bounded', () => {
  const big = 'x'.repeat(MAX_TEMPLATE_OUTPUT / 2 + 1);
  assert.throws(() => resolveStep({ action: 'fill', selector: 's', value: '{{big}}{{big}}' }, { big }), TemplateError);
  assert.throws(() => resolveValue('{{big}}{{big}}{{big}}{{big}}', { big }), /at most 1048576/);
  // the value itself (not a new string) is passed as is
  assert.equal(resolveStep({ action: 'fill', selector: 's', value: '{{big}}' }, { big }).value, big);
  let deep = /** @type {any} */ ('{{query}}');
  for (let i = 0; i < 40; i++) deep = [deep];
  assert.throws(() => resolveValue(deep, vars), /nests deeper/);
});
