// The service worker against a fake chrome.*: native link, frame ports, routing, results.
// Every test makes its own worker on its own fake (startWorker) and sets up the tabs it needs,
// so the tests run alone or in any order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PANEL_PORT_NAME, PROTOCOL_VERSION } from '../../extension/lib/protocol.js';
import { findPython, hostModelErrors, Port, sleep, startWorker, tick, tool } from './fake-chrome.mjs';

/** A tab with one frame of `url` that has these tools, its report already sent to the host. */
async function tabWith(w, tabId, url, tools) {
  const port = w.connectFrame(tabId, 0, url);
  w.sendTools(port, tools);
  await tick();
  w.fromHost();
  return port;
}

/** a.com open in tab 1 and then tab 2 (the newest), tab 2 active in window 1. */
async function twoTabsOfA(w, tools1 = [tool('x'), tool('y')], tools2 = [tool('x'), tool('y')]) {
  const a1 = await tabWith(w, 1, 'http://a.com/', tools1);
  const a2 = await tabWith(w, 2, 'http://a.com/other', tools2);
  w.chrome.tabs.onActivated.fire({ tabId: 2, windowId: 1 });
  return { a1, a2 };
}

test('connects at start and greets the host', async (t) => {
  const { calls, chrome, fromHost, host, status } = startWorker(t, { connected: false });
  assert.deepEqual(calls.connectNative, ['io.webmcp.sidecar']);
  const sent = fromHost();
  assert.deepEqual(sent.map((m) => m.type), ['hello', 'registry', 'ping']);
  assert.deepEqual(sent[0], {
    type: 'hello', extension_version: '0.1.0', browser: 'Chromium 156.0.0.0', protocol: PROTOCOL_VERSION,
    origin: 'chrome-extension://fafdbggbcpipbkecmkjnkpdagfobdohc/',
  });
  assert.deepEqual(sent[1], { type: 'registry', sites: {} });
  assert.equal(status().state, 'connecting');
  host({ type: 'pong', id: sent[2].id });
  assert.equal(status().connected, true);
  await tick();
  assert.equal(chrome.alarms.created.length, 1);
  assert.equal(chrome.alarms.created[0][1].periodInMinutes, 1);
});

test('start-up events do not open a second port', (t) => {
  const { calls, chrome } = startWorker(t);
  chrome.runtime.onStartup.fire();
  chrome.runtime.onInstalled.fire({ reason: 'install' });
  chrome.alarms.onAlarm.fire({ name: 'webmcp-reconnect' });
  assert.equal(calls.connectNative.length, 1);
});

test('a frame reporting tools sends one coalesced site_tools', async (t) => {
  const { connectFrame, sendTools, fromHost, status } = startWorker(t);
  const a1 = connectFrame(1, 0, 'http://a.com/');
  sendTools(a1, [tool('x')]);
  sendTools(a1, [tool('x'), tool('y')]);
  assert.deepEqual(fromHost(), []); // not before the flush
  await tick();
  const sent = fromHost();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].type, 'site_tools');
  assert.equal(sent[0].site, 'a.com');
  assert.deepEqual(sent[0].tools.map((t) => t.name), ['x', 'y']);
  assert.deepEqual(status().sites['a.com'].map((t) => t.name), ['x', 'y']);
});

test('no-op changes send nothing: same tools again, a second tab, a tab switch', async (t) => {
  const w = startWorker(t);
  const { chrome, connectFrame, sendTools, fromHost } = w;
  const a1 = await tabWith(w, 1, 'http://a.com/', [tool('x'), tool('y')]);
  sendTools(a1, [tool('y'), tool('x')]);
  const a2 = connectFrame(2, 0, 'http://a.com/other');
  sendTools(a2, [tool('x'), tool('y')]);
  chrome.tabs.onActivated.fire({ tabId: 2, windowId: 1 });
  chrome.tabs.onUpdated.fire(2, { url: 'http://a.com/other#2' }, { id: 2, windowId: 1 });
  await tick();
  assert.deepEqual(fromHost(), []);
});

