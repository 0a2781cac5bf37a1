import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkHostMessage, errorResult, frameResultToHost, noTabMessage, notFoundMessage,
} from '../../extension/lib/messages.js';
import { explainNativeError } from '../../extension/lib/native-errors.js';
import { browserLabel } from '../../extension/lib/browser.js';
import { canonicalJson } from '../../extension/lib/tools.js';

test('call: normalised with defaults', () => {
  assert.deepEqual(checkHostMessage({ type: 'call', id: 'c1', site: 'A.com', tool: 'x' }), {
    ok: true,
    msg: { type: 'call', id: 'c1', site: 'a.com', tool: 'x', args: {}, timeout_ms: 60000, max_bytes: 16 * 1024 * 1024 },
  });
  const m = checkHostMessage({ type: 'call', id: 'c1', site: 'a.com', tool: 'x', args: { a: 1 }, timeout_ms: 1500.7, max_bytes: 100, extra: 1 });
  assert.deepEqual(m.msg, { type: 'call', id: 'c1', site: 'a.com', tool: 'x', args: { a: 1 }, timeout_ms: 1500, max_bytes: 100 });
  assert.equal(checkHostMessage({ type: 'call', id: 'c1', site: 'a.com', tool: 'x', timeout_ms: -5 }).msg.timeout_ms, 60000);
  assert.equal(checkHostMessage({ type: 'call', id: 'c1', site: 'a.com', tool: 'x', timeout_ms: 'soon' }).msg.timeout_ms, 60000);
});

