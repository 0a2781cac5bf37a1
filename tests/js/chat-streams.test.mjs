// The chat-site stream parsers (extension/lib/chat/): recorded answers of each wire format,
// split at every byte boundary (and fed a byte at a time), give the same text and the same tool
// calls as the whole answer; calls are caught as soon as they close.
import test from 'node:test';
import assert from 'node:assert/strict';
import { streams, calls } from '../../extension/lib/chat/index.js';

const enc = new TextEncoder();
const CALL = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>';
const sse = (objs, { crlf = false, event = null } = {}) => objs.map((o) => {
  const nl = crlf ? '\r\n' : '\n';
  return `${event ? `event: ${event}${nl}` : ''}data: ${typeof o === 'string' ? o : JSON.stringify(o)}${nl}${nl}`;
}).join('');
const pieces = ['好的，我来算一下。', '<tool', '_call>{"name": "add", ', '"arguments": {"a": 2, "b": 3}}</tool_', 'call>', ' 🙂'];
const WANT = pieces.join('');

/** Recorded answers: [name, response spec, body text, expected text]. */
const RECORDED = [
  ['openai-like SSE', { kind: 'sse', text_paths: ['choices[0].delta.content'] },
    `: keep-alive\n\n${sse([{ choices: [{ delta: { role: 'assistant' } }] }, ...pieces.map((p) => ({ choices: [{ delta: { content: p } }] })), '[DONE]'])}`, WANT],
  ['SSE with CRLF and event names', { kind: 'sse', text_paths: ['text'], when: { event: 'cmpl' } },
    sse([{ event: 'req' }, ...pieces.map((text) => ({ event: 'cmpl', text })), { event: 'all_done' }], { crlf: true }), WANT],
  ['SSE event filter', { kind: 'sse', text_paths: ['delta.text'], event: 'content_block_delta' },
    sse([{ type: 'message_start', delta: { text: 'NO' } }], { event: 'message_start' }) + pieces.map((p) => sse([{ delta: { text: p } }], { event: 'content_block_delta' })).join(''), WANT],
  ['full-text SSE (tongyi)', { kind: 'sse', text_paths: ['contents[0].content'], text_mode: 'full' },
    sse(pieces.map((_, i) => ({ contents: [{ content: pieces.slice(0, i + 1).join('') }] }))), WANT],
  ['JSON in JSON strings (doubao)', { kind: 'sse', text_paths: ['event_data.@json.message.content.@json.text'], when: { event_type: 2001 } },
    sse([{ event_type: 2002, event_data: '{}' }, ...pieces.map((text) => ({ event_type: 2001, event_data: JSON.stringify({ message: { content: JSON.stringify({ text }) } }) }))]), WANT],
  ['patch deltas (deepseek, chatgpt)', { kind: 'sse', text_paths: ['choices[0].delta.content', 'v'] },
    sse([{ v: { response: { message_id: 2 } } }, ...pieces.map((v) => ({ v }))]), WANT],
  ['NDJSON', { kind: 'ndjson', text_paths: ['message.content'] },
    `${pieces.map((p) => JSON.stringify({ message: { role: 'assistant', content: p }, done: false })).join('\n')}\n${JSON.stringify({ done: true })}`, WANT],
  ['NDJSON with CRLF and no last newline', { kind: 'ndjson', text_paths: ['response'] },
    pieces.map((p) => JSON.stringify({ response: p })).join('\r\n'), WANT],
  ['whole JSON', { kind: 'json', text_paths: ['choices[0].message.content'] },
    JSON.stringify({ choices: [{ message: { content: WANT } }] }), WANT],
];

/** Reads `bytes` given as the chunks `cuts` makes; the text and calls found, in order. */
function readAll(spec, chunks) {
  const reader = streams.answerReader(spec);
  const scanner = calls.callScanner();
  const found = [];
  for (const c of chunks) found.push(...scanner.scan(reader.push(c)));
  found.push(...scanner.finish(reader.end()));
  return { text: reader.text, found };
}