test('a call goes to the newest tab, activates it, and relays the result', async (t) => {
  const w = startWorker(t);
  const { chrome, calls, call, fromHost, status } = w;
  const { a1, a2 } = await twoTabsOfA(w);
  chrome.windows.onFocusChanged.fire(5);
  call('c1', 'a.com', 'x', { a: 1 });
  const [fwd] = a2.take();
  assert.deepEqual(fwd, { type: 'call', id: 'c1', tool: 'x', args: { a: 1 }, timeout_ms: 5000, max_bytes: 1 << 20 });
  assert.deepEqual(a1.take(), []);
  // Tab 2 is already active (onActivated above); its window 1 is not focused (5 is).
  await tick();
  assert.deepEqual(calls.tabsUpdate, []);
  assert.deepEqual(calls.windowsUpdate, [[1, { focused: true }]]);
  assert.equal(status().pendingCalls, 1);
  a2.receive({ type: 'result', id: 'c1', ok: true, value: '{"sum":3}' });
  assert.deepEqual(fromHost(), [{ type: 'result', id: 'c1', ok: true, value: '{"sum":3}', tab_id: 2 }]);
  // A second answer for the same id is dropped: one result per call.
  a2.receive({ type: 'result', id: 'c1', ok: true, value: '"again"' });
  assert.deepEqual(fromHost(), []);
  assert.equal(status().pendingCalls, 0);
});

test('an inactive tab is activated', async (t) => {
  const w = startWorker(t);
  const { calls, call, sendTools, fromHost } = w;
  const { a1 } = await twoTabsOfA(w);
  sendTools(a1, [tool('x'), tool('y'), tool('only1')]);
  await tick();
  fromHost();
  call('c2', 'a.com', 'only1');
  assert.equal(a1.take()[0].id, 'c2');
  await tick();
  assert.deepEqual(calls.tabsUpdate, [[1, { active: true }]]);
  a1.receive({ type: 'result', id: 'c2', ok: false, error: { code: 'page_error', message: 'It broke.' } });
  assert.deepEqual(fromHost(), [{ type: 'result', id: 'c2', ok: false, error: { code: 'page_error', message: 'It broke.' }, tab_id: 1 }]);
});

test('a result from another frame than the one called is ignored', async (t) => {
  const w = startWorker(t);
  const { call, fromHost } = w;
  const { a1, a2 } = await twoTabsOfA(w);
  call('c3', 'a.com', 'x');
  a2.take();
  a1.receive({ type: 'result', id: 'c3', ok: true, value: '"spoof"' });
  assert.deepEqual(fromHost(), []);
  a2.receive({ type: 'result', id: 'c3', ok: true, value: '"real"' });
  assert.equal(fromHost()[0].value, '"real"');
});

test('no tab and no such tool get plain errors', async (t) => {
  const w = startWorker(t);
  await twoTabsOfA(w, [tool('x'), tool('y'), tool('only1')]);
  w.call('n1', 'b.com', 'x');
  w.call('n2', 'a.com', 'zzz');
  assert.deepEqual(w.fromHost(), [
    { type: 'result', id: 'n1', ok: false, tab_id: null, error: { code: 'no_tab',
      message: 'No tab of b.com is open. Open it in the browser (the open_browser tool can do it) and try again.' } },
    { type: 'result', id: 'n2', ok: false, tab_id: null, error: { code: 'not_found',
      message: 'a.com has no tool named "zzz" right now. Its tools: only1, x, y.' } },
  ]);
});