test('malformed requests with an id get a bad_request; others only a log', () => {
  assert.deepEqual(checkHostMessage({ type: 'call', id: 'c1', site: 'a.com', tool: 'x', args: [1] }),
    { ok: false, error: 'malformed call message: args is not an object', id: 'c1' });
  assert.equal(checkHostMessage({ type: 'call', id: 'c1', tool: 'x' }).id, 'c1');
  assert.equal(checkHostMessage({ type: 'open_url', id: 'o1' }).id, 'o1');
  for (const bad of [null, 5, 'x', [], {}, { type: 'bogus' }, { type: 'call' }, { type: 'call', id: 3 },
    { type: 'cancel' }, { type: 'open_url', url: 'https://a.com' }]) {
    const r = checkHostMessage(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
    assert.equal(r.id, undefined, JSON.stringify(bad));
    assert.equal(typeof r.error, 'string');
  }
});

test('other host messages', () => {
  assert.deepEqual(checkHostMessage({ type: 'cancel', id: 'c1' }).msg, { type: 'cancel', id: 'c1' });
  assert.deepEqual(checkHostMessage({ type: 'open_url', id: 'o', url: 'x' }).msg, { type: 'open_url', id: 'o', url: 'x' });
  assert.deepEqual(checkHostMessage({ type: 'ping' }).msg, { type: 'ping', id: '' });
  assert.deepEqual(checkHostMessage({ type: 'ping', id: 'p' }).msg, { type: 'ping', id: 'p' });
  assert.equal(checkHostMessage({ type: 'chunk', cid: 'x' }).ok, true); // the reassembler checks chunks
});

test('frame results become host results', () => {
  assert.deepEqual(frameResultToHost('c1', { type: 'result', id: 'c1', ok: true, value: '{"sum":3}' }, 5, 100),
    { type: 'result', id: 'c1', ok: true, value: '{"sum":3}', tab_id: 5 });
  assert.equal(frameResultToHost('c1', { ok: true }, 5, 100).value, 'undefined');
  assert.equal(frameResultToHost('c1', { ok: true, value: { a: 1 } }, 5, 100).value, '{"a":1}');
  assert.deepEqual(frameResultToHost('c1', { ok: false, error: { code: 'cancelled', message: 'Stopped.' } }, 5, 100),
    { type: 'result', id: 'c1', ok: false, error: { code: 'cancelled', message: 'Stopped.' }, tab_id: 5 });
  assert.deepEqual(frameResultToHost('c1', { ok: false, error: { code: 'weird', message: 'boom' } }, 5, 100).error,
    { code: 'page_error', message: 'boom' });
  assert.deepEqual(frameResultToHost('c1', { ok: false, error: 'plain' }, 5, 100).error, { code: 'page_error', message: 'plain' });
  assert.equal(frameResultToHost('c1', { ok: false }, 5, 100).error.message, 'The tool failed without saying why.');
  assert.ok(frameResultToHost('c1', { ok: false, error: { message: 'x'.repeat(10000) } }, 5, 100).error.message.length < 2100);
});

test('results over max_bytes are too_large, counted in UTF-8 bytes', () => {
  assert.equal(frameResultToHost('c', { ok: true, value: 'x'.repeat(101) }, 1, 100).error.code, 'too_large');
  assert.equal(frameResultToHost('c', { ok: true, value: 'x'.repeat(100) }, 1, 100).ok, true);
  assert.equal(frameResultToHost('c', { ok: true, value: '网'.repeat(34) }, 1, 100).error.code, 'too_large');
  assert.equal(frameResultToHost('c', { ok: true, value: '网'.repeat(33) }, 1, 100).ok, true);
});

test('plain-language messages', () => {
  assert.equal(errorResult('c', 'no_tab', 'm').error.code, 'no_tab');
  assert.equal(noTabMessage('example.com'),
    'No tab of example.com is open. Open it in the browser (the open_browser tool can do it) and try again.');
  assert.equal(notFoundMessage('example.com', 'x', ['a', 'b']), 'example.com has no tool named "x" right now. Its tools: a, b.');
  assert.match(notFoundMessage('example.com', 'x', []), /offers no tools/);
  assert.match(notFoundMessage('e.com', 'x', Array.from({ length: 80 }, (_, i) => `t${i}`)), /t49, …\.$/);
});

test('native errors are explained with a fix', () => {
  assert.match(explainNativeError('Specified native messaging host not found.'), /webmcp-sidecar install/);
  assert.match(explainNativeError('Access to the specified native messaging host is forbidden.'), /allowed_origins/);
  assert.match(explainNativeError('Native host has exited.'), /webmcp-sidecar doctor/);
  assert.match(explainNativeError('Failed to start native messaging host.'), /could not start/);
  assert.match(explainNativeError('Error when communicating with the native messaging host.'), /1 MiB/);
  assert.match(explainNativeError('Something new.'), /Something new\..*doctor/);
  assert.match(explainNativeError(undefined), /reconnects by itself/);
});

test('browser label', () => {
  const ua = (tail) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) ${tail}`;
  assert.equal(browserLabel(ua('Chrome/156.0.0.0 Safari/537.36'), [{ brand: 'Chromium', version: '156' }]), 'Chromium 156.0.0.0');
  assert.equal(browserLabel(ua('HeadlessChrome/156.0.0.0 Safari/537.36'), []), 'Chromium 156.0.0.0');
  assert.equal(browserLabel(ua('Chrome/156.0.0.0 Safari/537.36'),
    [{ brand: 'Google Chrome', version: '156' }, { brand: 'Chromium', version: '156' }]), 'Google Chrome 156.0.0.0');
  assert.equal(browserLabel(ua('Chrome/156.0.0.0 Safari/537.36 Edg/156.0.100.1'),
    [{ brand: 'Microsoft Edge', version: '156' }]), 'Microsoft Edge 156.0.100.1');
  assert.equal(browserLabel(ua('Chrome/156.0.0.0 Safari/537.36 Edg/156.0.100.1')), 'Microsoft Edge 156.0.100.1');
  assert.equal(browserLabel(ua('Chrome/156.0.0.0 Safari/537.36'), [{ brand: 'Brave', version: '156' }]), 'Brave 156.0.0.0');
  assert.equal(browserLabel('Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0', undefined),
    'Firefox 153.0');
  assert.equal(browserLabel('', undefined), '');
});

test('canonical JSON ignores key order, not array order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"x":2,"y":1}]},"b":1}');
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
});
