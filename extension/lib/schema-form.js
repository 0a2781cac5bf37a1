// A form model built from a tool's JSON Schema (Inspector), and the arguments it yields.
// Pure: the panel renders the model and keeps the raw inputs; toArgs() turns them into the
// call's arguments, or says which field is wrong. Anything the form cannot express falls back
// to a raw JSON field.

import { patternTester } from './safe-pattern.js';

/**
 * @typedef {{kind: 'object', fields: {name: string, required: boolean, field: Field}[],
 *     extra: boolean} & Common} ObjectField
 * @typedef {{kind: 'string', format?: string, pattern?: string, multiline: boolean} & Common} StringField
 * @typedef {{kind: 'number'|'integer', min?: number, max?: number} & Common} NumberField
 * @typedef {{kind: 'boolean'} & Common} BooleanField
 * @typedef {{kind: 'enum', options: any[]} & Common} EnumField
 * @typedef {{kind: 'array', items: Field} & Common} ArrayField
 * @typedef {{kind: 'json'} & Common} JsonField
 * @typedef {{title?: string, description?: string, nullable: boolean, default?: any}} Common
 * @typedef {ObjectField|StringField|NumberField|BooleanField|EnumField|ArrayField|JsonField} Field
 */

const MAX_DEPTH = 6;

/**
 * @param {any} schema a JSON Schema (a page's: anything may be in it)
 * @param {number} [depth]
 * @returns {Field}
 */
export function formModel(schema, depth = 0) {
  const s = schema && typeof schema === 'object' && !Array.isArray(schema) ? schema : {};
  const common = {
    title: typeof s.title === 'string' ? s.title : undefined,
    description: typeof s.description === 'string' ? s.description : undefined,
    nullable: false,
    default: s.default,
  };
  if (depth > MAX_DEPTH) return { kind: 'json', ...common };
  if (Array.isArray(s.enum) && s.enum.length) return { kind: 'enum', options: s.enum, ...common };
  if ('const' in s) return { kind: 'enum', options: [s.const], ...common };
  let types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  // ["number", "null"] is a nullable number; anything else with several types is raw JSON.
  if (types.includes('null') && types.length === 2) {
    common.nullable = true;
    types = types.filter((t) => t !== 'null');
  }
  let type = types.length === 1 ? types[0] : undefined;
  if (!type && s.properties && typeof s.properties === 'object') type = 'object';
  // anyOf/oneOf of [X, {type: null}] (how many generators write nullable): unwrap it.
  const alts = s.anyOf ?? s.oneOf;
  if (!type && Array.isArray(alts)) {
    const nonNull = alts.filter((a) => !(a && a.type === 'null'));
    if (nonNull.length === 1) {
      const inner = formModel({ ...nonNull[0], description: common.description ?? nonNull[0]?.description }, depth);
      return { ...inner, nullable: nonNull.length < alts.length || inner.nullable };
    }
  }
  switch (type) {
    case 'object': {
      const props = s.properties && typeof s.properties === 'object' ? s.properties : {};
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      const fields = Object.entries(props).map(([name, sub]) => ({
        name, required: required.has(name), field: formModel(sub, depth + 1),
      }));
      if (!fields.length && s.additionalProperties !== false && depth > 0) return { kind: 'json', ...common };
      return { kind: 'object', fields, extra: false, ...common };
    }
    case 'string':
      return {
        kind: 'string', format: s.format, pattern: s.pattern,
        multiline: (s.maxLength ?? 0) > 200 || s.format === 'textarea', ...common,
      };
    case 'number':
    case 'integer':
      return { kind: type, min: s.minimum, max: s.maximum, ...common };
    case 'boolean':
      return { kind: 'boolean', ...common };
    case 'array':
      if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
        return { kind: 'array', items: formModel(s.items, depth + 1), ...common };
      }
      return { kind: 'json', ...common };
    default:
      return { kind: 'json', ...common };
  }
}

/**
 * The raw (as typed) starting value of a field: strings for text and number inputs, booleans
 * for checkboxes ('' = unset for optional ones), arrays of raws, objects of raws.
 * @param {Field} f
 * @returns {any}
 */
