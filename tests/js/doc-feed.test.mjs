// The user's documents the worker uses come in one message type for every kind (`docs {kind,
// docs}`, answering `doc_get {kind}`; native_host/doc_link.py): routes.js hands them to the kind's
// module, and what the host sends is checked first: a kind the worker does not use, or a message
// that is not one, is logged back and changes nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOCOL_VERSION } from '../../extension/lib/protocol.js';
import { startWorker } from './fake-chrome.mjs';

const SKILL = { name: 'shop', tools: [], match: ['https://a.test/*'] };
const ADAPTER = { name: 'replica', sites: ['chat.test'] };

/** A worker with no tabs open (the modules look at every tab when their documents change). */
function worker(t) {
  const w = startWorker(t);
  w.chrome.tabs.query = async () => [];
  return w;
}

test('on connect the worker asks for each kind it uses, and each kind reaches its module', (t) => {
  const w = worker(t);
  w.host({ type: 'host_hello', protocol: PROTOCOL_VERSION });
  assert.deepEqual(w.fromHost().filter((m) => m.type === 'doc_get').map((m) => m.kind), ['skills', 'chat_sites']);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL] });
  w.host({ type: 'docs', kind: 'chat_sites', docs: [ADAPTER] });
  assert.deepEqual(w.worker.skills.list, [SKILL]);
  assert.deepEqual(w.worker.chatSites.adapters, [ADAPTER]);
  assert.deepEqual(w.fromHost(), []);
});

test('documents of a kind the worker does not use, or not documents at all, are logged and ignored', (t) => {
  const w = worker(t);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL] });
  const hostile = [
    { type: 'docs', kind: 'prompts', docs: [{ name: 'p' }] }, // a kind of the host's, not the worker's
    { type: 'docs', kind: 'constructor', docs: [] }, // a name on every object's prototype
    { type: 'docs', kind: '__proto__', docs: [] },
    { type: 'docs', kind: ['skills'], docs: [] },
    { type: 'docs', kind: 'skills'.repeat(10), docs: [] }, // longer than a kind's name
    { type: 'docs', docs: [SKILL] },
    { type: 'docs', kind: 'skills', docs: 'all of them' },
    { type: 'docs', kind: 'skills', docs: [SKILL, 'x'] },
    { type: 'docs', kind: 'chat_sites', docs: { 0: ADAPTER } },
  ];
  for (const msg of hostile) w.host(msg);
  const logs = w.fromHost();
  assert.equal(logs.length, hostile.length, JSON.stringify(logs));
  assert.ok(logs.every((m) => m.type === 'log' && m.level === 'warning'), JSON.stringify(logs));
  assert.match(logs[0].message, /kind the worker does not use: prompts$/);
  assert.match(logs[1].message, /kind the worker does not use: constructor$/);
  assert.deepEqual(logs.slice(2).map((m) => m.message), [
    'ignored a host message: malformed docs message: no kind',
    'ignored a host message: malformed docs message: no kind',
    'ignored a host message: malformed docs message: no kind',
    'ignored a host message: malformed docs message: no kind',
    'ignored a host message: malformed docs message: docs is not a list',
    'ignored a host message: malformed docs message: docs is not a list',
    'ignored a host message: malformed docs message: docs is not a list',
  ]);
  assert.deepEqual(w.worker.skills.list, [SKILL]); // nothing changed
  assert.deepEqual(w.worker.chatSites.adapters, []);
});

test("each kind's module keeps its own cap on what the host sends", (t) => {
  const w = worker(t);
  const many = Array.from({ length: 250 }, (_, i) => ({ ...ADAPTER, name: `a${i}` }));
  w.host({ type: 'docs', kind: 'chat_sites', docs: many });
  assert.equal(w.worker.chatSites.adapters.length, 200);
  w.host({ type: 'docs', kind: 'skills', docs: [SKILL, { name: 'no tools' }] });
  assert.deepEqual(w.worker.skills.list, [SKILL]); // a skill without its parts is left out
});
