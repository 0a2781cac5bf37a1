// The chat-site stream parsers (extension/lib/chat/): recorded answers of each wire format,
// split at every byte boundary (and fed a byte at a time), give the same text and the same tool
// calls as the whole answer; calls are caught as soon as they close.
import test from 'node:test';
import assert from 'node:assert/strict';
import { streams, calls, path } from '../../extension/lib/chat/index.js';

const enc = new TextEncoder();
const CALL = '<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>';
const sse = (objs, { crlf = false, event = null } = {}) => objs.map((o) => {
  const nl = crlf ? '\r\n' : '\n';
  return `${event ? `event: ${event}${nl}` : ''}data: ${typeof o === 'string' ? o : JSON.stringify(o)}${nl}${nl}`;
}).join('');
const pieces = ['好的，我来算一下。', '<tool', '_call>{"name": "add", ', '"arguments": {"a": 2, "b": 3}}</tool_', 'call>', ' 🙂'];
const WANT = pieces.join('');

/** Connect-RPC streaming envelopes: a flags byte, a 4-byte big-endian length, the JSON message. */
function connectFrames(messages, end = { metadata: {} }) {
  const parts = [...messages.map((m) => [0, enc.encode(JSON.stringify(m))]), [2, enc.encode(JSON.stringify(end))]];
  const out = new Uint8Array(parts.reduce((n, [, b]) => n + 5 + b.length, 0));
  let at = 0;
  for (const [flags, b] of parts) {
    out[at] = flags;
    new DataView(out.buffer).setUint32(at + 1, b.length);
    out.set(b, at + 5);
    at += 5 + b.length;
  }
  return out;
}

// The shapes below follow the public recordings and clients named in docs/CHAT_SITES.md (each
// adapter's `source`): DeepSeek's op stream with its first token in a BATCH's APPEND list and
// THINK fragments mixed in; ChatGPT's delta encoding (add, append, patch lists, bare `v`);
// Doubao's newer app (named events, text in content_block lists and patch_op lists); Qwen's
// `phase`; Kimi's Connect-RPC frames (set the first piece, append the rest; think blocks apart).
const [p0, p1, p2, p3, p4, p5] = pieces;
const DEEPSEEK = sse([
  { request_message_id: 1, response_message_id: 2 },
  { v: { response: { message_id: 2, status: 'WIP', fragments: [] } } },
  { v: [{ v: false, p: 'has_pending_fragment' }, { v: [{ id: 1, type: 'THINK', content: 'NO: the user wants ' }], p: 'fragments', o: 'APPEND' }], p: 'response', o: 'BATCH' },
  { v: '<tool_call>{"name": "thinking"}</tool_call>', p: 'response/fragments/-1/content', o: 'APPEND' },
  { v: ' NO' },
  { v: [{ v: [{ id: 2, type: 'RESPONSE', content: p0 + p1 }], p: 'fragments', o: 'APPEND' }], p: 'response', o: 'BATCH' },
  { v: p2, p: 'response/fragments/-1/content', o: 'APPEND' },
  { v: p3 }, { v: p4 }, { v: p5 },
  { v: 'FINISHED', p: 'response/status', o: 'SET' },
]) + sse([{ updated_at: 1 }], { event: 'update_session' }) + sse(['{}'], { event: 'close' });
const CHATGPT = sse(['"v1"'], { event: 'delta_encoding' }) + sse([
  { type: 'resume_conversation_token', token: 'x' },
  { p: '', o: 'add', v: { message: { author: { role: 'assistant' }, content: { content_type: 'text', parts: [''] }, status: 'in_progress' } }, c: 0 },
  { p: '/message/content/parts/0', o: 'append', v: p0 },
  { v: p1 },
  { p: '', o: 'patch', v: [{ p: '/message/content/parts/0', o: 'append', v: p2 + p3 }, { p: '/message/metadata', o: 'append', v: { x: 1 } }] },
  { v: p4 },
  { p: '', o: 'patch', v: [{ p: '/message/content/parts/0', o: 'append', v: p5 }, { p: '/message/status', o: 'replace', v: 'finished_successfully' }] },
  { type: 'message_stream_complete' },
], { event: 'delta' }) + sse(['[DONE]']);
const textBlock = (text, type = 10000) => ({ block_type: type, block_id: 'b1', content: { text_block: { text } }, is_finish: false });
const DOUBAO = [
  sse([{}], { event: 'SSE_HEARTBEAT' }),
  sse([{ query_list: [] }], { event: 'SSE_ACK' }),
  sse([{ message: { content_block: [textBlock('NO: the user message')] } }], { event: 'FULL_MSG_NOTIFY' }),
  sse([{ content: { content_block: [textBlock(p0)], content_status: 100 }, meta: { message_id: '2' } }], { event: 'STREAM_MSG_NOTIFY' }),
  ...[p1, p2, p3, p4, p5].map((p) => sse([{ message_id: '2', patch_op: [
    { patch_object: 1, patch_type: 1, patch_value: { content_block: [textBlock(p)] } },
    { patch_object: 111, patch_type: 1, patch_value: { tts_content: 'NO' } },
  ] }], { event: 'STREAM_CHUNK' })),
  sse([{}], { event: 'SSE_REPLY_END' }),
].join('');
const QWEN = sse([
  { 'response.created': { chat_id: 'c', response_id: 'r' } },
  { choices: [{ delta: { role: 'assistant', content: 'NO thinking <tool_call>{"name": "x"}</tool_call>', phase: 'think', status: 'typing' } }] },
  { choices: [{ delta: { content: '', phase: 'think', status: 'finished' } }] },
  ...pieces.map((content) => ({ choices: [{ delta: { role: 'assistant', content, phase: 'answer', status: 'typing' } }] })),
  { choices: [{ delta: { content: '', phase: 'answer', status: 'finished' } }] },
]);
const KIMI = connectFrames([
  { heartbeat: {} },
  { op: 'set', mask: 'chat', chat: { id: 'c1', name: 'x'.repeat(300) } }, // a frame over 255 bytes: a length byte >= 0x80
  { op: 'set', mask: 'block.think', block: { id: '0', think: { content: 'NO <tool_call>{"name": "x"}</tool_call>' } } },
  { op: 'append', mask: 'block.think.content', block: { think: { content: ' NO' } } },
  { op: 'set', mask: 'block.text', block: { id: '1', text: { content: p0 } } },
  ...[p1, p2, p3, p4, p5].map((content) => ({ op: 'append', mask: 'block.text.content', block: { text: { content } } })),
  { heartbeat: {} },
  { op: 'set', mask: 'message.status', message: { status: 'MESSAGE_STATUS_COMPLETED' } },
  { eventOffset: 9, done: {} },
]);

