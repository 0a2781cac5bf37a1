// lib/call-ids.js: the call-id grammar of wire/constants.py, read the same way everywhere.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  callId, callPrefix, CALLER_AGENT, CALLER_CHAT, CALLER_INSPECTOR, CALLER_SERVER, isCallOf, isConnId,
} from '../../extension/lib/call-ids.js';

test('the prefixes are the host\'s', () => {
  assert.deepEqual([CALLER_AGENT, CALLER_INSPECTOR, CALLER_CHAT, CALLER_SERVER], ['h', 'p', 'c', 's']);
});

test('a call id is read up to its first dot', () => {
  assert.equal(callPrefix('h.3'), 'h');
  assert.equal(callPrefix('c12.7'), 'c12');
  assert.equal(callPrefix('c.t.4'), 'c');
  assert.equal(callPrefix('nodot'), '');
  assert.equal(callPrefix('.5'), '');
  assert.equal(callPrefix(5), '');
  assert.equal(isCallOf('c.t.4', CALLER_CHAT), true);
  assert.equal(isCallOf('c1.4', CALLER_CHAT), false);
  assert.equal(isCallOf(undefined, CALLER_SERVER), false);
  assert.equal(callId(CALLER_INSPECTOR, 9), 'p.9');
});

test('an entry\'s connection id', () => {
  assert.equal(isConnId('c1'), true);
  assert.equal(isConnId('c'), false);
  assert.equal(isConnId('h1'), false);
  assert.equal(isConnId('c1.2'), false);
});

test('timeouts are said as the host says them (tests/unit/test_call_ids.py)', async () => {
  const { timeoutText } = await import('../../extension/lib/protocol.js');
  assert.equal(timeoutText('The page', 60_000), 'The page did not answer within 60 s.');
  assert.equal(timeoutText('The page', 1_500), 'The page did not answer within 1.5 s.');
  assert.equal(timeoutText('The page', 300), 'The page did not answer within 0.3 s.');
});