for (const [name, spec, body, want] of RECORDED) {
  test(`${name}: the same text and call at every byte boundary`, () => {
    const bytes = enc.encode(body);
    const whole = readAll(spec, [bytes]);
    assert.equal(whole.text, want);
    assert.deepEqual(whole.found.map((c) => c.ok && [c.name, c.arguments]), [['add', { a: 2, b: 3 }]]);
    for (let i = 0; i <= bytes.length; i++) {
      const got = readAll(spec, [bytes.subarray(0, i), bytes.subarray(i)]);
      assert.equal(got.text, want, `split at byte ${i}`);
      assert.deepEqual(got.found, whole.found, `split at byte ${i}`);
    }
    const bytewise = readAll(spec, [...bytes].map((b) => new Uint8Array([b])));
    assert.equal(bytewise.text, want);
    assert.deepEqual(bytewise.found, whole.found);
  });
}

test('a call is caught as soon as it closes, before the stream ends', () => {
  const spec = { kind: 'sse', text_paths: ['choices[0].delta.content'] };
  const reader = streams.answerReader(spec);
  const scanner = calls.callScanner();
  const events = pieces.map((p) => sse([{ choices: [{ delta: { content: p } }] }]));
  const caughtAt = events.findIndex((e) => scanner.scan(reader.push(enc.encode(e))).length > 0);
  assert.equal(caughtAt, 4); // the event carrying `call>`, not the end
  assert.deepEqual(scanner.finish(reader.end()), []); // reported once
});

test('a stream the adapter does not match gives no text and says so by its event count', () => {
  const reader = streams.answerReader({ kind: 'sse', text_paths: ['choices[0].delta.content'] });
  reader.push(sse([{ other: 'format' }]));
  assert.equal(reader.end(), '');
  assert.equal(reader.events, 0);
});

test('malformed calls get plain messages and nothing to run', () => {
  const cases = [
    ['<tool_call>{"name": "add", "arguments": {"a": 2,}}</tool_call>', /not valid JSON/],
    ['<tool_call>["add"]</tool_call>', /must be a JSON object with "name"/],
    ['<tool_call>{"arguments": {}}</tool_call>', /no valid "name"/],
    ['<tool_call>{"name": "add", "arguments": [1]}</tool_call>', /"arguments" of add must be a JSON object/],
    ['text <tool_call>{"name": "add"', /not closed with <\/tool_call>/],
  ];
  for (const [text, message] of cases) {
    const [found, ...more] = calls.callsIn(text);
    assert.equal(more.length, 0, text);
    assert.equal(found.ok, false, text);
    assert.match(found.error, message);
    assert.match(found.error, /nothing ran/);
  }
});

test('fenced JSON, missing arguments, several calls, and a replaced full text', () => {
  const text = `a <tool_call>\n\`\`\`json\n{"name": "x"}\n\`\`\`\n</tool_call> b ${CALL}`;
  assert.deepEqual(calls.callsIn(text).map((c) => [c.name, c.arguments]), [['x', {}], ['add', { a: 2, b: 3 }]]);
  const scanner = calls.callScanner();
  assert.equal(scanner.scan(`one ${CALL}`).length, 1);
  assert.equal(scanner.scan(`One, rewritten: ${CALL}`).length, 0); // the same call, not again
  assert.equal(scanner.finish(`One, rewritten: ${CALL} and ${CALL}`).length, 1);
});

test('the instruction block names each tool, its schema and the exact call format', () => {
  const block = calls.instructionBlock([
    { name: 'add', description: 'Adds\n two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, readOnly: true },
  ]);
  assert.match(block, /<tool_call>\{"name": "TOOL_NAME", "arguments": \{\.\.\.\}\}<\/tool_call>/);
  assert.match(block, /- add: Adds two numbers \(read-only\)\n {2}arguments: \{"type":"object","properties":\{"a":\{"type":"number"\}\}\}/);
  assert.deepEqual(calls.chatNames([{ where: 'a.com', tool: 'search' }, { where: 'b.org:8080', tool: 'search' }, { where: 'everything', tool: 'add' }]),
    ['a_com__search', 'b_org_8080__search', 'add']);
});

test('results are capped with a note', () => {
  assert.equal(calls.resultText('add', { ok: true, value: '5' }), '[tool_result add]\n5\n[/tool_result]');
  const long = calls.resultText('read', { ok: true, value: 'x'.repeat(20) }, 8);
  assert.equal(long, '[tool_result read]\nxxxxxxxx\n(The result was cut: 12 more characters were not sent.)\n[/tool_result]');
  assert.match(calls.resultText('add', { ok: false, error: { message: 'No tab.' } }), /Error: No tab\./);
});