/** Recorded answers: [name, response spec, body (text or bytes), expected text]. */
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
  ['deepseek op stream: first token in a BATCH list, THINK skipped', { kind: 'sse', patch: {}, text_paths: ['response.fragments[?type=RESPONSE].content'] },
    DEEPSEEK, WANT],
  ['chatgpt delta encoding: add, append, patch lists, bare v', { kind: 'sse', events: ['delta'], patch: {}, text_paths: ['message.content.parts[0]'],
    when: { 'message.author.role': 'assistant', 'message.content.content_type': 'text' } }, CHATGPT, WANT],
  ['doubao named events, content_block and patch_op lists', { kind: 'sse', events: ['STREAM_MSG_NOTIFY', 'STREAM_CHUNK'],
    text_paths: ['patch_op[?patch_object=1].patch_value.content_block[?block_type=10000].content.text_block.text', 'content.content_block[?block_type=10000].content.text_block.text'] },
  DOUBAO, WANT],
  ['qwen phase filter: thinking skipped', { kind: 'sse', text_paths: ['choices[0].delta.content'], when: { 'choices[0].delta.phase': 'answer' } }, QWEN, WANT],
  ['kimi Connect-RPC frames: set then append, think skipped', { kind: 'connect', text_paths: ['block.text.content'] }, KIMI, WANT],
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
    const bytes = typeof body === 'string' ? enc.encode(body) : body;
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

test('an op document keeps a page out of Object.prototype and caps what it takes', () => {
  const reader = streams.answerReader({ kind: 'ndjson', patch: {}, text_paths: ['a'] });
  reader.push(`${JSON.stringify({ p: '__proto__/polluted', o: 'set', v: 'yes' })}\n${JSON.stringify({ p: 'constructor/prototype/x', o: 'set', v: 1 })}\n`);
  reader.push(`${JSON.stringify({ p: 'a', o: 'set', v: 'fine' })}\n`);
  assert.equal(reader.end(), 'fine');
  assert.equal(/** @type {any} */ ({}).polluted, undefined);
  assert.equal(/** @type {any} */ ({}).x, undefined);
});

test('connect frames: compressed and oversized ones are skipped, the stream goes on', () => {
  const good = connectFrames([{ block: { text: { content: 'ok' } } }]);
  const big = new Uint8Array(5);
  new DataView(big.buffer).setUint32(1, 2_000_000); // a frame that says it is 2 MB: dropped as it comes
  const filler = new Uint8Array(2_000_000);
  const compressed = new Uint8Array([1, 0, 0, 0, 2, 0x7b, 0x7d]);
  const reader = streams.answerReader({ kind: 'connect', text_paths: ['block.text.content'] });
  for (const part of [big, filler.subarray(0, 1000), filler.subarray(1000), compressed, good]) reader.push(part);
  assert.equal(reader.end(), 'ok');
  assert.equal(reader.events, 1);
});

