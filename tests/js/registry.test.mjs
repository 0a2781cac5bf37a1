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

// --- http vs https: a plain-http page never speaks for a site that has https tabs -----------

test('an http tab cannot replace the tools of a site that has an https tab, nor get its calls', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://bank.com/', [tool('pay', { description: 'real' })], true);
  r.takeChanges();
  // A network attacker's http page of the same host, opened later (so it would be "newest").
  r.reportFrame(2, 0, W, 'http://bank.com/', [tool('pay', { description: 'evil' }), tool('steal')], false);
  assert.deepEqual(r.siteTools('bank.com').map((t) => [t.name, t.description]), [['pay', 'real']]);
  assert.deepEqual(r.route('bank.com', 'pay'), { tabId: 1, frameId: 0, windowId: W });
  assert.deepEqual(r.route('bank.com', 'steal'), { reason: 'not_found' });
  // Its tools changed nothing; the notice that an http tab is ignored is new.
  const [change] = r.takeChanges();
  assert.deepEqual(change.tools.map((t) => t.description), ['real']);
  assert.match(change.notice, /1 http:\/\/ tab of bank\.com is ignored/);
  assert.deepEqual(r.siteInfo('bank.com'), { scheme: 'https', notices: [change.notice] });
  // http first, https later: the https tab takes over at once.
  const q = new Registry();
  q.reportFrame(1, 0, W, 'http://shop.com/', [tool('x', { description: 'plain' })], false);
  assert.equal(q.siteInfo('shop.com').scheme, 'http');
  q.reportFrame(2, 0, W, 'https://shop.com/', [tool('y')], true);
  assert.deepEqual(names(q.siteTools('shop.com')), ['y']);
  assert.deepEqual(q.route('shop.com', 'x'), { reason: 'not_found' });
  assert.equal(q.siteInfo('shop.com').scheme, 'https');
});

test('when the last https tab goes, the http tabs speak for the site again', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(2, 0, W, 'http://a.com/', [tool('h')], false);
  assert.deepEqual(names(r.siteTools('a.com')), ['x']);
  r.removeTab(1);
  assert.deepEqual(names(r.siteTools('a.com')), ['h']);
  assert.deepEqual(r.route('a.com', 'h'), { tabId: 2, frameId: 0, windowId: W });
  assert.deepEqual(r.siteInfo('a.com'), { scheme: 'http', notices: [] });
});

test('http frames inside an https site count for nothing; a same-tab scheme switch is a new page', () => {
  const r = new Registry();
  // An http iframe of the same host inside an https tab (mixed content some browsers allow).
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('top')], true);
  r.reportFrame(1, 4, W, 'http://a.com/frame', [tool('mixed')], false);
  assert.deepEqual(names(r.siteTools('a.com')), ['top']);
  assert.deepEqual(r.route('a.com', 'mixed'), { reason: 'not_found' });
  // The tab goes from https to http on the same host: its https frames are gone with the page.
  assert.equal(r.tabNavigated(1, 'http://a.com/'), true);
  assert.equal(r.tabIsHttps(1), false);
  assert.deepEqual(r.siteTools('a.com'), []);
  r.reportFrame(1, 0, W, 'http://a.com/', [tool('plain')], false);
  assert.deepEqual(names(r.siteTools('a.com')), ['plain']);
  // And back to https: the http frame no longer counts.
  assert.equal(r.reportFrame(1, 0, W, 'https://a.com/', [tool('top')], true), true);
  r.reportFrame(1, 4, W, 'http://a.com/frame', [tool('mixed')], false);
  assert.deepEqual(names(r.siteTools('a.com')), ['top']);
  // A same-scheme navigation is no move.
  assert.equal(r.tabNavigated(1, 'https://a.com/other'), false);
});

test('an http tab on its own site (another port) is its own site', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('x')], true);
  r.reportFrame(2, 0, W, 'http://a.com:8080/', [tool('y')], false);
  assert.deepEqual(r.sites(), ['a.com', 'a.com:8080']);
  assert.deepEqual(names(r.siteTools('a.com:8080')), ['y']);
});

// --- caps per site, and saying so -------------------------------------------------------------

