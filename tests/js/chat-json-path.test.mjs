// The adapters' path syntax in the extension (lib/chat/json-path.js); the host's twin is
// chat_sites/paths.py (tests/unit/test_chat_sites.py): the same paths are good or bad in both.
import test from 'node:test';
import assert from 'node:assert/strict';
import { path } from '../../extension/lib/chat/index.js';

test('paths parse as the host parses them', () => {
  assert.deepEqual(path.parsePath('messages[-1].content'), ['messages', -1, 'content']);
  assert.deepEqual(path.parsePath('["a.b"][0]'), ['a.b', 0]);
  assert.deepEqual(path.parsePath('e.@json.t'), ['e', path.JSON_STEP, 't']);
  assert.deepEqual(path.parsePath('["@json"]'), ['@json']); // a key, not the step
  for (const bad of ['', '.a', 'a..b', 'a b', 'a.[0]', 'a[x]', 'a.'.repeat(200)]) assert.equal(path.parsePath(bad), null, bad);
});

test('getPath reads own keys only, negative indexes and JSON strings', () => {
  const doc = { messages: [{ content: 'a' }, { content: JSON.stringify({ text: 'b' }) }] };
  assert.equal(path.getPath(doc, path.parsePath('messages[-1].content.@json.text')), 'b');
  assert.equal(path.getPath(doc, path.parsePath('messages[0].content')), 'a');
  assert.equal(path.getPath(doc, path.parsePath('messages[5].content')), undefined);
  assert.equal(path.getPath({}, path.parsePath('constructor')), undefined);
  assert.equal(path.getPath({ a: 'not json' }, path.parsePath('a.@json')), undefined);
});

test('updatePath copies along the path and writes JSON strings back', () => {
  const doc = { keep: 1, messages: [{ content: JSON.stringify({ text: 'hi', x: 1 }) }] };
  const out = path.updatePath(doc, path.parsePath('messages[-1].content.@json.text'), (t) => `TOOLS\n${t}`);
  assert.deepEqual(JSON.parse(out.messages[0].content), { text: 'TOOLS\nhi', x: 1 });
  assert.equal(out.keep, 1);
  assert.equal(JSON.parse(doc.messages[0].content).text, 'hi'); // the original is untouched
  assert.equal(path.updatePath(doc, path.parsePath('nope.text'), () => 'x'), undefined);
});