test('cancel is forwarded; the page answers cancelled', async (t) => {
  const w = startWorker(t);
  const { call, host, fromHost } = w;
  const { a2 } = await twoTabsOfA(w);
  call('k1', 'a.com', 'x');
  a2.take();
  host({ type: 'cancel', id: 'k1' });
  assert.deepEqual(a2.take(), [{ type: 'cancel', id: 'k1' }]);
  a2.receive({ type: 'result', id: 'k1', ok: false, error: { code: 'cancelled', message: 'Cancelled.' } });
  assert.equal(fromHost()[0].error.code, 'cancelled');
  host({ type: 'cancel', id: 'k1' }); // late: nothing to do
  host({ type: 'cancel', id: 'never-seen' });
  assert.deepEqual(a2.take(), []);
  assert.deepEqual(fromHost(), []);
});

test('a cancel the page never confirms is answered after a grace', async (t) => {
  const w = startWorker(t);
  const { a2 } = await twoTabsOfA(w);
  w.call('k2', 'a.com', 'x');
  a2.take();
  w.host({ type: 'cancel', id: 'k2' });
  await sleep(1100);
  const [res] = w.fromHost();
  assert.equal(res.id, 'k2');
  assert.equal(res.error.code, 'cancelled');
});

test('a page that never answers times out (timeout_ms + 1 s), and is told to stop', async (t) => {
  const w = startWorker(t);
  const { call, fromHost } = w;
  const { a2 } = await twoTabsOfA(w);
  call('t1', 'a.com', 'x', {}, { timeout_ms: 50 });
  a2.take();
  await sleep(700);
  assert.deepEqual(fromHost(), []);
  await sleep(500);
  const [res] = fromHost();
  assert.equal(res.error.code, 'timeout');
  assert.equal(res.tab_id, 2);
  assert.deepEqual(a2.take(), [{ type: 'cancel', id: 't1' }]);
  a2.receive({ type: 'result', id: 't1', ok: true, value: '1' }); // too late
  assert.deepEqual(fromHost(), []);
});

test('a tab closed mid-call answers tab_closed; routing moves to the other tab', async (t) => {
  const w = startWorker(t);
  const { chrome, liveTabs, call, fromHost } = w;
  const { a1, a2 } = await twoTabsOfA(w);
  call('d1', 'a.com', 'x');
  a2.take();
  liveTabs.delete(2);
  chrome.tabs.onRemoved.fire(2, { windowId: 1, isWindowClosing: false });
  a2.drop();
  assert.deepEqual(fromHost(), [{ type: 'result', id: 'd1', ok: false, tab_id: 2,
    error: { code: 'tab_closed', message: 'The tab running the call was closed before the tool answered.' } }]);
  await tick();
  assert.deepEqual(fromHost(), []); // tab 1 still has the same tools
  call('d2', 'a.com', 'x');
  assert.equal(a1.take()[0].id, 'd2');
  a1.receive({ type: 'result', id: 'd2', ok: true, value: '2' });
  assert.equal(fromHost()[0].tab_id, 1);
});

test('a frame gone mid-call (reload) answers tab_closed; the same tools coming back send nothing', async (t) => {
  const w = startWorker(t);
  const { connectFrame, sendTools, call, fromHost } = w;
  let a1 = await tabWith(w, 1, 'http://a.com/', [tool('x'), tool('y'), tool('only1')]);
  call('r1', 'a.com', 'x');
  a1.take();
  a1.drop();
  await sleep(20);
  const [res] = fromHost();
  assert.equal(res.error.code, 'tab_closed');
  assert.match(res.error.message, /reloaded/);
  a1 = connectFrame(1, 0, 'http://a.com/');
  sendTools(a1, [tool('x'), tool('y'), tool('only1')]);
  await sleep(1200);
  assert.deepEqual(fromHost(), []);
});

test('a page that does not come back loses its tools after the grace', async (t) => {
  const w = startWorker(t);
  const { connectFrame, sendTools, fromHost } = w;
  let a1 = await tabWith(w, 1, 'http://a.com/', [tool('x'), tool('y'), tool('only1')]);
  a1.drop();
  await tick();
  assert.deepEqual(fromHost(), []);
  await sleep(1100);
  assert.deepEqual(fromHost(), [{ type: 'site_tools', site: 'a.com', tools: [] }]);
  a1 = connectFrame(1, 0, 'http://a.com/');
  sendTools(a1, [tool('x')]);
  await tick();
  assert.equal(fromHost()[0].tools.length, 1);
});

