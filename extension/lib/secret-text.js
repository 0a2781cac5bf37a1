// What looks secret in recorded text: a token, a URL's key. The same rules as the host's
// servers/redact.py, from the same patterns (wire/constants.py, generated into protocol.js).
// Pure. Used where recorded text is to be shared (a skill draft: lib/skills/draft*.js).

import { SECRET_NAME_RE, SECRET_QUERY_NAME_RE, TOKEN_MIN_ENTROPY, TOKEN_MIN_RUN, TOKEN_PREFIX_RE } from './generated/protocol.js';

const TOKEN_CHARS = /^[A-Za-z0-9_\-+/=.~]+$/;
const ALNUM_RUN = /[A-Za-z0-9]+/g;
/** Punctuation around a word in running text (`key: "sk-…".`). */
const EDGES = /^[\s"'`“”‘’«»()[\]{}<>,;:!?]+|[\s"'`“”‘’«»()[\]{}<>,;:!?.]+$/g;

/** A name whose value is secret: `api_key`, `token`, `sig`, `code`... (a query's, a field's). */
export const secretName = (name) => SECRET_NAME_RE.test(String(name)) || SECRET_QUERY_NAME_RE.test(String(name));

const entropy = (s) => {
  const counts = new Map();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let e = 0;
  for (const n of counts.values()) e -= (n / s.length) * Math.log2(n / s.length);
  return e;
};

/**
 * A known token prefix (`sk-`, `xoxb-`, `ghp_`...), or a long random-looking string: a run of
 * 20+ letters and digits, mixed, of high entropy (paths, words, versions and UUIDs are not).
 * @param {unknown} value
 */
export function tokenLike(value) {
  const v = String(value ?? '').trim();
  if (TOKEN_PREFIX_RE.test(v)) return true;
  if (v.length < TOKEN_MIN_RUN || !TOKEN_CHARS.test(v)) return false;
  if (v.split('/').length > 2 || v.split('.').length > 3) return false;
  const run = (v.match(ALNUM_RUN) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  if (run.length < TOKEN_MIN_RUN) return false;
  const digits = [...run].filter((c) => c >= '0' && c <= '9').length;
  const mixedCase = /[A-Z]/.test(run) && /[a-z]/.test(run);
  return /[A-Za-z]/.test(run) && digits >= 2 && (mixedCase || digits >= 4) && entropy(run) >= TOKEN_MIN_ENTROPY;
}

/**
 * A URL's parts that hold secrets: userinfo, query (or `#k=v` fragment) values under a secret
 * name or token-like, token-like path segments. Works on absolute URLs and on a page's path
 * (`/reset?key=…`); the parts are raw (still percent-encoded), so the rest can be kept as it was.
 * @param {string} url
 * @returns {{userinfo: boolean, query: {name: string, value: string}[], hash: {name: string, value: string}[],
 *   hashToken: boolean, segments: string[]}}
 */
export function urlSecrets(url) {
  const s = String(url ?? '');
  const m = /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(s);
  /** @type {{userinfo: boolean, query: {name: string, value: string}[], hash: {name: string, value: string}[], hashToken: boolean, segments: string[]}} */
  const out = { userinfo: false, query: [], hash: [], hashToken: false, segments: [] };
  if (!m) return out;
  const [, scheme, authority, path, query, hash] = m;
  out.userinfo = !!scheme && authority.includes('@');
  const pathPart = scheme ? path : `${authority}${path}`;
  out.segments = pathPart.split('/').filter((seg) => seg && tokenLike(decode(seg)));
  const pairs = (text) => text.split('&').filter(Boolean).map((kv) => {
    const i = kv.indexOf('=');
    return i < 0 ? { name: kv, value: '' } : { name: kv.slice(0, i), value: kv.slice(i + 1) };
  }).filter(({ name, value }) => value && (secretName(decode(name)) || tokenLike(decode(value))));
  if (query) out.query = pairs(query.slice(1));
  if (hash) {
    if (hash.includes('=')) out.hash = pairs(hash.slice(1));
    else out.hashToken = tokenLike(decode(hash.slice(1)));
  }
  return out;
}

/** Any secret in a URL (see urlSecrets). */
export function urlHasSecret(url) {
  const f = urlSecrets(url);
  return f.userinfo || f.query.length > 0 || f.hash.length > 0 || f.hashToken || f.segments.length > 0;
}

/**
 * The words of running text that look secret (tokens, URLs with secrets), as they appear in it.
 * @param {string} text
 * @returns {string[]}
 */
export function secretsInText(text) {
  const out = [];
  for (const raw of String(text ?? '').split(/\s+/)) {
    const word = raw.replace(EDGES, '');
    if (!word) continue;
    if (tokenLike(word) || (/^[a-z][a-z0-9+.-]*:\/\/|^[/.]|[?#]/i.test(word) && urlHasSecret(word))) out.push(word);
  }
  return out;
}

/** A secret shown without its value: a known token's first 3 characters (`sk-…`, `ghp…`; every
 * known prefix is 3 or longer, so nothing random shows), else `…`. */
export const masked = (secret) => {
  const s = String(secret);
  return TOKEN_PREFIX_RE.test(s) ? `${s.slice(0, 3)}…` : '…';
};

function decode(s) {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
