// The host's `open_url` (the MCP `open_browser` tool): a new focused tab, for web and file
// URLs only.

import { errorResult } from '../lib/messages.js';

const OPENABLE_PROTOCOLS = ['http:', 'https:', 'file:'];
const noop = () => {};

/**
 * Opens the URL and answers the request with the tab.
 * @param {typeof globalThis.chrome} chrome
 * @param {(msg: any) => boolean} send to the host
 * @param {string} id @param {string} url
 */
export async function openUrl(chrome, send, id, url) {
  /** @type {URL|null} */
  let parsed = null;
  try {
    parsed = new URL(url);
  } catch {
    // not a URL: answered below
  }
  if (!parsed || !OPENABLE_PROTOCOLS.includes(parsed.protocol)) {
    return void send(errorResult(id, 'bad_request',
      `Only http, https and file URLs can be opened; "${url.slice(0, 200)}" is not one.`));
  }
  const href = parsed.href;
  try {
    let tab;
    try {
      tab = await chrome.tabs.create({ url: href, active: true });
    } catch {
      // No window to put a tab in (e.g. every window closed on macOS): open one.
      const win = await chrome.windows.create({ url: href, focused: true });
      tab = win?.tabs?.[0];
    }
    if (!tab || tab.id === undefined) throw new Error('the browser gave no tab back');
    if (tab.windowId !== undefined) chrome.windows.update(tab.windowId, { focused: true }).catch(noop);
    send({ type: 'result', id, ok: true, value: JSON.stringify({ tabId: tab.id, url: href }), tab_id: tab.id });
  } catch (e) {
    send(errorResult(id, 'internal', `The browser could not open ${href}: ${e?.message ?? e}`));
  }
}