test('navigation to another site: old site gone, late messages of the old page ignored', async (t) => {
  const w = startWorker(t);
  const { chrome, connectFrame, sendTools, fromHost, status } = w;
  const a1 = await tabWith(w, 1, 'http://a.com/', [tool('x')]);
  chrome.tabs.onUpdated.fire(1, { url: 'http://b.com/' }, { id: 1, windowId: 1 });
  sendTools(a1, [tool('x')]); // the old document, unloading
  await tick();
  assert.deepEqual(fromHost(), [{ type: 'site_tools', site: 'a.com', tools: [] }]);
  const b1 = connectFrame(1, 0, 'http://b.com/');
  sendTools(b1, [tool('bx')]);
  a1.drop();
  await tick();
  const sent = fromHost();
  assert.deepEqual(sent.map((m) => [m.site, m.tools.map((t) => t.name)]), [['b.com', ['bx']]]);
  assert.deepEqual(Object.keys(status().sites), ['b.com']);
});

test('a replaced document of the same frame cannot report for it', async (t) => {
  const w = startWorker(t);
  const { connectFrame, sendTools, fromHost, status } = w;
  await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  const old = connectFrame(3, 0, 'http://c.com/');
  sendTools(old, [tool('c')]);
  await tick();
  fromHost();
  const fresh = connectFrame(3, 0, 'http://c.com/');
  sendTools(old, []); // the old document's last words
  await tick();
  assert.deepEqual(fromHost(), []);
  old.drop(); // its disconnect does not remove the new document's frame
  sendTools(fresh, [tool('c')]);
  await tick();
  assert.deepEqual(fromHost(), []);
  assert.deepEqual(Object.keys(status().sites), ['b.com', 'c.com']);
});

test('iframes: same-site counts, cross-site does not', async (t) => {
  const w = startWorker(t);
  const { connectFrame, sendTools, call, fromHost } = w;
  await tabWith(w, 3, 'http://c.com/', [tool('c')]);
  const inner = connectFrame(3, 12, 'http://c.com/widget', { tabUrl: 'http://c.com/' });
  const ad = connectFrame(3, 13, 'http://ads.example/', { tabUrl: 'http://c.com/' });
  sendTools(inner, [tool('inner')]);
  sendTools(ad, [tool('evil')]);
  await tick();
  assert.deepEqual(fromHost().map((m) => [m.site, m.tools.map((t) => t.name)]), [['c.com', ['c', 'inner']]]);
  call('f1', 'c.com', 'inner');
  assert.equal(inner.take()[0].id, 'f1');
  inner.receive({ type: 'result', id: 'f1', ok: true, value: '"in"' });
  assert.equal(fromHost()[0].value, '"in"');
  call('f2', 'ads.example', 'evil');
  assert.equal(fromHost()[0].error.code, 'no_tab');
  inner.drop();
  await tick();
  assert.deepEqual(fromHost().map((m) => [m.site, m.tools.map((t) => t.name)]), [['c.com', ['c']]]);
});

