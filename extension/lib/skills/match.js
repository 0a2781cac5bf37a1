// Which skills apply to a URL: Chrome match patterns as docs/SKILLS.md defines them. Pure (no
// chrome.*). Runs on every page load for every installed skill, so each skill's patterns are
// compiled once into one RegExp per list (match, exclude) and kept by the skill object's identity:
// skills are treated as immutable once loaded (a changed skill is a new object).

/**
 * @typedef {{scheme: '*'|'http'|'https', host: string, subdomains: boolean, port: string|null,
 *   path: string, source: string}} MatchPattern
 *   `host` is canonical (lowercase, punycode, IPv6 in brackets); `subdomains`: the pattern was
 *   `*.host`; `port` null = any port (absent or `*`), else the digits.
 * @typedef {{name: string, match: string[], exclude?: string[], priority?: number}} SkillLike
 */

import { isPublicSuffix } from '../public-suffix.js';

const PATTERN = /^(\*|https?):\/\/(\[[^\]\/]*\]|[^\/:]*)(?::(\*|\d{1,5}))?(\/.*)$/;
const MAX_PATTERN = 2048;

/**
 * Parses one match pattern. Throws a TypeError naming what is wrong; the host refuses such a
 * skill already, so here a bad pattern only ever means "matches nothing".
 * @param {string} p
 * @returns {MatchPattern}
 */
