// Who sent a message or opened a port: the one check of "is this one of our own pages".

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