test('a prerendered page does not take the tab until activated, then is asked to resend', async (t) => {
  const { chrome, connectFrame, sendTools, call, fromHost } = startWorker(t);
  const d0 = connectFrame(4, 0, 'http://d.com/');
  sendTools(d0, [tool('d')]);
  const pre = new Port(chrome, 'webmcp-page', {
    id: chrome.runtime.id, tab: { id: 4, windowId: 1, url: 'http://d.com/' }, frameId: 55, url: 'http://e.com/',
    frameType: 'outermost_frame', documentLifecycle: 'prerender',
  });
  chrome.runtime.onConnect.fire(pre);
  sendTools(pre, [tool('e')]);
  await tick();
  assert.deepEqual(fromHost().map((m) => [m.site, m.tools.map((t) => t.name)]), [['d.com', ['d']]]);
  // Activation: the tab's URL changes to the prerendered page's.
  chrome.tabs.onUpdated.fire(4, { url: 'http://e.com/' }, { id: 4, windowId: 1 });
  assert.deepEqual(pre.take(), [{ type: 'sync' }]);
  sendTools(pre, [tool('e')]);
  sendTools(d0, []); // the old page, unloading: ignored
  await tick();
  assert.deepEqual(fromHost().map((m) => [m.site, m.tools.map((t) => t.name)]), [['d.com', []], ['e.com', ['e']]]);
  call('e1', 'e.com', 'e');
  assert.equal(pre.take()[0].id, 'e1');
  pre.receive({ type: 'result', id: 'e1', ok: true, value: '"e"' });
  assert.equal(fromHost()[0].tab_id, 4);
  chrome.tabs.onRemoved.fire(4, {});
  await tick();
  assert.deepEqual(fromHost(), [{ type: 'site_tools', site: 'e.com', tools: [] }]);
});

test("the chat port: our content script in a tab's top frame only", (t) => {
  const { chrome } = startWorker(t);
  const open = (sender) => {
    const p = new Port(chrome, 'webmcp-chat', sender);
    chrome.runtime.onConnect.fire(p);
    return p;
  };
  const tab = { id: 1, windowId: 1, url: 'https://chat.test/' };
  assert.equal(open({ id: chrome.runtime.id, tab, frameId: 3, url: 'https://chat.test/f' }).closed, true, 'a sub-frame');
  assert.equal(open({ id: 'another', tab, frameId: 0, url: 'https://chat.test/' }).closed, true, 'not ours');
  assert.equal(open({ id: chrome.runtime.id, url: `chrome-extension://${chrome.runtime.id}/x.html` }).closed, true, 'no tab');
  assert.equal(open({ id: chrome.runtime.id, tab, frameId: 0, url: 'https://chat.test/' }).closed, false);
});

test('ports that are not pages are turned away', (t) => {
  const { chrome } = startWorker(t);
  const p = new Port(chrome, 'webmcp-page', { id: chrome.runtime.id, url: 'chrome-extension://x/panel.html' });
  chrome.runtime.onConnect.fire(p);
  assert.equal(p.closed, true);
  // A frame's port that is not our content script's (another id: lib/senders.js ourFrame).
  const foreign = new Port(chrome, 'webmcp-page', { id: 'another', tab: { id: 1, windowId: 1, url: 'http://a.com/' }, frameId: 0, url: 'http://a.com/' });
  chrome.runtime.onConnect.fire(foreign);
  assert.equal(foreign.closed, true);
  const other = new Port(chrome, 'something-else', { tab: { id: 1 }, frameId: 0 });
  chrome.runtime.onConnect.fire(other);
  assert.equal(other.closed, false);
});

test('open_url opens a focused tab; other schemes are refused', async (t) => {
  const { calls, host, fromHost } = startWorker(t);
  host({ type: 'open_url', id: 'o1', url: 'https://example.com/path' });
  await tick();
  assert.deepEqual(calls.tabsCreate, [{ url: 'https://example.com/path', active: true }]);
  assert.deepEqual(calls.windowsUpdate, [[9, { focused: true }]]);
  assert.deepEqual(fromHost(), [{ type: 'result', id: 'o1', ok: true,
    value: JSON.stringify({ tabId: 77, url: 'https://example.com/path' }), tab_id: 77 }]);
  for (const url of ['javascript:alert(1)', 'chrome://settings', 'not a url', 'data:text/html,hi']) {
    host({ type: 'open_url', id: 'o2', url });
    await tick();
    const [res] = fromHost();
    assert.equal(res.ok, false, url);
    assert.equal(res.error.code, 'bad_request');
  }
  assert.equal(calls.tabsCreate.length, 1);
});

