// Public suffixes as sites (lib/public-suffix.js, issue 27): a skill pattern or chat-site adapter
// hostname on `*.com`, `co.uk`, `*.github.io` matches nothing in the extension, even if a file
// skipped the host's check; a site under a suffix still matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { isPublicSuffix } = await import('../../extension/lib/public-suffix.js');
const { parseMatchPattern, skillsForUrl } = await import('../../extension/lib/skills/match.js');
const { hostMatches } = await import('../../extension/background/chat-sites.js');

test('the list: suffixes, wildcard rules and their exceptions; unknown names are not suffixes', () => {
  assert.deepEqual(['com', 'co.uk', 'github.io', 'foo.ck', 'ck'].map(isPublicSuffix), [true, true, true, true, true]);
  assert.deepEqual(['example.com', 'me.github.io', 'www.ck', 'localhost', 'test', '127.0.0.1', '[::1]'].map(isPublicSuffix),
    [false, false, false, false, false, false, false]);
});

test('a skill whose pattern is a public suffix matches no page', () => {
  for (const p of ['*://*.com/*', 'https://co.uk/*', '*://*.github.io/*', 'http://com/']) {
    assert.throws(() => parseMatchPattern(p), /is a public suffix/);
  }
  const skills = [{ name: 'wide', match: ['*://*.com/*'] }, { name: 'mine', match: ['https://*.example.com/*'] }];
  assert.deepEqual(skillsForUrl(skills, 'https://bank.com/').map((s) => s.name), []);
  assert.deepEqual(skillsForUrl(skills, 'https://a.example.com/x').map((s) => s.name), ['mine']);
});

test('a chat adapter hostname that is a public suffix matches no site', () => {
  assert.equal(hostMatches('*.co.uk', 'bank.co.uk'), false);
  assert.equal(hostMatches('com', 'com'), false);
  assert.equal(hostMatches('*.github.io', 'someone.github.io'), false);
  assert.equal(hostMatches('*.chat.example.com', 'a.chat.example.com'), true);
});
