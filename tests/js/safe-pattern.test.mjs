// The Inspector's pattern matcher: the built-in engine's answers, in linear time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { patternTester } from '../../extension/lib/safe-pattern.js';

const PATTERNS = [
  '^[A-Za-z]{3}$', '^\\d{4}-\\d{2}-\\d{2}$', 'abc', '^a|b$', '(foo|bar)+baz', '^(a+)+$', '\\bword\\b',
  '^\\w+@\\w+\\.com$', '^[^@\\s]+@[^@\\s]+$', '^[\\u4e00-\\u9fa5]+$', 'x{2,3}y', 'x{2,}', '^$', '',
  '^(?:ab)*c?$', '^(?<year>\\d{4})$', '[.]', '^.$', '\\.', '[\\d-]', '[a\\-z]', '[]', '[^]', '^\\s*$',
  '\\S', '\\D+', '\\W', '^\\+?[1-9]\\d{1,14}$', 'a*?b', '\\u{1F600}', '\\ud83d\\ude00', '^.{2}$', '\\Bb',
  '^[\\w.-]+$', 'colou?r', '(a|ab)(c|bcd)(d*)', '^(a|b)*?abb$', '^(|a)+$', '[\\x41-\\x43]+', '\\cJ',
];
const INPUTS = [
  '', 'a', 'abc', 'ABC', 'ab', '2026-12-01', 'foo@bar.com', 'a b', 'word', 'sword', ' word ', '中文',
  'abc中', 'xx', 'xxxy', 'xxy', 'foobarbaz', 'baz', 'aaaa', 'aaaa!', '😀', 'a😀', '\n', 'a\nb', '.', '-',
  '+8613800000000', 'abcd', 'bb', 'colour', 'color', 'abbb', 'aabb', '\u00a0', 'x\u2028', 'BCA',
];

test('answers as the built-in engine (u flag) does', () => {
  for (const p of PATTERNS) {
    const t = patternTester(p);
    assert.ok(t, `reads ${p}`);
    const re = new RegExp(p, 'u');
    for (const s of INPUTS) assert.equal(t(s), re.test(s), `${JSON.stringify(p)} on ${JSON.stringify(s)}`);
  }
});

test('returns null for what it does not read', () => {
  for (const p of ['(?=a)', '(?!a)', '(?<=a)', '(?<!a)', '(a)\\1', '\\k<x>', '\\p{L}', 'a{2', '*', 'a**',
    '(', ')', '\\', '[', '\\q', '(a{1000}){1000}', 'x'.repeat(3000), 42, undefined]) {
    assert.equal(patternTester(p), null, String(p));
  }
});

test('catastrophic patterns for a backtracking engine are linear here', () => {
  assert.equal(patternTester('^(a+)+$')(`${'a'.repeat(5000)}!`), false);
  assert.equal(patternTester('^(a|aa)*$')('a'.repeat(5000)), true);
  assert.equal(patternTester('(x+x+)+y')('x'.repeat(5000)), false);
  // Past its step budget it does not guess: undefined, and the form leaves it to the page.
  assert.equal(patternTester('a{1,1000}b')('a'.repeat(20000)), undefined);
});