test('ping gets a pong with the same id', (t) => {
  const { host, fromHost } = startWorker(t);
  host({ type: 'ping', id: 'p7' });
  assert.deepEqual(fromHost(), [{ type: 'pong', id: 'p7' }]);
});

test('chunked host messages are joined and handled', async (t) => {
  const w = startWorker(t);
  const b1 = await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  const text = JSON.stringify({ type: 'call', id: 'big1', site: 'b.com', tool: 'bx', args: { blob: '网'.repeat(3000) }, timeout_ms: 5000, max_bytes: 100 });
  const third = Math.ceil(text.length / 3);
  for (let i = 0; i < 3; i++) {
    w.host({ type: 'chunk', cid: 'h1', seq: i, last: i === 2, data: text.slice(i * third, (i + 1) * third) });
  }
  const [fwd] = b1.take();
  assert.equal(fwd.id, 'big1');
  assert.equal(fwd.args.blob.length, 3000);
  b1.receive({ type: 'result', id: 'big1', ok: true, value: JSON.stringify('x'.repeat(200)) });
  assert.equal(w.fromHost()[0].error.code, 'too_large'); // max_bytes 100
});

test('malformed host messages are logged back, never fatal', (t) => {
  const { host, fromHost } = startWorker(t);
  host({ type: 'nonsense' });
  host('just a string');
  host({ type: 'chunk', cid: 'z', seq: 3, last: true, data: 'x' });
  host({ type: 'chunk', cid: 'z2', seq: 0, last: true, data: '{not json' });
  host({ type: 'call', id: 'bad1', site: 'b.com', tool: 'bx', args: 'nope' });
  host({ type: 'call', site: 'b.com', tool: 'bx' });
  const sent = fromHost();
  assert.deepEqual(sent.filter((m) => m.type === 'log').map((m) => m.level), ['warning', 'warning', 'warning', 'warning', 'warning']);
  assert.deepEqual(sent.filter((m) => m.type === 'result'), [{ type: 'result', id: 'bad1', ok: false, tab_id: null,
    error: { code: 'bad_request', message: 'malformed call message: args is not an object' } }]);
});

test('a duplicate call id while the first runs is refused without a second result', async (t) => {
  const w = startWorker(t);
  const b1 = await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  w.call('dup', 'b.com', 'bx');
  w.call('dup', 'b.com', 'bx');
  assert.equal(b1.take().length, 1);
  assert.deepEqual(w.fromHost().map((m) => m.type), ['log']);
  b1.receive({ type: 'result', id: 'dup', ok: true, value: '1' });
  assert.equal(w.fromHost().length, 1);
});

test('a result whose JSON is over 64 Ki characters goes to the host in 64 Ki-character chunks; up to that, whole', async (t) => {
  const w = startWorker(t);
  const b1 = await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  w.call('long', 'b.com', 'bx', {}, { max_bytes: 64 * 1024 * 1024 });
  b1.take();
  const value = JSON.stringify('QU😀"'.repeat(512 * 1024)); // 2.5 Mi units, pairs and quotes
  b1.receive({ type: 'result', id: 'long', ok: true, value });
  const chunks = w.fromHost();
  assert.ok(chunks.length > 30 && chunks.every((c, seq) => c.type === 'chunk' && c.seq === seq && c.cid === chunks[0].cid));
  assert.ok(chunks.every((c) => c.data.length <= 64 * 1024 && c.data.isWellFormed()));
  assert.deepEqual(chunks.map((c) => c.last), chunks.map((_, i) => i === chunks.length - 1));
  // Routed by its head at the host (native_host/app.py): `type` and `id` come first.
  const text = chunks.map((c) => c.data).join('');
  assert.ok(text.startsWith('{"type":"result","id":"long",'));
  assert.deepEqual(JSON.parse(text), { type: 'result', id: 'long', ok: true, value, tab_id: 1 });

  w.call('short', 'b.com', 'bx', {}, { max_bytes: 64 * 1024 * 1024 });
  b1.take();
  const fits = 64 * 1024 - JSON.stringify({ type: 'result', id: 'short', ok: true, value: '', tab_id: 1 }).length;
  b1.receive({ type: 'result', id: 'short', ok: true, value: 'x'.repeat(fits) });
  assert.deepEqual(w.fromHost().map((m) => [m.type, m.value.length]), [['result', fits]]);
});