export function parseMatchPattern(p) {
  if (typeof p !== 'string' || !p || p.length > MAX_PATTERN) throw new TypeError('a match pattern is a string of 1-2048 characters');
  if (p === '<all_urls>') throw new TypeError('<all_urls> is refused: a skill names its site');
  const m = PATTERN.exec(p);
  if (!m) throw new TypeError(`"${p.slice(0, 100)}" is not <scheme>://<host>[:<port>]/<path> with scheme http, https or *`);
  const [, scheme, rawHost, rawPort, path] = m;
  let host = rawHost.toLowerCase();
  let subdomains = false;
  if (host.startsWith('*.')) {
    subdomains = true;
    host = host.slice(2);
  }
  if (!host || host === '*') throw new TypeError(`"${p.slice(0, 100)}": the host cannot be * (a skill names its site)`);
  if (host.includes('*')) throw new TypeError(`"${p.slice(0, 100)}": * may only start the host, as *.name`);
  if (/[?#@\s\\%]/.test(host)) throw new TypeError(`"${p.slice(0, 100)}": the host has a character no host name has`);
  if (subdomains && host.startsWith('[')) throw new TypeError(`"${p.slice(0, 100)}": *. cannot precede an IPv6 address`);
  // The URL parser gives the form a page URL's hostname has (punycode, canonical IPv6/IPv4).
  let canonical;
  try {
    canonical = new URL(`http://${host}/`).hostname;
  } catch {
    throw new TypeError(`"${p.slice(0, 100)}": "${host.slice(0, 100)}" is not a host name or IP address`);
  }
  // A public suffix (`*.com`, `co.uk`, `*.github.io`) would name most of the web (lib/public-suffix.js).
  if (isPublicSuffix(canonical)) throw new TypeError(`"${p.slice(0, 100)}": ${canonical} is a public suffix (anyone can have a site under it); name the site itself`);
  const port = rawPort === undefined || rawPort === '*' ? null : String(Number(rawPort));
  if (port !== null && Number(port) > 65535) throw new TypeError(`"${p.slice(0, 100)}": the port is over 65535`);
  return { scheme: /** @type {any} */ (scheme), host: canonical, subdomains, port, path, source: p };
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');

/** The regex source of one pattern, matched against `${scheme}://${hostname}:${port}${path+query}`. */
function patternSource(/** @type {MatchPattern} */ mp) {
  const scheme = mp.scheme === '*' ? 'https?' : mp.scheme;
  // A subdomain is any run of labels ending in a dot: no slash, colon or bracket in it.
  const host = `${mp.subdomains ? '(?:[^/:\\[\\]]+\\.)?' : ''}${escapeRe(mp.host)}`;
  const port = mp.port === null ? '\\d+' : mp.port;
  const path = mp.path.split('*').map(escapeRe).join('.*');
  return `${scheme}://${host}:${port}${path}`;
}

/** @type {WeakMap<object, RegExp|null>} */
const compiledArrays = new WeakMap();

/**
 * One RegExp for a list of patterns (null when none is valid: matches nothing), kept by the
 * list's identity.
 * @param {unknown} patterns
 */
function compileList(patterns) {
  if (!Array.isArray(patterns)) return null;
  if (compiledArrays.has(patterns)) return /** @type {RegExp|null} */ (compiledArrays.get(patterns));
  const re = compileFresh(patterns);
  compiledArrays.set(patterns, re);
  return re;
}

function compileFresh(/** @type {unknown[]} */ patterns) {
  const parts = [];
  for (const p of patterns.slice(0, 64)) {
    try {
      parts.push(patternSource(parseMatchPattern(/** @type {string} */ (p))));
    } catch {
      // refused by the host's validation already; here it simply matches nothing
    }
  }
  return parts.length ? new RegExp(`^(?:${parts.join('|')})$`, 's') : null;
}

/** The form every pattern's RegExp is tested on, or null for a URL no skill can match. */
function urlKey(url) {
  let u;
  try {
    u = url instanceof URL ? url : new URL(String(url));
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const port = u.port || (u.protocol === 'http:' ? '80' : '443');
  // Path and query, never the fragment (as Chrome matches).
  return `${u.protocol.slice(0, -1)}://${u.hostname}:${port}${u.pathname}${u.search}`;
}

/**
 * Whether a URL is matched by any of `patterns` and by none of `excludes`.
 * @param {string[]} patterns @param {string[]|undefined|null} excludes @param {string|URL} url
 */
export function matchesUrl(patterns, excludes, url) {
  const key = urlKey(url);
  if (key === null) return false;
  const inc = compileList(patterns);
  if (!inc?.test(key)) return false;
  const exc = compileList(excludes ?? []);
  return !exc?.test(key);
}

/** @type {WeakMap<object, {inc: RegExp|null, exc: RegExp|null}>} */
const compiledSkills = new WeakMap();
/** @type {WeakMap<object, {skill: SkillLike, inc: RegExp|null, exc: RegExp|null}[]>} */
const compiledLists = new WeakMap();

function compiledSkill(/** @type {SkillLike} */ skill) {
  let c = compiledSkills.get(skill);
  if (!c) {
    c = { inc: compileList(skill.match), exc: compileList(skill.exclude ?? []) };
    compiledSkills.set(skill, c);
  }
  return c;
}

const priorityOf = (s) => (Number.isFinite(s?.priority) ? Number(s.priority) : 0);
/** Code-point order (not locale): the order docs/SKILLS.md names for ties. */
const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The skills whose `match` and `exclude` fit the URL, highest `priority` first, then by name in
 * code-point order. The compiled and sorted form of a list is kept by the list's identity.
 * @template {SkillLike} S
 * @param {S[]} skills @param {string|URL} url
 * @returns {S[]}
 */
export function skillsForUrl(skills, url) {
  if (!Array.isArray(skills)) return [];
  const key = urlKey(url);
  if (key === null) return [];
  let list = compiledLists.get(skills);
  if (!list) {
    list = skills.filter((s) => s && typeof s === 'object')
      .map((skill) => ({ skill, ...compiledSkill(skill) }))
      .sort((a, b) => priorityOf(b.skill) - priorityOf(a.skill) || byCodePoint(String(a.skill.name), String(b.skill.name)));
    compiledLists.set(skills, list);
  }
  const out = [];
  for (const { skill, inc, exc } of list) {
    if (inc?.test(key) && !exc?.test(key)) out.push(/** @type {S} */ (skill));
  }
  return out;
}
