import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  sliceIntoChunks, splitIntoChunks, Reassembler, ChunkError, utf8Length, frameBytesBound,
} from '../../extension/lib/chunks.js';

const bytes = (s) => Buffer.byteLength(s, 'utf8');
/** Frame size as JSON.stringify writes it, and as Chrome's writer would ('<' -> \u003C, U+2028/9 escaped). */
const frameSizes = (msg) => {
  const js = JSON.stringify(msg);
  const chrome = js.replace(/</g, '\\u003C').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return [bytes(js), bytes(chrome)];
};

const SAMPLES = {
  ascii: 'The quick brown fox jumps over the lazy dog. '.repeat(400),
  cjk: '网易邮箱搜索邮件，查找收件箱中的内容。'.repeat(300),
  emoji: '😀🎉👩‍👩‍👧‍👦🇨🇳 ok '.repeat(300),
  escapes: '"\\\n\t\u0001\u001f<>&\u2028\u2029\u007f'.repeat(400),
  mixed: 'a"é网😀\\\n<'.repeat(500),
};

/** A realistic message: the text is JSON, so escapes appear in it already. */
function messageText(payload) {
  return JSON.stringify({ type: 'result', id: 'c1:42', ok: true, value: JSON.stringify({ text: payload }), tab_id: 7 });
}

for (const [name, payload] of Object.entries(SAMPLES)) {
  for (const limit of [300, 1000, 4096, 65536]) {
    test(`${name}: every frame fits in ${limit} bytes and the pieces join back`, () => {
      const text = messageText(payload);
      const chunks = splitIntoChunks(text, 'cid-1', limit);
      assert.ok(chunks.length >= 1);
      chunks.forEach((c, i) => {
        assert.equal(c.type, 'chunk');
        assert.equal(c.cid, 'cid-1');
        assert.equal(c.seq, i);
        assert.equal(c.last, i === chunks.length - 1);
        for (const size of frameSizes(c)) assert.ok(size <= limit, `chunk ${i}: ${size} > ${limit}`);
        // No piece starts with a low surrogate or ends with a high one.
        if (c.data.length) {
          const first = c.data.charCodeAt(0);
          const last = c.data.charCodeAt(c.data.length - 1);
          assert.ok(!(first >= 0xdc00 && first <= 0xdfff), `chunk ${i} starts inside a pair`);
          assert.ok(!(last >= 0xd800 && last <= 0xdbff), `chunk ${i} ends inside a pair`);
        }
        // Each piece survives a UTF-8 round trip on its own (no lone surrogate).
        assert.equal(Buffer.from(c.data, 'utf8').toString('utf8'), c.data);
      });
      assert.equal(chunks.map((c) => c.data).join(''), text);
      const r = new Reassembler();
      let out = null;
      for (const c of chunks) out = r.push(JSON.parse(JSON.stringify(c)));
      assert.equal(out, text);
      assert.deepEqual(JSON.parse(out), JSON.parse(text));
      assert.equal(r.pending, 0);
    });
  }
}

test('slices are not wastefully small for plain text', () => {
  const text = 'x'.repeat(100000);
  const chunks = splitIntoChunks(text, 'c', 10000);
  assert.ok(chunks.length <= 11, `${chunks.length} chunks`);
});

test('a surrogate pair is never split, even at an exact boundary', () => {
  for (let pad = 0; pad < 8; pad++) {
    const text = 'a'.repeat(pad) + '😀'.repeat(200);
    const chunks = splitIntoChunks(text, 'c', 200);
    for (const c of chunks) assert.equal(Buffer.from(c.data, 'utf8').toString('utf8'), c.data);
    assert.equal(chunks.map((c) => c.data).join(''), text);
  }
});

test('lone surrogates are sized as escapes and kept whole', () => {
  const text = '\ud800x\udc00'.repeat(300);
  const chunks = splitIntoChunks(text, 'c', 300);
  for (const c of chunks) assert.ok(bytes(JSON.stringify(c)) <= 300);
  assert.equal(chunks.map((c) => c.data).join(''), text);
});

test('empty text is one empty chunk', () => {
  assert.deepEqual(splitIntoChunks('', 'c', 1000), [{ type: 'chunk', cid: 'c', seq: 0, last: true, data: '' }]);
});

test('a limit too small for any data is refused', () => {
  assert.throws(() => splitIntoChunks('abc', 'c', 50), RangeError);
});

test('utf8Length and frameBytesBound', () => {
  for (const s of Object.values(SAMPLES)) assert.equal(utf8Length(s), bytes(s));
  assert.equal(utf8Length('\ud800'), 3);
  assert.equal(frameBytesBound('{"a":"<b>"}'), bytes('{"a":"<b>"}') + 5);
  for (const s of Object.values(SAMPLES)) {
    const text = JSON.stringify({ v: s });
    for (const size of frameSizes(JSON.parse(text))) assert.ok(frameBytesBound(text) >= size);
  }
});

test('a 10 MB message splits into frames of at most 4 MiB, quickly', () => {
  const text = messageText('<p>"x"</p>\n'.repeat(1_000_000));
  const start = performance.now();
  const chunks = splitIntoChunks(text, 'big', 4 * 1024 * 1024);
  const ms = performance.now() - start;
  assert.ok(chunks.length >= 2);
  for (const c of chunks) for (const size of frameSizes(c)) assert.ok(size <= 4 * 1024 * 1024);
  assert.equal(chunks.map((c) => c.data).join(''), text);
  assert.ok(ms < 5000, `${ms} ms`);
});

