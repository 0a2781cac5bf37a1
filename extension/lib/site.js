// The site a URL belongs to: tools are owned by sites, not tabs.

/**
 * Site key of a URL: its host plus a non-default port, lowercased, for http(s) URLs.
 * `new URL` already drops default ports and lowercases/punycodes the host.
 * @param {string} url
 * @returns {string|null} null for anything that is not an http(s) URL
 */
export function siteOf(url) {
  if (typeof url !== 'string') return null;
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return u.host.toLowerCase() || null;
}

/**
 * Whether a URL is https. Sites are keyed without the scheme, so the registry uses this to keep
 * plain-http pages (which anyone on the network can rewrite) away from a site's https tabs.
 * @param {string} url
 * @returns {boolean}
 */
export function isHttps(url) {
  if (typeof url !== 'string') return false;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}
