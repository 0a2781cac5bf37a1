import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../extension/lib/registry.js';

const tool = (name, extra = {}) => ({ name, description: `does ${name}`, inputSchema: { type: 'object', properties: {} }, ...extra });
const names = (tools) => tools.map((t) => t.name);
const W = 1; // a window id

test('a frame report makes the site and its tools, sorted by name, source kept', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://mail.163.com/inbox', [tool('search'), tool('compose', { source: 'declarative' })], true);
  assert.deepEqual(r.sites(), ['mail.163.com']);
  const tools = r.siteTools('mail.163.com');
  assert.deepEqual(names(tools), ['compose', 'search']);
  assert.equal(tools[0].source, 'declarative');
  assert.equal(tools[1].source, 'native');
  assert.deepEqual(r.snapshot(), { 'mail.163.com': tools });
  assert.deepEqual(r.takeChanges(), [{ site: 'mail.163.com', tools }]);
});

test('polyfilled frames default to source polyfill', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], false);
  assert.equal(r.siteTools('a.com')[0].source, 'polyfill');
});

test('tools are normalised to the host model; bad ones dropped', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [
    tool('ok', { title: 'OK', annotations: { readOnlyHint: true, destructiveHint: 'yes', custom: 1 }, extra: 'x' }),
    { name: 'bad name' }, { name: 'x'.repeat(129) }, { name: 'no-desc' }, null, 'str',
    { name: 'ok', description: 'duplicate: first wins' },
    { name: 'schema', inputSchema: [1, 2], title: 7, source: 'evil', description: 5 },
  ], true);
  assert.deepEqual(r.siteTools('a.com'), [
    { name: 'no-desc', description: '', source: 'native' },
    { name: 'ok', title: 'OK', description: 'does ok', inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, custom: 1 }, source: 'native' },
    { name: 'schema', description: '', source: 'native' },
  ]);
  r.reportFrame(2, 0, W, 'https://b.com/', 'not a list', true);
  assert.deepEqual(r.siteTools('b.com'), []);
});

test('two tabs of one site share tools; the site stays until the last tab closes', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/one', [tool('x')], true);
  r.reportFrame(2, 0, W, 'https://a.com/two', [tool('y')], true);
  assert.deepEqual(names(r.siteTools('a.com')), ['x', 'y']);
  r.takeChanges();
  r.removeTab(1);
  assert.deepEqual(names(r.siteTools('a.com')), ['y']);
  assert.deepEqual(r.takeChanges(), [{ site: 'a.com', tools: r.siteTools('a.com') }]);
  r.removeTab(2);
  assert.deepEqual(r.sites(), []);
  assert.deepEqual(r.snapshot(), {});
  assert.deepEqual(r.takeChanges(), [{ site: 'a.com', tools: [] }]);
  assert.deepEqual(r.takeChanges(), []);
});

test('the newest tab definition wins in the union', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x', { description: 'old' })], true);
  r.reportFrame(2, 0, W, 'https://a.com/', [tool('x', { description: 'new' })], true);
  assert.equal(r.siteTools('a.com')[0].description, 'new');
  // A later report of the older tab does not make it newer.
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x', { description: 'old2' })], true);
  assert.equal(r.siteTools('a.com')[0].description, 'new');
  r.removeTab(2);
  assert.equal(r.siteTools('a.com')[0].description, 'old2');
});

test('routing goes to the newest live tab having the tool', () => {
  const r = new Registry();
  r.reportFrame(1, 0, 10, 'https://a.com/', [tool('x'), tool('only1')], true);
  r.reportFrame(2, 0, 20, 'https://a.com/', [tool('x')], true);
  assert.deepEqual(r.route('a.com', 'x'), { tabId: 2, frameId: 0, windowId: 20 });
  assert.deepEqual(r.route('a.com', 'only1'), { tabId: 1, frameId: 0, windowId: 10 });
  assert.deepEqual(r.route('a.com', 'nope'), { reason: 'not_found' });
  assert.deepEqual(r.route('b.com', 'x'), { reason: 'no_tab' });
  r.removeTab(2);
  assert.deepEqual(r.route('a.com', 'x'), { tabId: 1, frameId: 0, windowId: 10 });
  r.removeTab(1);
  assert.deepEqual(r.route('a.com', 'x'), { reason: 'no_tab' });
});

test('a tab navigating back to a site becomes its newest tab', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(2, 0, W, 'https://a.com/', [tool('x')], true);
  r.tabNavigated(1, 'https://b.com/');
  r.tabNavigated(1, 'https://a.com/');
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  assert.equal(r.route('a.com', 'x').tabId, 1);
  // Same-site navigation (or a tab switch) does not change the order.
  r.tabNavigated(2, 'https://a.com/other');
  assert.equal(r.route('a.com', 'x').tabId, 1);
});

