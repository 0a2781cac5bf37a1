// "Save as skill", what a draft must not carry: a draft is meant to be shared, so what looks
// secret (lib/secret-text.js) in what it would copy literally - a later page's address
// (`/reset?key=…`), a waited-for text, an attribute value in a selector (`a[href="/reset?key=…"]`)
// - becomes a parameter, is cut back to its clear part, or is left out; each time the builder's
// `removed` says what (values masked). Pure; `b` is draft-steps.js's Builder.

import { masked, secretsInText, tokenLike, urlHasSecret, urlSecrets } from '../secret-text.js';

/** @typedef {import('./draft-steps.js').Builder} Builder */

/**
 * A selector whose quoted attribute values hold no secret: `a[href="/reset?key=…"]` matches by
 * the address's clear start instead (`a[href^="/reset?"]`); null (the call left out) when no
 * clear start is left.
 */
export function selectorWithoutSecrets(b, c, sel) {
  let lost = false;
  const out = sel.replace(/\[([A-Za-z_][\w-]*)="((?:[^"\\]|\\.)*)"\]/g, (whole, attr, quoted) => {
    const value = quoted.replace(/\\(.)/g, '$1');
    const cut = clearStart(value);
    if (cut === value) return whole;
    if (!cut) {
      lost = true;
      return whole;
    }
    b.removed.push(`the ${attr} of the element browser_${c.tool} acted on (${attr}="${maskedText(value)}"): the selector matches its clear start now`);
    return `[${attr}^="${cut.replace(/[\\"]/g, '\\$&')}"]`;
  });
  if (lost) {
    b.removed.push(`browser_${c.tool}'s element, named by a secret (${maskedText(sel)}): the call was left out`);
    return null;
  }
  return out;
}

/**
 * A same-site address with its secrets as parameters: query (and `#k=v`) values become
 * `{{name}}`, token-like path segments `{{token}}`; a fragment that is a token is dropped.
 * @param {string} path
 */
export function urlWithoutSecrets(b, path) {
  const found = urlSecrets(path);
  if (!urlHasSecret(path)) return path;
  const hashAt = path.indexOf('#');
  let main = hashAt < 0 ? path : path.slice(0, hashAt);
  let hash = hashAt < 0 ? '' : path.slice(hashAt);
  const shown = maskedText(path);
  const swap = (part, pairs, sep) => part.replace(new RegExp(`([${sep}&])([^&=#]*)=([^&#]*)`, 'g'), (whole, lead, name, value) => {
    if (!pairs.some((p) => p.name === name && p.value === value)) return whole;
    return `${lead}${name}={{${b.urlParam(`url:${name}:${value}`, safeDecode(name), shown)}}}`;
  });
  const q = main.indexOf('?');
  if (q >= 0) main = main.slice(0, q) + swap(main.slice(q), found.query, '?');
  if (found.segments.length) {
    const qs = main.indexOf('?');
    const [p, rest] = qs < 0 ? [main, ''] : [main.slice(0, qs), main.slice(qs)];
    main = p.split('/').map((seg) => (found.segments.includes(seg)
      ? `{{${b.urlParam(`url:/${seg}`, 'token', shown)}}}` : seg)).join('/') + rest;
  }
  if (found.hashToken) hash = '';
  else if (found.hash.length) hash = swap(hash, found.hash, '#');
  b.removed.push(`the address ${shown}: ${urlSecretsSaid(found)}`);
  return main + hash;
}

/**
 * A waited-for text without what looks secret in it: its longest clear piece (the page's text
 * must contain it, so a piece still waits for the same thing), or '' (left out) when none is
 * long enough to mean anything.
 */
export function textWithoutSecrets(b, text) {
  const found = secretsInText(text);
  if (!found.length) return text;
  let pieces = [text];
  for (const secret of found) pieces = pieces.flatMap((p) => p.split(secret));
  const best = pieces.map((p) => p.trim()).reduce((x, y) => (y.length > x.length ? y : x), '');
  const shown = maskedText(text);
  if (best.length < 4) {
    b.removed.push(`the text "${shown}" browser_wait_for waited for: left out (nothing clear was left to wait for)`);
    return '';
  }
  b.removed.push(`the text "${shown}" browser_wait_for waited for: the step waits for "${best.slice(0, 80)}" now`);
  return best;
}

/** A value's clear start: up to its first secret (a URL's query, a token); '' when none. */
function clearStart(value) {
  if (urlHasSecret(value)) {
    const f = urlSecrets(value);
    if (f.userinfo || f.segments.length) return '';
    return value.split(f.query.length ? '?' : '#')[0] + (f.query.length ? '?' : '#');
  }
  const found = secretsInText(value);
  if (!found.length) return value;
  return value.slice(0, Math.min(...found.map((x) => value.indexOf(x))));
}

/** What became of an address's secrets, in words. */
function urlSecretsSaid(found) {
  const said = [];
  if (found.query.length || found.hash.length || found.segments.length) said.push('its secret values are parameters now');
  if (found.hashToken) said.push('its fragment was dropped');
  return said.join(', ');
}

/** Text with each secret in it shown masked (`/reset?key=…`, `sk-…`). */
export function maskedText(text) {
  let out = String(text);
  for (const secret of secretsInText(out)) {
    let shown = masked(secret);
    if (!tokenLike(secret) && urlHasSecret(secret)) {
      const f = urlSecrets(secret);
      shown = secret.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1…@');
      shown = shown.split('/').map((seg) => (f.segments.includes(seg) ? '…' : seg)).join('/');
      for (const p of [...f.query, ...f.hash]) shown = shown.replace(`${p.name}=${p.value}`, `${p.name}=…`);
      if (f.hashToken) shown = `${shown.split('#')[0]}#…`;
    }
    out = out.split(secret).join(shown);
  }
  return out.slice(0, 200);
}

const safeDecode = (s) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
