import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isHttps, siteOf } from '../../extension/lib/site.js';

test('http and https URLs give host plus non-default port, lowercased', () => {
  assert.equal(siteOf('https://Mail.163.com/js6/main.jsp?x=1#y'), 'mail.163.com');
  assert.equal(siteOf('http://localhost:8080/a'), 'localhost:8080');
  assert.equal(siteOf('https://example.com:443/'), 'example.com');
  assert.equal(siteOf('http://example.com:80/'), 'example.com');
  assert.equal(siteOf('https://example.com:8443/'), 'example.com:8443');
  assert.equal(siteOf('http://127.0.0.1:5173'), '127.0.0.1:5173');
  assert.equal(siteOf('http://[::1]:3000/'), '[::1]:3000');
  assert.equal(siteOf('https://user:pw@EXAMPLE.org/'), 'example.org');
  assert.equal(siteOf('https://bücher.de/'), 'xn--bcher-kva.de');
});

test('anything else is null', () => {
  for (const url of ['file:///tmp/a.html', 'chrome://newtab/', 'about:blank', 'data:text/html,x',
    'chrome-extension://abc/page.html', 'ftp://example.com/', 'not a url', '', undefined, null, 42]) {
    assert.equal(siteOf(/** @type {any} */ (url)), null, String(url));
  }
});

test('isHttps tells https URLs from everything else (sites are keyed without the scheme)', () => {
  assert.equal(siteOf('http://bank.com/'), siteOf('https://bank.com/'));
  for (const url of ['https://bank.com/', 'HTTPS://Bank.com:8443/x', ' https://a.com']) assert.equal(isHttps(url), true, url);
  for (const url of ['http://bank.com/', 'http://bank.com:443/', 'file:///x', 'wss://a.com', 'not a url', '', undefined, 42]) {
    assert.equal(isHttps(/** @type {any} */ (url)), false, String(url));
  }
});
