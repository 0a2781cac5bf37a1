// An offscreen document (background/page-stubs.js opens it): Chrome's service worker has no `document`,
// so this page says whether the browser has WebMCP of its own (Chromium with the flag), which
// decides the MAIN stub every page gets.
chrome.runtime.onMessage.addListener((msg, _sender, respond) => {
  if (msg?.type !== 'webmcp_mode?') return false;
  respond({ native: 'modelContext' in document });
  return false;
});
