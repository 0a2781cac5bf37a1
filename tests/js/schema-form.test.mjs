// The Inspector's form model: JSON Schema -> fields -> arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formModel, initialRaw, toArgs } from '../../extension/lib/schema-form.js';

const demoSearch = {
  type: 'object',
  properties: {
    from: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'IATA code' },
    to: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    passengers: { type: 'integer', minimum: 1, maximum: 9 },
  },
  required: ['from', 'to', 'date'],
};

test('strings, integers, required flags and descriptions', () => {
  const m = formModel(demoSearch);
  assert.equal(m.kind, 'object');
  assert.deepEqual(m.fields.map((f) => [f.name, f.field.kind, f.required]),
    [['from', 'string', true], ['to', 'string', true], ['date', 'string', true], ['passengers', 'integer', false]]);
  assert.equal(m.fields[0].field.description, 'IATA code');
  const raw = initialRaw(m);
  assert.deepEqual(raw, { from: '', to: '', date: '', passengers: '' });
  Object.assign(raw, { from: 'PEK', to: 'SHA', date: '2026-12-01' });
  assert.deepEqual(toArgs(m, raw), { ok: true, value: { from: 'PEK', to: 'SHA', date: '2026-12-01' } });
  raw.passengers = '2';
  assert.deepEqual(toArgs(m, raw).value.passengers, 2);
});

test('errors name the field: required, pattern, number range, whole numbers', () => {
  const m = formModel(demoSearch);
  const r = toArgs(m, { from: 'PEK', to: 'SH', date: '', passengers: '12.5' });
  assert.equal(r.ok, false);
  assert.deepEqual(r.errors.map((e) => `${e.path} ${e.message}`), [
    'to must match ^[A-Za-z]{3}$', 'date is required', 'passengers must be a whole number', 'passengers must be at most 9',
  ]);
  assert.deepEqual(toArgs(m, { from: 'PEK', to: 'SHA', date: '2026-01-01', passengers: 'two' }).errors,
    [{ path: 'passengers', message: 'must be a number' }]);
});

test('enums keep their JSON types; nullable numbers accept null', () => {
  const m = formModel({
    type: 'object',
    properties: {
      sortBy: { type: 'string', enum: ['price', 'departure'] },
      level: { enum: [1, 2, 3] },
      maxPrice: { type: ['number', 'null'], minimum: 0 },
      maxStops: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    },
  });
  assert.deepEqual(m.fields.map((f) => [f.field.kind, f.field.nullable]),
    [['enum', false], ['enum', false], ['number', true], ['integer', true]]);
  const r = toArgs(m, { sortBy: '"departure"', level: '2', maxPrice: 'null', maxStops: '1' });
  assert.deepEqual(r, { ok: true, value: { sortBy: 'departure', level: 2, maxPrice: null, maxStops: 1 } });
  assert.deepEqual(toArgs(m, initialRaw(m)), { ok: true, value: {} }); // optional and empty: left out
});

test('booleans, nested objects and arrays', () => {
  const m = formModel({
    type: 'object',
    properties: {
      urgent: { type: 'boolean', default: true },
      address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city'] },
      tags: { type: 'array', items: { type: 'string' } },
      stops: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' } } } },
    },
    required: ['address'],
  });
  assert.deepEqual(m.fields.map((f) => f.field.kind), ['boolean', 'object', 'array', 'array']);
  const raw = initialRaw(m);
  assert.equal(raw.urgent, true);
  raw.address.city = 'Hangzhou';
  raw.tags.push('a', 'b');
  raw.stops.push({ code: 'PVG' });
  assert.deepEqual(toArgs(m, raw).value, { urgent: true, address: { city: 'Hangzhou' }, tags: ['a', 'b'], stops: [{ code: 'PVG' }] });
  raw.address.city = '';
  assert.deepEqual(toArgs(m, raw).errors, [{ path: 'address.city', message: 'is required' }]);
});

test('what the form cannot express falls back to raw JSON', () => {
  const m = formModel({
    type: 'object',
    properties: {
      either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      free: { type: 'object' },
      tuple: { type: 'array', items: [{ type: 'string' }] },
      multi: { type: ['string', 'number', 'null'] },
    },
  });
  assert.deepEqual(m.fields.map((f) => f.field.kind), ['json', 'json', 'json', 'json']);
  assert.deepEqual(toArgs(m, { either: '5', free: '{"a": [1]}', tuple: '', multi: '"x"' }).value,
    { either: 5, free: { a: [1] }, multi: 'x' });
  const bad = toArgs(m, { free: '{oops' });
  assert.equal(bad.ok, false);
  assert.match(bad.errors[0].message, /^is not valid JSON/);
});

test('no schema, a broken schema, and deep nesting do not throw', () => {
  for (const schema of [undefined, null, 'nope', [], { type: 'object' }, { properties: 5 }]) {
    const m = formModel(schema);
    assert.ok(['object', 'json'].includes(m.kind));
    assert.equal(toArgs(m, initialRaw(m)).ok, true);
  }
  assert.deepEqual(toArgs(formModel('nope'), '[1]').errors, [{ path: '(arguments)', message: 'must be a JSON object' }]);
  let deep = { type: 'string' };
  for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { x: deep } };
  let f = formModel(deep);
  let depth = 0;
  while (f.kind === 'object') {
    f = f.fields[0].field;
    depth++;
  }
  assert.equal(f.kind, 'json');
  assert.ok(depth <= 8);
});

test("a page's pattern never runs in the built-in RegExp engine, and a backtracking one answers", () => {
  const hostile = '^(a+)+$';
  const m = formModel({ type: 'object', properties: { s: { type: 'string', pattern: hostile } }, required: ['s'] });
  const Real = globalThis.RegExp;
  const seen = [];
  // A RegExp built from the page's pattern is the one that would hang the panel: refuse to
  // build it (so this test fails rather than hangs) and remember that it was asked for.
  const guard = (args) => {
    seen.push(String(args[0]));
    if (String(args[0]).includes('(a+)+')) throw new Error('a page pattern reached RegExp');
  };
  globalThis.RegExp = new Proxy(Real, {
    construct(target, args) {
      guard(args);
      return Reflect.construct(target, args);
    },
    apply(target, self, args) {
      guard(args);
      return Reflect.apply(target, self, args);
    },
  });
  let bad;
  let good;
  try {
    bad = toArgs(m, { s: `${'a'.repeat(40)}!` });
    good = toArgs(m, { s: 'a'.repeat(40) });
  } finally {
    globalThis.RegExp = Real;
  }
  assert.deepEqual(bad.errors, [{ path: 's', message: `must match ${hostile}` }]);
  assert.deepEqual(good, { ok: true, value: { s: 'a'.repeat(40) } });
  assert.ok(!seen.some((p) => p.includes('(a+)+')), seen.join(', '));
});

test('patterns the safe matcher does not read are left to the page', () => {
  const m = formModel({ type: 'object', properties: {
    pw: { type: 'string', pattern: '^(?=.*\\d).{8,}$' }, // lookahead
    twice: { type: 'string', pattern: '^(a)\\1$' }, // backreference
  } });
  assert.deepEqual(toArgs(m, { pw: 'short', twice: 'ab' }), { ok: true, value: { pw: 'short', twice: 'ab' } });
});