/** A result of 6 M chars (36 MiB once Chrome escapes '<') from b.com's tool; its chunks. */
async function hugeResult(w) {
  const b1 = await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  w.call('huge', 'b.com', 'bx', {}, { max_bytes: 64 * 1024 * 1024 });
  b1.take();
  const value = JSON.stringify('<'.repeat(6 * 1024 * 1024));
  b1.receive({ type: 'result', id: 'huge', ok: true, value });
  return { value, chunks: w.fromHost() };
}

test('a result above 32 MiB goes out in chunks that each fit a frame and join back', async (t) => {
  const { value, chunks } = await hugeResult(startWorker(t));
  assert.ok(chunks.length >= 2, `${chunks.length}`);
  assert.ok(chunks.every((c) => c.type === 'chunk' && c.cid === chunks[0].cid));
  for (const c of chunks) assert.ok(Buffer.byteLength(JSON.stringify(c).replace(/</g, '\\u003C')) <= 32 * 1024 * 1024);
  const joined = JSON.parse(chunks.map((c) => c.data).join(''));
  assert.deepEqual(joined, { type: 'result', id: 'huge', ok: true, value, tab_id: 1 });
});

test('status answers extension pages, not tabs', async (t) => {
  const w = startWorker(t);
  const { chrome } = w;
  await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  await tabWith(w, 3, 'http://c.com/', [tool('c')]);
  let answer;
  chrome.runtime.onMessage.fire({ type: 'status' }, { id: chrome.runtime.id, url: chrome.runtime.getURL('sidepanel/panel.html') }, (r) => { answer = r; });
  assert.equal(answer.connected, true);
  assert.equal(answer.lastError, null);
  assert.deepEqual(Object.keys(answer.sites), ['b.com', 'c.com']);
  assert.equal(answer.pendingCalls, 0);
  let leaked;
  chrome.runtime.onMessage.fire({ type: 'status' }, { id: chrome.runtime.id, tab: { id: 1 } }, (r) => { leaked = r; });
  assert.equal(leaked, undefined);
});

