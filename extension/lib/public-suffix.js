// Public suffixes (`com`, `co.uk`, `github.io`): a skill's match pattern or a chat-site adapter's
// hostname naming one, or `*.` + one, would cover most of the web, so it matches nothing here.
// The host refuses such files when they are added (wire/public_suffix.py); this is the same
// list (generated from the same package, lib/generated/public-suffixes.js), for files that
// skipped that check. Names the list does not know (`localhost`, `test`, IPs) are not suffixes.
import { PUBLIC_SUFFIX_RULES } from './generated/public-suffixes.js';

/** @type {Set<string>|null} */
let rules = null;

/**
 * Whether `host` (no `*.`, no port; as `new URL` spells it) is a public suffix.
 * @param {string} host
 */
export function isPublicSuffix(host) {
  rules ??= new Set(PUBLIC_SUFFIX_RULES.split(' '));
  const name = String(host).toLowerCase().replace(/^\.+|\.+$/g, '');
  if (!name || name.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return false;
  if (rules.has(`!${name}`)) return false;
  if (rules.has(name) || rules.has(`*.${name}`)) return true; // `*.ck`: `ck` is one too
  const dot = name.indexOf('.');
  return dot > 0 && rules.has(`*.${name.slice(dot + 1)}`);
}
