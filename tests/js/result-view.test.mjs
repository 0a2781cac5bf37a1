// A tool's result as a person reads it in the Inspector (lib/result-view.js, and its drawing in
// sidepanel/result-render.js, in jsdom): text keeps its lines, JSON (alone or in a text) is
// pretty-printed, an MCP result's images are images and resources links, the raw JSON a click away.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { resultView } from '../../extension/lib/result-view.js';

const GIT_LOG = 'commit 1a2b3c\nAuthor: Ada <ada@example.com>\n\n    First commit\n';
/** A local MCP server's answer, as the host hands it to the panel: the CallToolResult's JSON. */
const mcp = (content, extra = {}) => JSON.stringify({ content, isError: false, ...extra });
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('a server\'s text content is text, its line breaks kept', () => {
  const v = resultView(mcp([{ type: 'text', text: GIT_LOG }]));
  assert.deepEqual(v.parts, [{ kind: 'text', text: GIT_LOG }]);
  assert.equal(v.isError, false);
  assert.match(v.raw, /"text": "commit 1a2b3c\\nAuthor/, 'the raw JSON is the call result, pretty-printed');
});

test('JSON in a text is pretty-printed; a page\'s JSON string answer too', () => {
  const answer = { entities: [{ name: 'Ada', observations: ['likes "quotes"'] }] };
  const v = resultView(mcp([{ type: 'text', text: JSON.stringify(answer) }]));
  assert.deepEqual(v.parts, [{ kind: 'json', text: JSON.stringify(answer, null, 2) }]);
  // A page tool that answered with JSON text as a string (the value is then a JSON string).
  const page = resultView(JSON.stringify(JSON.stringify(answer)));
  assert.deepEqual(page.parts, [{ kind: 'json', text: JSON.stringify(answer, null, 2) }]);
  // A page's object answer, and its plain string answer.
  assert.deepEqual(resultView('{"sum":3}').parts, [{ kind: 'json', text: '{\n  "sum": 3\n}' }]);
  assert.deepEqual(resultView('"two\\nlines"').parts, [{ kind: 'text', text: 'two\nlines' }]);
  assert.deepEqual(resultView('42').parts, [{ kind: 'text', text: '42' }]);
  // Text that only looks like JSON stays text; so does a value that is not JSON at all.
  assert.deepEqual(resultView(mcp([{ type: 'text', text: '{not json}' }])).parts, [{ kind: 'text', text: '{not json}' }]);
  assert.deepEqual(resultView('plain words').parts, [{ kind: 'text', text: 'plain words' }]);
  assert.deepEqual(resultView('undefined').parts, [{ kind: 'note', text: '(nothing)' }]);
});

test('images are images (only types an <img> shows safely); resources are links (only http and https)', () => {
  const v = resultView(mcp([
    { type: 'text', text: 'Here:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'image', data: '<svg onload=alert(1)>', mimeType: 'image/svg+xml' },
    { type: 'resource_link', uri: 'https://example.com/doc.md', name: 'doc.md' },
    { type: 'resource_link', uri: 'javascript:alert(1)', name: 'evil' },
    { type: 'resource', resource: { uri: 'file:///tmp/notes.txt', text: 'line 1\nline 2', mimeType: 'text/plain' } },
    { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
  ]));
  assert.deepEqual(v.parts, [
    { kind: 'text', text: 'Here:' },
    { kind: 'image', mime: 'image/png', data: PNG },
    { kind: 'note', text: '(an image of type image/svg+xml, 21 base64 characters: see the raw JSON)' },
    { kind: 'link', href: 'https://example.com/doc.md', label: 'doc.md', text: 'https://example.com/doc.md' },
    { kind: 'link', href: '', label: 'evil', text: 'javascript:alert(1)' },
    { kind: 'link', href: '', label: 'file:///tmp/notes.txt', text: 'file:///tmp/notes.txt' },
    { kind: 'text', text: 'line 1\nline 2' },
    { kind: 'note', text: '(an audio clip of type audio/wav: see the raw JSON)' },
  ]);
});

test('structured content only when there is no text; isError is told', () => {
  assert.deepEqual(resultView(mcp([], { structuredContent: { n: 1 } })).parts, [{ kind: 'json', text: '{\n  "n": 1\n}' }]);
  assert.deepEqual(resultView(mcp([{ type: 'text', text: 'one' }], { structuredContent: { n: 1 } })).parts, [{ kind: 'text', text: 'one' }]);
  assert.equal(resultView(mcp([{ type: 'text', text: 'bad' }], { isError: true })).isError, true);
  // An object that only looks a little like a call result is a page's JSON.
  assert.equal(resultView('{"content":"x"}').parts[0].kind, 'json');
});

test('drawn in the panel: text in a pre with its newlines, pretty JSON, an image, a link, raw JSON behind a click', async () => {
  const dom = new JSDOM('<!doctype html><body></body>');
  globalThis.document = dom.window.document;
  globalThis.Node = dom.window.Node;
  try {
    const { renderResult } = await import('../../extension/sidepanel/result-render.js');
    const el = renderResult(mcp([
      { type: 'text', text: GIT_LOG },
      { type: 'text', text: '{"a":[1,2]}' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource_link', uri: 'https://example.com/doc.md', name: 'doc.md' },
    ]));
    const text = el.querySelector('pre.result-text');
    assert.equal(text.textContent, GIT_LOG, 'real line breaks, not \\n');
    assert.equal(el.querySelector('pre.result-json').textContent, '{\n  "a": [\n    1,\n    2\n  ]\n}');
    assert.equal(el.querySelector('img.result-image').getAttribute('src'), `data:image/png;base64,${PNG}`);
    const a = el.querySelector('.result-link a');
    assert.equal(a.getAttribute('href'), 'https://example.com/doc.md');
    assert.equal(a.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(a.textContent, 'doc.md');
    const raw = el.querySelector('details.raw-result');
    assert.equal(raw.open, false, 'the raw JSON is one click away, closed');
    assert.equal(raw.querySelector('summary').textContent, 'Raw JSON');
    assert.equal(JSON.parse(raw.querySelector('pre').textContent).content.length, 4);
    // Page data never becomes markup.
    const hostile = renderResult(JSON.stringify('<img src=x onerror=alert(1)>'));
    assert.equal(hostile.querySelector('img'), null);
    assert.equal(hostile.querySelector('pre.result-text').textContent, '<img src=x onerror=alert(1)>');
  } finally {
    delete globalThis.document;
    delete globalThis.Node;
  }
});