test('the host going away: calls stopped, error explained, reconnect with backoff and full registry', async (t) => {
  const w = startWorker(t);
  const { calls, native, call, host, fromHost, sendTools, status } = w;
  const b1 = await tabWith(w, 1, 'http://b.com/', [tool('bx')]);
  await tabWith(w, 3, 'http://c.com/', [tool('c')]);
  call('lost', 'b.com', 'bx');
  // The Inspector's call is answered in the worker: it runs on without the host.
  const id = w.chrome.runtime.id;
  const panel = new Port(w.chrome, PANEL_PORT_NAME, { id, url: `chrome-extension://${id}/sidepanel/index.html` });
  w.chrome.runtime.onConnect.fire(panel);
  panel.receive({ type: 'inspect_call', req: 9, site: 'b.com', tool: 'bx', args: {} });
  const inspectId = b1.take().find((m) => m.type === 'call' && m.id !== 'lost').id;
  const first = native();
  first.drop('Specified native messaging host not found.');
  assert.deepEqual(b1.take(), [{ type: 'cancel', id: 'lost' }]);
  b1.receive({ type: 'result', id: inspectId, ok: true, value: '"fine"' });
  assert.deepEqual(panel.take().filter((m) => m.type === 'inspect_result').map((m) => [m.req, m.result.value]), [[9, '"fine"']]);
  let s = status();
  assert.equal(s.connected, false);
  assert.equal(s.state, 'disconnected');
  assert.equal(s.lastError, 'Specified native messaging host not found.');
  assert.match(s.hint, /webmcp-sidecar install/);
  assert.equal(s.pendingCalls, 0);
  // Frame changes while disconnected are kept for the next host.
  sendTools(b1, [tool('bx'), tool('by')]);
  await sleep(400); // first retry after 250 ms ±20%
  assert.equal(calls.connectNative.length, 2);
  assert.notEqual(native(), first);
  const sent = fromHost();
  assert.deepEqual(sent.map((m) => m.type), ['hello', 'registry', 'ping']);
  assert.deepEqual(Object.keys(sent[1].sites), ['b.com', 'c.com']);
  assert.deepEqual(sent[1].sites['b.com'].map((t) => t.name), ['bx', 'by']);
  // Failing again backs off longer (500 ms ±20%).
  native().drop('Native host has exited.');
  assert.match(status().hint, /doctor/);
  await sleep(350);
  assert.equal(calls.connectNative.length, 2);
  await sleep(350);
  assert.equal(calls.connectNative.length, 3);
  fromHost();
  host({ type: 'pong', id: 'connect' });
  s = status();
  assert.equal(s.connected, true);
  assert.equal(s.lastError, null);
  await tick();
  assert.deepEqual(fromHost(), []); // nothing changed since the snapshot
});

test('every message sent to the host validates against the pydantic models', { skip: !findPython() && 'no Python with pydantic' }, async (t) => {
  // One worker through most of what the tests above do: greeting, tool lists, calls and their
  // errors, pings, malformed messages, a reconnect with a full registry, a chunked result.
  const w = startWorker(t, { connected: false });
  w.host({ type: 'pong', id: 'connect' });
  const { a1, a2 } = await twoTabsOfA(w, [tool('x', { title: 'X', annotations: { readOnlyHint: true } }), tool('y')]);
  await tabWith(w, 3, 'http://c.com/', [tool('c')]);
  for (let i = 0; i < 10; i++) {
    w.call(`ok${i}`, 'a.com', 'x', { i });
    a2.receive({ type: 'result', id: `ok${i}`, ok: true, value: String(i) });
  }
  w.call('e1', 'a.com', 'x');
  a2.receive({ type: 'result', id: 'e1', ok: false, error: { code: 'page_error', message: 'It broke.' } });
  w.call('n1', 'nowhere.com', 'x');
  w.call('n2', 'a.com', 'zzz');
  w.host({ type: 'cancel', id: 'never-seen' });
  for (let i = 0; i < 3; i++) w.host({ type: 'ping', id: `p${i}` });
  w.host({ type: 'nonsense' });
  w.host({ type: 'call', id: 'bad1', site: 'a.com', tool: 'x', args: 'nope' });
  w.host({ type: 'open_url', id: 'o1', url: 'https://example.com/' });
  w.host({ type: 'open_url', id: 'o2', url: 'javascript:alert(1)' });
  a1.drop();
  w.chrome.tabs.onRemoved.fire(3, {});
  await sleep(1100); // the reload grace: tab 1's frame is gone for good
  w.native().drop('Native host has exited.');
  await sleep(400); // reconnect: hello, the whole registry, ping
  w.host({ type: 'pong', id: 'connect' });
  await hugeResult(w);
  const messages = w.allNative.map((m) => (m.type === 'chunk' ? { ...m, data: m.data.slice(0, 1000) }
    : m.type === 'result' && m.value ? { ...m, value: m.value.slice(0, 1000) } : m));
  assert.deepEqual(hostModelErrors(messages), []);
  assert.ok(messages.length > 30, `${messages.length}`);
  assert.deepEqual(new Set(messages.map((m) => m.type)), new Set(['hello', 'registry', 'ping', 'site_tools', 'result', 'pong', 'log', 'chunk']));
});
