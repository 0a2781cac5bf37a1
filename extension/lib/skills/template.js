// Skill templates (docs/SKILLS.md "Templates"): `{{name}}` in a step's strings, filled from the
// call's arguments and the values extracted so far. Pure. There is no expression language and
// nothing is ever evaluated: a name is looked up as an own property of `vars`, nothing more, so
// `{{__proto__}}` or `{{constructor}}` give "" like any unknown name.

/** The most characters one resolved string may have (a hostile page's extracted text is capped
 * at 16 KiB a value already; this bounds what interpolating many of them can build). */
export const MAX_TEMPLATE_OUTPUT = 1 << 20;
/** How deep a `return` value or a step's fields may nest. */
const MAX_DEPTH = 32;
/** Fields of a step that are names, never templates. */
const NOT_TEMPLATES = new Set(['action', 'as']);

const TEMPLATE = /\{\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}\}/g; // the host's rule (skills/templates.py)
const WHOLE = /^\{\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}\}$/;

export class TemplateError extends RangeError {}

/** @param {Record<string, unknown>} vars @param {string} name */
const lookup = (vars, name) => (vars && Object.hasOwn(vars, name) ? vars[name] : undefined);

/** A value written into a string: text as is, JSON for objects and lists, "" for nothing. */
function asText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return ''; // a cycle cannot come from JSON arguments or extracted values; refuse it quietly
  }
}

/**
 * Resolves one string template.
 * @param {string} s @param {Record<string, unknown>} vars
 * @param {boolean} encode percent-encode what is interpolated (a URL)
 * @returns {unknown} the value itself when `s` is exactly `{{name}}`, else a string
 */
function resolveString(s, vars, encode) {
  if (!s.includes('{{')) return s;
  const whole = WHOLE.exec(s);
  if (whole) {
    const v = lookup(vars, whole[1]);
    // In a URL the whole string is the URL (e.g. an extracted link): text, not encoded.
    return encode ? cap(asText(v)) : (v === undefined ? '' : v);
  }
  let out = '';
  let last = 0;
  for (const m of s.matchAll(TEMPLATE)) {
    const text = asText(lookup(vars, m[1]));
    out += s.slice(last, m.index) + (encode ? encodeURIComponent(text) : text);
    last = /** @type {number} */ (m.index) + m[0].length;
    if (out.length > MAX_TEMPLATE_OUTPUT) break;
  }
  return cap(out + s.slice(last));
}

function cap(/** @type {string} */ s) {
  if (s.length > MAX_TEMPLATE_OUTPUT) {
    throw new TemplateError(`a template gives ${s.length > 2 * MAX_TEMPLATE_OUTPUT ? 'over 2 MiB' : `${s.length} characters`}; at most ${MAX_TEMPLATE_OUTPUT} are allowed`);
  }
  return s;
}

/**
 * A deep copy of a JSON-like value whose strings are resolved as templates; object keys are
 * kept as they are. Throws a TemplateError when it nests too deep or a string gets too long.
 * @param {unknown} value @param {Record<string, unknown>} vars
 * @param {boolean} [encode] @param {number} [depth]
 * @returns {unknown}
 */
function resolveDeep(value, vars, encode = false, depth = 0) {
  if (typeof value === 'string') return resolveString(value, vars, encode);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) throw new TemplateError(`a value nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => resolveDeep(v, vars, encode, depth + 1));
  // Object.fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(v, vars, encode, depth + 1)]));
}

/**
 * `return`'s value with its strings resolved as templates (deep).
 * @param {unknown} value @param {Record<string, unknown>} vars
 * @returns {unknown}
 */
export function resolveValue(value, vars) {
  return resolveDeep(value, vars);
}

/**
 * A copy of `step` with `{{name}}` resolved in every string it holds (deep; `action` and `as`
 * are names and stay as they are). A string that is exactly `{{name}}` becomes the value itself
 * (a list stays a list); elsewhere the value is written in as text (JSON for objects and
 * lists); a name not in `vars` gives "".
 * @template {Record<string, any>} S
 * @param {S} step
 * @param {Record<string, unknown>} vars the arguments and the values extracted so far
 * @param {{urlEncodeIn?: string[]}} [options] fields whose interpolated values are
 *   percent-encoded (encodeURIComponent); default: `url` of a `navigate` step, none otherwise
 *   (`wait_for`'s `url` is a glob, matched against the URL as the tab shows it)
 * @returns {S}
 */
export function resolveStep(step, vars, options = {}) {
  const encodeIn = new Set(options.urlEncodeIn ?? (step?.action === 'navigate' ? ['url'] : []));
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(step ?? {})) {
    const resolved = NOT_TEMPLATES.has(k) ? v : resolveDeep(v, vars, encodeIn.has(k), 1);
    Object.defineProperty(out, k, { value: resolved, enumerable: true, writable: true, configurable: true });
  }
  return /** @type {S} */ (out);
}
