// Who sent a message or opened a port: the one check of "is this one of ours", and which. The
// worker asks it in one place, routes.js, as each message or port comes in (its tables say which
// sender each kind must be); the modules behind it trust what routes.js let through.
// (page-install.js, the stubs' `page_install`, still checks its sender itself.)

/**
 * Whether `sender` is one of the extension's own pages (the side panel, in its pane or in a tab;
 * the popup), never a content script: a content script's sender has our id but the page's URL.
 * @param {{id?: string, url?: string} | undefined} sender
 * @param {{id: string, getURL: (path: string) => string}} runtime chrome.runtime
 */
export function isOurPage(sender, runtime) {
  return !!sender && sender.id === runtime.id && typeof sender.url === 'string'
    && sender.url.startsWith(runtime.getURL(''));
}

/**
 * Where one of our content scripts sits: its tab and frame as the browser says (never the
 * page's word), or null when `sender` is not one of our content scripts in a tab's frame (an
 * extension page not in a tab, another extension, a sender without a tab or frame).
 * @param {chrome.runtime.MessageSender | undefined} sender
 * @param {{id: string}} runtime chrome.runtime
 * @returns {{tab: chrome.tabs.Tab, tabId: number, frameId: number} | null}
 */
export function ourFrame(sender, runtime) {
  const tab = sender?.tab;
  const frameId = sender?.frameId;
  if (!sender || sender.id !== runtime.id || !tab || typeof tab.id !== 'number' || tab.id < 0
    || typeof frameId !== 'number') return null;
  return { tab, tabId: tab.id, frameId };
}