test('a site offers at most 256 tools, and says it was cut', () => {
  const r = new Registry();
  const many = Array.from({ length: 300 }, (_, i) => tool(`t${String(i).padStart(3, '0')}`));
  r.reportFrame(1, 0, W, 'https://flood.com/', many.slice(0, 200), false);
  r.reportFrame(2, 0, W, 'https://flood.com/', many.slice(150), false); // newer tab: its tools first
  const tools = r.siteTools('flood.com');
  assert.equal(tools.length, 256);
  assert.deepEqual(names(tools), [...names(tools)].sort());
  // The newest tab's tools first (t150-t299), then the older tab's in its order: t000-t105.
  assert.deepEqual(names(tools).slice(0, 3), ['t000', 't001', 't002']);
  assert.equal(names(tools)[105], 't105');
  assert.equal(names(tools)[106], 't150');
  const notice = r.siteNotice('flood.com');
  assert.match(notice, /^44 of flood\.com's tools were left out: 44 over the limit of 256 tools \(e\.g\. "t106", "t107", "t108"\)\.$/);
  // A cut tool is not callable either.
  assert.deepEqual(r.route('flood.com', 't149'), { reason: 'not_found' });
  assert.equal(r.route('flood.com', 't299').tabId, 2);
  assert.deepEqual(r.takeChanges(), [{ site: 'flood.com', tools, notice }]);
  assert.deepEqual(r.notices(), { 'flood.com': notice });
});

test('a site offers at most 1 MiB of definitions', () => {
  const r = new Registry();
  const fat = (name) => tool(name, { description: 'd'.repeat(8000) });
  r.reportFrame(1, 0, W, 'https://fat.com/', Array.from({ length: 200 }, (_, i) => fat(`f${i}`)), false);
  const tools = r.siteTools('fat.com');
  const bytes = tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
  assert.ok(bytes <= 1024 * 1024 && bytes > 1024 * 1024 - 9000, String(bytes));
  assert.match(r.siteNotice('fat.com'), /over the limit of 1 MB of tool definitions/);
});

test('a frame over 256 tools, and what the content script left out, show in the notice', () => {
  const r = new Registry();
  const many = Array.from({ length: 10_007 }, (_, i) => tool(`t${i}`));
  r.reportFrame(1, 0, W, 'https://x.com/', many, false, {
    dropped: { count: { deep: 1, bogus: 5 }, some: [{ name: 'deep_one', why: 'deep' }, { name: 'z', why: 'nope' }] },
  });
  assert.equal(r.siteTools('x.com').length, 256);
  const notice = r.siteNotice('x.com');
  assert.match(notice, /^9752 of x\.com's tools were left out: 9751 over the limit of 256 tools/);
  assert.match(notice, /1 with an input schema or annotations nested deeper than 32 levels \("deep_one"\)/);
  assert.doesNotMatch(notice, /bogus|nope/);
  // Two tabs of the same flooding page do not double the counts.
  r.reportFrame(2, 0, W, 'https://x.com/', many, false);
  assert.match(r.siteNotice('x.com'), /^9752 of/);
  // A site whose every tool was dropped still says why (and has no tools).
  r.reportFrame(3, 0, W, 'https://y.com/', [], false, { dropped: { count: { deep: 1 }, some: [{ name: 'd', why: 'deep' }] } });
  assert.deepEqual(r.siteTools('y.com'), []);
  assert.equal(r.takeChanges().find((c) => c.site === 'y.com').tools.length, 0);
});

test('tools too deep or too big are dropped in the registry too, others stay', () => {
  const r = new Registry();
  let deep = { type: 'object' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
  r.reportFrame(1, 0, W, 'https://a.com/', [
    tool('deep', { inputSchema: deep }), tool('big', { inputSchema: { type: 'object', description: 'x'.repeat(70_000) } }),
    tool('ann', { annotations: { nested: { a: { b: 'x'.repeat(70_000) } } } }), tool('fine'),
  ], true);
  assert.deepEqual(names(r.siteTools('a.com')), ['fine']);
  assert.match(r.siteNotice('a.com'), /1 with an input schema or annotations nested deeper than 32 levels \("deep"\); 2 with an input schema or annotations over 64 KB/);
});

test('takeChanges leaves a site allow() refuses for later, with its latest state', () => {
  const r = new Registry();
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('v1')], true);
  r.reportFrame(2, 0, W, 'https://b.com/', [tool('b')], true);
  assert.deepEqual(r.takeChanges({ allow: (s) => s !== 'a.com' }).map((c) => c.site), ['b.com']);
  assert.equal(r.hasUntakenChanges(), true);
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('v2')], true);
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('v3')], true);
  assert.deepEqual(r.takeChanges().map((c) => [c.site, names(c.tools)]), [['a.com', ['v3']]]);
  // A no-op costs no permission.
  let asked = 0;
  r.reportFrame(1, 0, W, 'https://a.com/', [tool('v3')], true);
  assert.deepEqual(r.takeChanges({ allow: () => { asked++; return true; } }), []);
  assert.equal(asked, 0);
});
