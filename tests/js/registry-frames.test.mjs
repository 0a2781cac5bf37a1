// Cross-origin frames in the registry (issue 10): a frame of another site adds only the tools it
// exposed to the top origin, claiming its own (browser-given) origin, while a frame of the tab's
// site granted it `tools`; native tools of another origin come through the top frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../extension/lib/registry.js';
import { checkAllows, exposedTools, originOf } from '../../extension/lib/frame-exposure.js';

const W = 1;
const TOP = 'https://shop.example';
const WIDGET = 'https://pay.example';
const tool = (name, extra = {}) => ({ name, description: `does ${name}`, ...extra });
const names = (r) => r.siteTools('shop.example').map((t) => t.name);

/** A tab of shop.example whose top frame granted `tools` to token `tok` for `origins`. */
function tab(origins = [WIDGET], tok = 'tok1') {
  const r = new Registry();
  r.reportFrame(1, 0, W, `${TOP}/`, [tool('top')], false, { allows: [{ token: tok, origins }] });
  return r;
}
const widget = (r, tools, opts = {}) =>
  r.reportFrame(1, 7, W, `${WIDGET}/w.html`, tools, false, { tabUrl: `${TOP}/`, origin: WIDGET, grant: 'tok1', ...opts });

test('an exposed tool of a granted frame counts, with its origin; the rest stays out', () => {
  const r = tab();
  widget(r, [
    tool('pay', { origin: WIDGET, exposedTo: [TOP] }),
    tool('hidden', { origin: WIDGET }),
    tool('elsewhere', { origin: WIDGET, exposedTo: ['https://other.example'] }),
    tool('lying', { origin: TOP, exposedTo: [TOP] }), // claims an origin the browser does not give it
  ]);
  assert.deepEqual(names(r), ['pay', 'top']);
  const pay = r.siteTools('shop.example').find((t) => t.name === 'pay');
  assert.equal(pay.origin, WIDGET);
  assert.equal('exposedTo' in pay, false);
  assert.deepEqual(r.route('shop.example', 'pay'), { tabId: 1, frameId: 7, windowId: W });
  assert.equal(r.siteTools('shop.example').find((t) => t.name === 'top').origin, undefined);
});

test('without a grant, with a wrong token, or a grant for another origin, nothing counts', () => {
  for (const [origins, grant] of [[[WIDGET], null], [[WIDGET], 'other'], [['https://x.example'], 'tok1']]) {
    const r = tab(origins);
    widget(r, [tool('pay', { origin: WIDGET, exposedTo: [TOP] })], { grant });
    assert.deepEqual(names(r), ['top'], JSON.stringify({ origins, grant }));
  }
  const any = tab(['*']);
  widget(any, [tool('pay', { origin: WIDGET, exposedTo: [TOP] })]);
  assert.deepEqual(names(any), ['pay', 'top']);
});

test('a grant that goes (the top frame reports again without it) takes the tools away', () => {
  const r = tab();
  widget(r, [tool('pay', { origin: WIDGET, exposedTo: [TOP] })]);
  r.takeChanges();
  r.reportFrame(1, 0, W, `${TOP}/`, [tool('top')], false, {});
  assert.deepEqual(r.takeChanges().map((c) => c.tools.map((t) => t.name)), [['top']]);
});

test("the top frame's own name wins a clash; a granted frame cannot add same-site tools", () => {
  const r = tab();
  widget(r, [tool('top', { origin: WIDGET, exposedTo: [TOP], description: 'widget' })]);
  assert.equal(r.siteTools('shop.example')[0].description, 'does top');
  // A same-site frame's `origin` claim is ignored.
  r.reportFrame(1, 3, W, `${TOP}/inner`, [tool('inner', { origin: WIDGET })], false, { tabUrl: `${TOP}/` });
  assert.equal(r.siteTools('shop.example').find((t) => t.name === 'inner').origin, undefined);
});

test("native: another origin's tool in the top frame (getTools({fromOrigins})) keeps its origin", () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, `${TOP}/`, [tool('own', { origin: TOP }), tool('pay', { origin: WIDGET })], true);
  const tools = r.siteTools('shop.example');
  assert.deepEqual(tools.map((t) => [t.name, t.origin]), [['own', undefined], ['pay', WIDGET]]);
  // A native sub-frame of another site adds nothing itself (Chromium hands its tools to the top).
  r.reportFrame(1, 7, W, `${WIDGET}/`, [tool('x', { origin: WIDGET, exposedTo: [TOP] })], true, { origin: WIDGET });
  assert.deepEqual(r.siteTools('shop.example').map((t) => t.name), ['own', 'pay']);
});

test('helpers: originOf, exposedTools, checkAllows', () => {
  assert.equal(originOf('https://a.example:8443/x?y'), 'https://a.example:8443');
  assert.equal(originOf('about:blank'), null);
  assert.equal(originOf(5), null);
  assert.deepEqual(exposedTools([tool('a', { origin: WIDGET, exposedTo: [`${TOP}/path`] })], WIDGET, TOP).length, 1);
  assert.deepEqual(exposedTools('nope', WIDGET, TOP), []);
  assert.deepEqual(exposedTools([tool('a', { origin: WIDGET, exposedTo: [TOP] })], WIDGET, null), []);
  const m = checkAllows([{ token: 't', origins: ['*', `${WIDGET}/x`, 'junk', 3] }, { token: 5, origins: [] }, 'x']);
  assert.deepEqual([...m], [['t', ['*', WIDGET]]]);
});
