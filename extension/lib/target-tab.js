// Which tab the side panel works on. Pure: the panel feeds it chrome.tabs.query() results.

/**
 * The tab the panel works on: the pinned one if it still exists, else the most recently used
 * tab showing a web page (not the panel's own page, when the panel runs in a tab).
 * @param {{id?: number, url?: string, lastAccessed?: number, active?: boolean}[]} tabs
 * @param {number|null} pinned
 */
export function pickTarget(tabs, pinned = null) {
  const web = tabs.filter((t) => typeof t.url === 'string' && /^(https?|file):/.test(t.url));
  if (pinned !== null) {
    const p = tabs.find((t) => t.id === pinned);
    if (p) return p;
  }
  /** @type {(typeof tabs)[number] | null} */
  let best = null;
  for (const t of web) if (!best || (t.lastAccessed ?? 0) > (best.lastAccessed ?? 0)) best = t;
  return best;
}