export function initialRaw(f) {
  const d = f.default;
  switch (f.kind) {
    case 'object': return Object.fromEntries(f.fields.map(({ name, field }) => [name, initialRaw(field)]));
    case 'array': return Array.isArray(d) ? d.map((v) => rawOf(f.items, v)) : [];
    case 'boolean': return typeof d === 'boolean' ? d : '';
    case 'enum': return d === undefined ? '' : JSON.stringify(d);
    case 'json': return d === undefined ? '' : JSON.stringify(d, null, 2);
    default: return d === undefined || d === null ? '' : String(d);
  }
}

function rawOf(f, v) {
  return initialRaw({ ...f, default: v });
}

/**
 * Turns raw inputs into the call's arguments.
 * Empty optional fields are left out; empty required ones are errors.
 * @param {Field} model the tool's input form (an object field)
 * @param {any} raw
 * @returns {{ok: true, value: any} | {ok: false, errors: {path: string, message: string}[]}}
 */
export function toArgs(model, raw) {
  // A schema the form could not read is typed as raw JSON: empty means no arguments.
  if (model.kind === 'json' && String(raw ?? '').trim() === '') return { ok: true, value: {} };
  const errors = [];
  const value = convert(model, raw, '', errors, true);
  if (errors.length) return { ok: false, errors };
  if (value !== EMPTY && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    return { ok: false, errors: [{ path: '(arguments)', message: 'must be a JSON object' }] };
  }
  return { ok: true, value: value === EMPTY ? {} : value };
}

const EMPTY = Symbol('empty');

function convert(f, raw, path, errors, required) {
  const where = path || '(arguments)';
  const missing = () => {
    if (required) errors.push({ path: where, message: 'is required' });
    return EMPTY;
  };
  switch (f.kind) {
    case 'object': {
      const out = {};
      const r = raw && typeof raw === 'object' ? raw : {};
      for (const { name, required: req, field } of f.fields) {
        const v = convert(field, r[name], path ? `${path}.${name}` : name, errors, req);
        if (v !== EMPTY) out[name] = v;
      }
      return out;
    }
    case 'string':
      if (raw === undefined || raw === '') return missing();
      if (f.pattern) {
        // Never the built-in RegExp: a page's pattern could backtrack for minutes on this
        // thread. A pattern (or input) the linear matcher does not take is left to the page.
        const test = patternTester(f.pattern);
        if (test && test(String(raw)) === false) errors.push({ path: where, message: `must match ${f.pattern}` });
      }
      return String(raw);
    case 'number':
    case 'integer': {
      if (raw === undefined || String(raw).trim() === '') return missing();
      if (f.nullable && String(raw).trim() === 'null') return null;
      const n = Number(raw);
      if (!Number.isFinite(n)) {
        errors.push({ path: where, message: 'must be a number' });
        return EMPTY;
      }
      if (f.kind === 'integer' && !Number.isInteger(n)) errors.push({ path: where, message: 'must be a whole number' });
      if (f.min !== undefined && n < f.min) errors.push({ path: where, message: `must be at least ${f.min}` });
      if (f.max !== undefined && n > f.max) errors.push({ path: where, message: `must be at most ${f.max}` });
      return n;
    }
    case 'boolean':
      if (raw === '' || raw === undefined) return required ? false : EMPTY;
      return raw === true || raw === 'true';
    case 'enum': {
      if (raw === '' || raw === undefined) return missing();
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    }
    case 'array': {
      const list = Array.isArray(raw) ? raw : [];
      if (!list.length) return required ? [] : EMPTY;
      const out = [];
      list.forEach((item, i) => {
        const v = convert(f.items, item, `${where}[${i}]`, errors, true);
        if (v !== EMPTY) out.push(v);
      });
      return out;
    }
    default: {
      if (raw === undefined || String(raw).trim() === '') return missing();
      try {
        return JSON.parse(raw);
      } catch (e) {
        errors.push({ path: where, message: `is not valid JSON (${e.message})` });
        return EMPTY;
      }
    }
  }
}