test('paths: [*] and [?key=value] read many, and are never written', () => {
  const doc = { a: [{ t: 'X', c: '1' }, { t: 'Y', c: '2' }, { t: 'X', c: '3' }, { t: 7, c: '4' }] };
  assert.deepEqual(path.getAll(doc, path.parsePath('a[*].c')), ['1', '2', '3', '4']);
  assert.deepEqual(path.getAll(doc, path.parsePath('a[?t=X].c')), ['1', '3']);
  assert.deepEqual(path.getAll(doc, path.parsePath('a[?t=7].c')), ['4']);
  assert.equal(path.getPath(doc, path.parsePath('a[?t=Y].c')), '2');
  assert.equal(path.updatePath(doc, path.parsePath('a[*].c'), () => 'w'), undefined);
});

test('a Connect request body gets its message rewritten and its length written anew', () => {
  const message = { chat_id: 'c', message: { role: 'user', blocks: [{ message_id: '', text: { content: 'What is 2 + 3?' } }] } };
  const [body] = [connectFrames([message], null).subarray(0, 5 + enc.encode(JSON.stringify(message)).length)];
  const block = 'B'.repeat(300); // the new length needs more than one byte
  const out = streams.rewriteConnect(body, (m) => path.updatePath(m, path.parsePath('message.blocks[0].text.content'), (old) => `${block}\n${old}`));
  const frames = streams.connectParser().push(out);
  assert.equal(frames.length, 1);
  assert.equal(JSON.parse(frames[0]).message.blocks[0].text.content, `${block}\nWhat is 2 + 3?`);
  assert.equal(new DataView(out.buffer).getUint32(1), out.length - 5);
  // Through the page's boundary as a binary string and back, byte for byte.
  assert.deepEqual(streams.bytesOf(streams.binaryOf(out)), out);
  // Not an envelope of JSON (or compressed): nothing is rewritten.
  assert.equal(streams.rewriteConnect(enc.encode('{"a":1}'), (m) => m), null);
  assert.equal(streams.rewriteConnect(new Uint8Array([1, 0, 0, 0, 2, 0x7b, 0x7d]), (m) => m), null);
});

test('each shipped adapter reads its site\'s recorded answer: the whole answer, thinking left out, the first token kept', async () => {
  const { readFileSync } = await import('node:fs');
  const shipped = (name) => JSON.parse(readFileSync(new URL(`../../host/webmcp_sidecar/chat_sites/builtin/${name}.chat.json`, import.meta.url), 'utf8'));
  for (const [name, body] of [['deepseek', DEEPSEEK], ['chatgpt', CHATGPT], ['doubao', DOUBAO], ['qwen', QWEN], ['kimi', KIMI]]) {
    const { response } = shipped(name);
    const bytes = typeof body === 'string' ? enc.encode(body) : body;
    const got = readAll(response, [bytes.subarray(0, 7), bytes.subarray(7)]);
    assert.equal(got.text, WANT, name);
    assert.deepEqual(got.found.map((c) => c.ok && c.name), ['add'], name);
  }
  // What the adapters before these read of the same streams (DeepSeek's first token lost and its
  // thinking read as answer; ChatGPT's text inside patch lists lost): why they were changed.
  const before = readAll({ kind: 'sse', text_paths: ['choices[0].delta.content', 'v'] }, [enc.encode(DEEPSEEK)]).text;
  assert.ok(!before.startsWith(p0) && before.includes('NO'));
  assert.notEqual(readAll({ kind: 'sse', text_paths: ['v'] }, [enc.encode(CHATGPT)]).text, WANT);
});

test('an op stream of many tiny ops on a long text stops being re-read past its budget', () => {
  const reader = streams.answerReader({ kind: 'ndjson', patch: {}, text_paths: ['t'] });
  reader.push(`${JSON.stringify({ p: 't', o: 'set', v: 'x'.repeat(900_000) })}\n`);
  const tiny = `${JSON.stringify({ p: 't', o: 'append', v: 'y' })}\n`.repeat(2_000);
  for (let i = 0; i < 2; i++) reader.push(tiny); // 4 000 ops of 1 char on 900 000: 3.6e9 to re-read
  const text = reader.end();
  assert.ok(text.length > 900_000 && text.length < 900_000 + 4_000, String(text.length)); // stopped part way
  assert.ok(text.length <= 900_000 + 1_112);
});
