// The small pure helpers of the browser tools: key names, page text paging, URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyEvents, parseKey } from '../../extension/lib/keys.js';
import { cleanText, pageBounds, textPage } from '../../extension/lib/page-text.js';
import { explainPageError, navigableUrl, unscriptableReason } from '../../extension/lib/tab-urls.js';

test('key names become what a keyboard sends', () => {
  assert.deepEqual(parseKey('Enter'), { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r', modifiers: 0 });
  assert.deepEqual(parseKey('esc'), { key: 'Escape', code: 'Escape', windowsVirtualKeyCode: 27, text: '', modifiers: 0 });
  assert.deepEqual(parseKey('a'), { key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, text: 'a', modifiers: 0 });
  assert.deepEqual(parseKey('Shift+a'), { key: 'A', code: 'KeyA', windowsVirtualKeyCode: 65, text: 'A', modifiers: 8 });
  assert.deepEqual(parseKey('Control+A'), { key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, text: '', modifiers: 2 });
  assert.deepEqual(parseKey('Control+Shift+a').key, 'A');
  assert.deepEqual(parseKey('ctrl+shift+Tab'), { key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9, text: '', modifiers: 10 });
  assert.deepEqual(parseKey('Shift+1').key, '!');
  assert.deepEqual(parseKey('+'), { key: '+', code: '', windowsVirtualKeyCode: 0, text: '+', modifiers: 0 });
  assert.deepEqual(parseKey('Control++').modifiers, 2);
  assert.equal(parseKey('F5').windowsVirtualKeyCode, 116);
  assert.match(parseKey('Hyper+x').error, /not a modifier/);
  assert.match(parseKey('Enterr').error, /not a key name/);
  assert.match(parseKey('').error, /Give a key/);
  assert.match(parseKey(7).error, /Give a key/);
});

test('keys with text go down as keyDown, others as rawKeyDown, then up', () => {
  const [down, up] = keyEvents(/** @type {any} */ (parseKey('Enter')));
  assert.equal(down.type, 'keyDown');
  assert.equal(down.text, '\r');
  assert.equal(up.type, 'keyUp');
  assert.equal(keyEvents(/** @type {any} */ (parseKey('ArrowDown')))[0].type, 'rawKeyDown');
});

test('page text is tidied: spaces collapsed, lines trimmed, one blank line at most', () => {
  assert.equal(cleanText('  a  \t b \r\n\r\n\n\n  c\u00a0d  \n'), 'a b\n\nc d');
  assert.equal(cleanText(undefined), '');
});

test('pages end at a paragraph, line or word break and cover the whole text', () => {
  const text = Array.from({ length: 50 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30).trim()}.`).join('\n\n');
  const bounds = pageBounds(text, 1000);
  assert.equal(bounds[0][0], 0);
  assert.equal(bounds.at(-1)[1], text.length);
  for (let i = 1; i < bounds.length; i++) assert.equal(bounds[i][0], bounds[i - 1][1]);
  for (const [s, e] of bounds.slice(0, -1)) {
    assert.ok(e - s <= 1000 && e - s >= 800, `${e - s}`);
    assert.match(text.slice(e - 2, e), /\n\n$/);
  }
  // No break in the window: a hard cut.
  assert.deepEqual(pageBounds('x'.repeat(25), 10), [[0, 10], [10, 20], [20, 25]]);
  assert.deepEqual(pageBounds('', 10), [[0, 0]]);
});

test('a page of the text, or a clear error past the end', () => {
  const p = textPage('aaaa bbbb cccc dddd', 2, 10);
  assert.deepEqual(p, { text: 'cccc dddd', page: 2, pages: 2, start: 10, end: 19, total: 19 });
  assert.match(textPage('short', 3, 100).error, /has 1 page of up to 100 characters; there is no page 3/);
});

test('URLs to open: web pages only, bare hosts completed', () => {
  assert.deepEqual(navigableUrl('https://a.test/x'), { url: 'https://a.test/x' });
  assert.deepEqual(navigableUrl('example.com/path'), { url: 'https://example.com/path' });
  assert.deepEqual(navigableUrl('localhost:8080'), { url: 'http://localhost:8080/' });
  assert.deepEqual(navigableUrl('127.0.0.1:5000/a'), { url: 'http://127.0.0.1:5000/a' });
  assert.deepEqual(navigableUrl('file:///tmp/a.html'), { url: 'file:///tmp/a.html' });
  assert.deepEqual(navigableUrl('about:blank'), { url: 'about:blank' });
  assert.match(navigableUrl('chrome://settings').error, /chrome:\/\/ pages are the browser's own/);
  assert.match(navigableUrl('javascript:alert(1)').error, /javascript:/);
  assert.match(navigableUrl('').error, /Give the URL/);
  assert.match(navigableUrl(42).error, /Give the URL/);
  assert.match(navigableUrl('http://').error, /not a URL/);
});

test('pages no extension may touch are named, with the reason', () => {
  assert.match(unscriptableReason('chrome://version/'), /chrome:\/\/ page .*no extension may read or control/);
  assert.match(unscriptableReason('chrome-extension://abc/page.html'), /another extension/);
  assert.match(unscriptableReason('https://chromewebstore.google.com/detail/x'), /extension store/);
  assert.equal(unscriptableReason('https://example.com/'), null);
  assert.equal(unscriptableReason('about:blank'), null);
  assert.equal(unscriptableReason(undefined), null);
});

test('Chrome\'s errors in plain words', () => {
  assert.match(explainPageError('Cannot access a chrome:// URL', 'chrome://version'), /browser_navigate can open one/);
  assert.match(explainPageError('Frame with ID 0 is showing error page', 'http://127.0.0.1:9/'), /did not load/);
  assert.match(explainPageError('Cannot access contents of url "file:///x". Extension manifest must request permission to access this host.', 'file:///x'),
    /Allow access to file URLs/);
  assert.match(explainPageError('Another debugger is already attached to the tab with id: 5.', 'https://a.test/'), /already controlling this tab/);
  assert.match(explainPageError('No tab with id: 5.', 'https://a.test/'), /went away/);
  assert.match(explainPageError('weird', 'https://a.test/'), /could not be reached: weird/);
});