test('moving a tab to another window is followed', () => {
  const r = new Registry();
  r.reportFrame(1, 0, 10, 'https://a.com/', [tool('x')], true);
  r.tabMoved(1, 11);
  assert.equal(r.route('a.com', 'x').windowId, 11);
  // A frame's late report carries the window it connected in: it does not undo the move.
  r.reportFrame(1, 0, 10, 'https://a.com/', [tool('x')], true);
  assert.equal(r.route('a.com', 'x').windowId, 11);
  r.tabNavigated(1, 'https://a.com/2', 12);
  assert.equal(r.route('a.com', 'x').windowId, 12);
});

test('navigation to another site drops the old frames (via report or tabNavigated)', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(1, 5, W, 'https://a.com/frame', [tool('fx')], true);
  r.takeChanges();
  assert.equal(r.reportFrame(1, 0, W, 'https://b.com/', [tool('y')], true), true);
  assert.deepEqual(r.sites(), ['b.com']);
  assert.deepEqual(names(r.siteTools('b.com')), ['y']);
  assert.deepEqual(r.takeChanges().map((c) => [c.site, names(c.tools)]), [['a.com', []], ['b.com', ['y']]]);
  assert.equal(r.tabNavigated(1, 'https://c.com/'), true);
  assert.deepEqual(r.siteTools('b.com'), []);
  assert.deepEqual(r.takeChanges().map((c) => [c.site, names(c.tools)]), [['b.com', []]]);
  // A tab that shows c.com but reports nothing yet: the site has a tab, no tools.
  assert.deepEqual(r.route('c.com', 'x'), { reason: 'not_found' });
  assert.deepEqual(r.snapshot(), {});
  // Same site: nothing happens.
  assert.equal(r.tabNavigated(1, 'https://c.com/elsewhere'), false);
  // Leaving the web drops the site.
  r.tabNavigated(1, 'chrome://newtab/');
  assert.deepEqual(r.sites(), []);
  assert.deepEqual(r.route('c.com', 'x'), { reason: 'no_tab' });
});

test('tabNavigated records an unknown tab only with a window and an http(s) URL', () => {
  const r = new Registry();
  r.tabNavigated(1, 'https://a.com/');
  assert.deepEqual(r.sites(), []);
  r.tabNavigated(1, 'chrome://newtab/', W);
  assert.deepEqual(r.sites(), []);
  r.tabNavigated(1, 'https://a.com/', W);
  assert.deepEqual(r.sites(), ['a.com']);
  assert.deepEqual(r.route('a.com', 'x'), { reason: 'not_found' });
  assert.deepEqual(r.takeChanges(), []); // no tools, nothing to say
});

test('same-site iframes count; cross-site iframes do not', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('top'), tool('shared', { description: 'top' })], true);
  r.reportFrame(1, 7, W, 'https://a.com/widget', [tool('inner'), tool('shared', { description: 'frame' })], false);
  r.reportFrame(1, 9, W, 'https://ads.example/', [tool('evil')], false);
  assert.deepEqual(names(r.siteTools('a.com')), ['inner', 'shared', 'top']);
  assert.equal(r.siteTools('a.com').find((t) => t.name === 'shared').description, 'top');
  assert.deepEqual(r.sites(), ['a.com']);
  assert.deepEqual(r.route('a.com', 'inner'), { tabId: 1, frameId: 7, windowId: W });
  assert.deepEqual(r.route('a.com', 'shared'), { tabId: 1, frameId: 0, windowId: W });
  assert.deepEqual(r.route('a.com', 'evil'), { reason: 'not_found' });
  assert.deepEqual(r.route('ads.example', 'evil'), { reason: 'no_tab' });
  r.takeChanges();
  r.removeFrame(1, 7);
  assert.deepEqual(r.takeChanges().map((c) => [c.site, names(c.tools)]), [['a.com', ['shared', 'top']]]);
  r.removeFrame(1, 9);
  assert.deepEqual(r.takeChanges(), []);
});

test('a sub-frame reporting before the top frame is placed by the tab URL', () => {
  const r = new Registry();
  r.reportFrame(1, 7, W, 'https://a.com/widget', [tool('inner')], true, { tabUrl: 'https://a.com/' });
  assert.deepEqual(names(r.siteTools('a.com')), ['inner']);
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('top')], true);
  assert.deepEqual(names(r.siteTools('a.com')), ['inner', 'top']);
  // Without the tab URL, a cross-site sub-frame cannot claim the tab.
  r.reportFrame(2, 3, W, 'https://ads.example/', [tool('evil')], true);
  assert.deepEqual(r.sites(), ['a.com']);
  r.reportFrame(2, 0, W, 'https://b.com/', [tool('b')], true);
  assert.deepEqual(names(r.siteTools('b.com')), ['b']);
});

