// Which URLs the browser tools may open, which pages an extension can never read or drive
// (chrome://, the Web Store, other extensions), and plain-language words for the errors Chrome
// gives when we try anyway. Pure.

const WEB_STORE = [/^https:\/\/chromewebstore\.google\.com\//i, /^https:\/\/chrome\.google\.com\/webstore/i,
  /^https:\/\/microsoftedge\.microsoft\.com\/addons/i];
const BROWSER_SCHEMES = /^(chrome|chrome-untrusted|chrome-search|edge|brave|opera|vivaldi|devtools|chrome-devtools|view-source|about|chrome-extension|extension):/i;

/**
 * A URL the agent asked to open, made absolute: "example.com/x" -> "https://example.com/x",
 * "localhost:8080" -> "http://localhost:8080/".
 * @param {unknown} input
 * @returns {{url: string}|{error: string}}
 */
export function navigableUrl(input) {
  if (typeof input !== 'string' || !input.trim()) return { error: 'Give the URL to open in `url`, e.g. "https://example.com".' };
  let text = input.trim();
  if (text === 'about:blank') return { url: text };
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text) || /^(localhost|[\w.-]+\.\w+|\d+\.\d+\.\d+\.\d+):\d+/i.test(text)) {
    const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|\/|$)/i.test(text);
    text = `${local ? 'http' : 'https'}://${text}`;
  }
  let u;
  try {
    u = new URL(text);
  } catch {
    return { error: `"${input.slice(0, 200)}" is not a URL I can open.` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'file:') {
    return { error: `Browser tools open web pages (http, https, file); ${u.protocol}// pages are the browser's own and extensions may not open or drive them.` };
  }
  return { url: u.href };
}

/**
 * Why no extension can read or drive a page at this URL, or null when it may be possible.
 * @param {string|undefined} url
 */
export function unscriptableReason(url) {
  if (!url) return null;
  if (WEB_STORE.some((re) => re.test(url))) {
    return 'This tab shows the browser\'s extension store, which no extension may read or control (a browser rule).';
  }
  if (url === 'about:blank') return null;
  if (BROWSER_SCHEMES.test(url)) {
    const scheme = url.split(':')[0].toLowerCase();
    return `This tab shows a ${scheme}:// page (${url.slice(0, 100)}): a page of the browser itself or of another ` +
      'extension, which no extension may read or control (a browser rule).';
  }
  return null;
}

/**
 * Plain words for an error Chrome gave when we tried to run in, or attach the debugger to, a tab.
 * @param {string} message chrome's error message
 * @param {string|undefined} url the tab's URL
 */
export function explainPageError(message, url) {
  const m = String(message ?? '');
  const reason = unscriptableReason(url);
  if (reason) return `${reason} Use a web page (http or https) instead; browser_navigate can open one.`;
  if (/file:|Extension manifest must request permission to access (the respective|this) host/i.test(m) && url?.startsWith('file:')) {
    return 'The extension may not read file:// pages yet: on chrome://extensions, open WebMCP Sidecar\'s details and turn on "Allow access to file URLs".';
  }
  if (/showing error page/i.test(m)) {
    return `The tab shows the browser's error page: ${url ? `${url.slice(0, 200)} ` : 'the page '}did not load (server down, wrong address or offline?). Try browser_reload, or another URL.`;
  }
  if (/Cannot access|cannot be scripted|Cannot attach/i.test(m)) {
    return `The browser does not let extensions read or control this page (${(url ?? '').slice(0, 100)}): ${m}`;
  }
  if (/Another debugger is already attached/i.test(m)) {
    return 'Another tool (an extension or DevTools debugger) is already controlling this tab, so it cannot be driven now. Close it, or use another tab.';
  }
  if (/No tab with id|No frame with id|Frame with ID 0 was removed|was removed|Tab was closed/i.test(m)) {
    return 'The tab or its page went away while working on it (closed or navigating). Check browser_tabs and try again.';
  }
  return `The page could not be reached: ${m}`;
}
