// Skills' Chrome match patterns (extension/lib/skills/match.js), as docs/SKILLS.md defines them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMatchPattern, matchesUrl, skillsForUrl } from '../../extension/lib/skills/match.js';

test('parseMatchPattern reads scheme, host, port and path', () => {
  assert.deepEqual(parseMatchPattern('https://*.Example.com/shop/*'),
    { scheme: 'https', host: 'example.com', subdomains: true, port: null, path: '/shop/*', source: 'https://*.Example.com/shop/*' });
  assert.equal(parseMatchPattern('http://127.0.0.1:8080/*').port, '8080');
  assert.equal(parseMatchPattern('*://a.test:*/').port, null);
  assert.equal(parseMatchPattern('http://[::1]:3000/x').host, '[::1]');
  assert.equal(parseMatchPattern('http://bücher.de/*').host, 'xn--bcher-kva.de');
});

test('parseMatchPattern refuses what Chrome or the skill rules refuse', () => {
  for (const bad of ['<all_urls>', 'file:///tmp/*', 'ftp://a.test/*', 'http://*/*', 'https://*.*/x', 'http://a.test',
    'http://a*.test/*', 'http://a.test:99999/*', 'http://*.[::1]/*', 'http://a.test?x/*', '', 'a.test/*']) {
    assert.throws(() => parseMatchPattern(bad), TypeError, bad);
  }
});

test('matchesUrl: scheme, host, subdomains, ports, path and query, never the fragment', () => {
  const m = (p, url, ex = []) => matchesUrl(Array.isArray(p) ? p : [p], ex, url);
  assert.ok(m('*://shop.test/*', 'http://shop.test/'));
  assert.ok(m('*://shop.test/*', 'https://shop.test/a'));
  assert.ok(!m('https://shop.test/*', 'http://shop.test/a'));
  assert.ok(!m('*://shop.test/*', 'ftp://shop.test/a'));
  // *.name: the name itself and its subdomains, not a look-alike
  assert.ok(m('https://*.shop.test/*', 'https://shop.test/x'));
  assert.ok(m('https://*.shop.test/*', 'https://a.b.shop.test/x'));
  assert.ok(!m('https://*.shop.test/*', 'https://evilshop.test/x'));
  assert.ok(!m('https://shop.test/*', 'https://a.shop.test/x'));
  // ports: absent = any, * = any, a number = that port (default ports count)
  assert.ok(m('http://127.0.0.1/*', 'http://127.0.0.1:8123/shop/'));
  assert.ok(m('http://127.0.0.1:*/shop/*', 'http://127.0.0.1:8123/shop/x'));
  assert.ok(m('http://127.0.0.1:8123/*', 'http://127.0.0.1:8123/'));
  assert.ok(!m('http://127.0.0.1:8123/*', 'http://127.0.0.1:8124/'));
  assert.ok(m('http://a.test:80/*', 'http://a.test/'));
  assert.ok(m('https://a.test:443/*', 'https://a.test/'));
  assert.ok(m('http://[::1]:*/*', 'http://[::1]:9000/x'));
  assert.ok(m('http://[0:0::1]/*', 'http://[::1]/x'));
  // path: * anywhere, matched against path + query; the fragment never counts
  assert.ok(m('https://a.test/search?q=*', 'https://a.test/search?q=shoes'));
  assert.ok(!m('https://a.test/search', 'https://a.test/search?q=shoes'));
  assert.ok(m('https://a.test/search', 'https://a.test/search#results'));
  assert.ok(!m('https://a.test/*#x', 'https://a.test/p#x'));
  assert.ok(m('https://a.test/*/items/*', 'https://a.test/u/42/items/7'));
  assert.ok(!m('https://a.test/*/items/*', 'https://a.test/u/42/other/7'));
  assert.ok(m('https://a.test/a.b', 'https://a.test/a.b'));
  assert.ok(!m('https://a.test/a.b', 'https://a.test/aXb'), 'a dot is a dot, not any character');
  // excludes win
  assert.ok(!m('http://127.0.0.1:*/shop/*', 'http://127.0.0.1:1/shop/admin/x', ['http://127.0.0.1:*/shop/admin*']));
  assert.ok(m('http://127.0.0.1:*/shop/*', 'http://127.0.0.1:1/shop/cart', ['http://127.0.0.1:*/shop/admin*']));
  // junk never matches and never throws
  assert.ok(!m('https://a.test/*', 'not a url'));
  assert.ok(!m(['<all_urls>', 'http://*/*'], 'https://a.test/'));
  assert.ok(!matchesUrl(/** @type {any} */ (null), null, 'https://a.test/'));
});

test('skillsForUrl: the fitting skills, priority first, then name in code-point order', () => {
  const s = (name, priority, match, exclude = []) => ({ name, priority, match, exclude });
  const skills = [
    s('zeta', 0, ['https://*.shop.test/*']),
    s('alpha', 0, ['https://shop.test/*']),
    s('Beta', 0, ['https://shop.test/*']), // uppercase sorts before lowercase in code-point order
    s('high', 10, ['https://shop.test/cart*']),
    s('low', -5, ['*://shop.test/*']),
    s('admin-excluded', 99, ['https://shop.test/*'], ['https://shop.test/admin*']),
    s('other-site', 50, ['https://other.test/*']),
    { name: 'broken', match: ['<all_urls>'] },
  ];
  const names = (url) => skillsForUrl(skills, url).map((x) => x.name);
  assert.deepEqual(names('https://shop.test/cart?id=1'), ['admin-excluded', 'high', 'Beta', 'alpha', 'zeta', 'low']);
  assert.deepEqual(names('https://shop.test/admin/users'), ['Beta', 'alpha', 'zeta', 'low']);
  assert.deepEqual(names('https://m.shop.test/'), ['zeta']);
  assert.deepEqual(names('chrome://settings/'), []);
  // the same objects come back (callers compare them)
  assert.equal(skillsForUrl(skills, 'https://other.test/')[0], skills[6]);
});

test('skillsForUrl stays cheap with 100 skills (compiled once per list)', () => {
  const skills = Array.from({ length: 100 }, (_, i) => ({
    name: `s${i}`, priority: i % 7, match: [`https://site${i}.test/*`, `*://*.alt${i}.test:8080/app/*`],
    exclude: [`https://site${i}.test/private*`],
  }));
  let found = 0;
  for (let i = 0; i < 2000; i++) found += skillsForUrl(skills, `https://site${i % 100}.test/page/${i}`).length;
  assert.equal(found, 2000);
  assert.deepEqual(skillsForUrl(skills, 'http://x.alt5.test:8080/app/home').map((x) => x.name), ['s5']);
  assert.deepEqual(skillsForUrl(skills, 'https://site5.test/private/1'), []);
});