test('an activated prerendered page is the top frame under another frame id', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(1, 42, W, 'https://b.com/', [tool('y')], true, { top: true });
  assert.deepEqual(r.sites(), ['b.com']);
  assert.deepEqual(r.route('b.com', 'y'), { tabId: 1, frameId: 42, windowId: W });
});

test('no-op changes produce nothing', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('a'), tool('b')], true);
  assert.equal(r.takeChanges().length, 1);
  // Re-registration of the same tools, in another order, with schema keys in another order.
  r.reportFrame(1, 0, W, 'https://a.com/', [
    { inputSchema: { properties: {}, type: 'object' }, description: 'does b', name: 'b' }, tool('a'),
  ], true);
  assert.deepEqual(r.takeChanges(), []);
  // A second tab with the same tools.
  r.reportFrame(2, 0, W, 'https://a.com/x', [tool('a'), tool('b')], true);
  assert.deepEqual(r.takeChanges(), []);
  // Closing one of them.
  r.removeTab(2);
  assert.deepEqual(r.takeChanges(), []);
  // A tab switch is not even an event here; a same-site navigation is not a change.
  r.tabNavigated(1, 'https://a.com/other', W);
  assert.deepEqual(r.takeChanges(), []);
  // Unknown tabs and frames.
  r.removeTab(99);
  r.removeFrame(99, 0);
  r.removeFrame(1, 99);
  r.tabMoved(99, 1);
  assert.deepEqual(r.takeChanges(), []);
  assert.equal(r.hasUntakenChanges(), false);
  // A change and its undo between two takes cancel out.
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('a')], true);
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('a'), tool('b')], true);
  assert.deepEqual(r.takeChanges(), []);
});

test('a real change of a definition is a change', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('a')], true);
  r.takeChanges();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('a', { annotations: { readOnlyHint: true } })], true);
  const changes = r.takeChanges();
  assert.equal(changes.length, 1);
  assert.deepEqual(changes[0].tools[0].annotations, { readOnlyHint: true });
});

test('a reload is held back with holdReloading, then either cancels out or goes out', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.takeChanges({ holdReloading: true });
  // The page reloads: its frame goes, the tab stays on the site.
  r.removeFrame(1, 0);
  assert.deepEqual(r.takeChanges({ holdReloading: true }), []);
  assert.equal(r.hasUntakenChanges(), true);
  // Routing knows the tool is not there meanwhile.
  assert.deepEqual(r.route('a.com', 'x'), { reason: 'not_found' });
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  assert.deepEqual(r.takeChanges({ holdReloading: true }), []);
  assert.equal(r.hasUntakenChanges(), false);
  // A page that does not come back: after the grace the loss is reported.
  r.removeFrame(1, 0);
  assert.deepEqual(r.takeChanges({ holdReloading: true }), []);
  assert.deepEqual(r.takeChanges(), [{ site: 'a.com', tools: [] }]);
  // Closing the tab is never held; neither are additions or a frame reporting fewer tools.
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x'), tool('y')], true);
  assert.equal(r.takeChanges({ holdReloading: true }).length, 1);
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  assert.equal(r.takeChanges({ holdReloading: true }).length, 1);
  r.removeTab(1);
  assert.deepEqual(r.takeChanges({ holdReloading: true }), [{ site: 'a.com', tools: [] }]);
});

test('takeSnapshot marks everything as taken', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(2, 0, W, 'https://b.com/', [], true);
  assert.deepEqual(Object.keys(r.takeSnapshot()), ['a.com']);
  assert.deepEqual(r.takeChanges(), []);
  r.removeTab(1);
  assert.deepEqual(r.takeChanges(), [{ site: 'a.com', tools: [] }]);
});

test('changes are per site and sorted', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://b.com/', [tool('x')], true);
  r.reportFrame(2, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(3, 0, W, 'http://localhost:8080/', [tool('x')], true);
  assert.deepEqual(r.takeChanges().map((c) => c.site), ['a.com', 'b.com', 'localhost:8080']);
});

test('sites differ by port', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'http://localhost:8001/', [tool('a')], true);
  r.reportFrame(2, 0, W, 'http://localhost:8002/', [tool('b')], true);
  assert.deepEqual(r.sites(), ['localhost:8001', 'localhost:8002']);
  assert.deepEqual(r.route('localhost:8001', 'b'), { reason: 'not_found' });
});