test('reassembler: a single-chunk message comes straight back', () => {
  const r = new Reassembler();
  assert.equal(r.push({ type: 'chunk', cid: 'a', seq: 0, last: true, data: '{"x":1}' }), '{"x":1}');
  assert.equal(r.pending, 0);
});

test('reassembler: interleaved messages are kept apart', () => {
  const r = new Reassembler();
  assert.equal(r.push({ cid: 'a', seq: 0, last: false, data: '{"a"' }), null);
  assert.equal(r.push({ cid: 'b', seq: 0, last: false, data: '{"b"' }), null);
  assert.equal(r.push({ cid: 'a', seq: 1, last: true, data: ':1}' }), '{"a":1}');
  assert.equal(r.push({ cid: 'b', seq: 1, last: true, data: ':2}' }), '{"b":2}');
});

test('reassembler: out of order drops the partial message', () => {
  const r = new Reassembler();
  r.push({ cid: 'a', seq: 0, last: false, data: 'x' });
  assert.throws(() => r.push({ cid: 'a', seq: 2, last: true, data: 'z' }), ChunkError);
  assert.equal(r.pending, 0);
  // The rest of the broken message cannot resurrect it.
  assert.throws(() => r.push({ cid: 'a', seq: 1, last: true, data: 'y' }), ChunkError);
  // A repeated seq is out of order too.
  r.push({ cid: 'b', seq: 0, last: false, data: 'x' });
  assert.throws(() => r.push({ cid: 'b', seq: 0, last: false, data: 'x' }), ChunkError);
  assert.equal(r.pending, 0);
  // The cid can start over afterwards.
  r.push({ cid: 'a', seq: 0, last: false, data: '[' });
  assert.equal(r.push({ cid: 'a', seq: 1, last: true, data: ']' }), '[]');
});

test('reassembler: a message not starting at 0 is refused', () => {
  const r = new Reassembler();
  assert.throws(() => r.push({ cid: 'a', seq: 1, last: false, data: 'x' }), ChunkError);
  assert.equal(r.pending, 0);
});

test('reassembler: malformed chunks are refused', () => {
  const r = new Reassembler();
  r.push({ cid: 'a', seq: 0, last: false, data: 'x' });
  for (const bad of [null, {}, { cid: '' }, { cid: 5, seq: 0, last: true, data: '' },
    { cid: 'a', seq: 1, last: 'yes', data: '' }, { cid: 'a', seq: 1.5, last: true, data: '' },
    { cid: 'a', seq: -1, last: true, data: '' }, { cid: 'a', seq: 1, last: true, data: 7 }]) {
    assert.throws(() => r.push(bad), ChunkError, JSON.stringify(bad));
  }
  assert.equal(r.pending, 0);
});

test('reassembler: the size cap drops the message', () => {
  const r = new Reassembler({ maxTotal: 10 });
  r.push({ cid: 'a', seq: 0, last: false, data: '123456' });
  assert.throws(() => r.push({ cid: 'a', seq: 1, last: true, data: '78901' }), /larger than 10/);
  assert.equal(r.pending, 0);
  // The cap also holds across messages, and is released when one is dropped or done.
  r.push({ cid: 'b', seq: 0, last: false, data: '123456' });
  assert.throws(() => r.push({ cid: 'c', seq: 0, last: false, data: '12345' }), ChunkError);
  assert.equal(r.push({ cid: 'b', seq: 1, last: true, data: '7' }), '1234567');
  r.push({ cid: 'd', seq: 0, last: false, data: '1234567890' });
});

test('reassembler: too many unfinished messages evict the oldest', () => {
  const r = new Reassembler({ maxMessages: 2 });
  r.push({ cid: 'a', seq: 0, last: false, data: 'a' });
  r.push({ cid: 'b', seq: 0, last: false, data: 'b' });
  r.push({ cid: 'c', seq: 0, last: false, data: 'c' });
  assert.equal(r.pending, 2);
  assert.throws(() => r.push({ cid: 'a', seq: 1, last: true, data: '' }), ChunkError);
  assert.equal(r.push({ cid: 'c', seq: 1, last: true, data: '!' }), 'c!');
});

test('reassembler: reset forgets partial messages', () => {
  const r = new Reassembler({ maxTotal: 10 });
  r.push({ cid: 'a', seq: 0, last: false, data: '1234567890' });
  r.reset();
  assert.equal(r.pending, 0);
  assert.equal(r.push({ cid: 'b', seq: 0, last: true, data: '1234567890' }), '1234567890');
});

test('sliceIntoChunks: pieces of at most n units, never a pair cut in two, joined back exactly', () => {
  const text = '😀ab'.repeat(1000); // 4 units each
  for (const n of [2, 3, 5, 64]) {
    const chunks = sliceIntoChunks(text, 'r1', n);
    assert.equal(chunks.map((c) => c.data).join(''), text);
    assert.ok(chunks.every((c, seq) => c.type === 'chunk' && c.cid === 'r1' && c.seq === seq && c.data.length <= n));
    assert.ok(chunks.every((c) => c.data.isWellFormed()), `n=${n}`);
    assert.deepEqual(chunks.map((c) => c.last), chunks.map((_, i) => i === chunks.length - 1));
  }
  assert.deepEqual(sliceIntoChunks('', 'e', 4), [{ type: 'chunk', cid: 'e', seq: 0, last: true, data: '' }]);
});
