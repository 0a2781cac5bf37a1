// What each browser and build can do. Firefox has no chrome.debugger, and the Chrome Web Store
// build goes without the `debugger` permission (Chrome cannot ask for it later: it is not
// allowed in optional_permissions). The browser tools that act through it (trusted input,
// screenshots, file upload) and skills' `trusted` steps answer so, plainly, before anything is
// done in the page. Everything else (page tools, snapshots, page text, the in-page tools, tabs,
// skills' other steps) works there. Pure: no chrome.* here.

/** Browser tools (`browser_call.tool`) that need chrome.debugger. */
export const DEBUGGER_TOOLS = Object.freeze(['click', 'type', 'press_key', 'hover', 'upload_file', 'screenshot']);

/**
 * The browser's name for messages: "Firefox" in Firefox, else "this browser".
 * @param {string} label lib/browser.js browserLabel()
 */
export function browserName(label) {
  return /^Firefox\b/.test(label || '') ? 'Firefox' : 'this browser';
}

/**
 * Why `what` cannot run here (no chrome.debugger), in plain words.
 * @param {string} what e.g. "browser_click", "the skill's trusted step 2"
 * @param {string} browser browserName()
 */
export function noDebuggerText(what, browser) {
  const works = "the pages' own tools (WebMCP), browser_snapshot, browser_page_text, browser_select_option, " +
    'browser_scroll, browser_wait_for, the tab tools, and skills without trusted steps.';
  if (browser === 'Firefox') {
    return `${what} is not available in Firefox: it needs chrome.debugger (real mouse and keyboard input, ` +
      `screenshots, file upload), which Firefox does not give extensions. What works there: ${works}`;
  }
  return `${what} is not available in this build of WebMCP Sidecar: it needs the "debugger" permission ` +
    '(real mouse and keyboard input, screenshots, file upload), which the Chrome Web Store build does not ask for. ' +
    'To use it, load the full build instead (the release\'s webmcp-sidecar-<version>-chrome folder, or the ' +
    `extension folder install.sh names, with Load unpacked). What works in this build: ${works}`;
}

/**
 * The refusal for a browser tool call, or null when it can run.
 * @param {string} tool `browser_call.tool` @param {boolean} hasDebugger @param {string} browser browserName()
 */
export function toolUnavailable(tool, hasDebugger, browser) {
  return !hasDebugger && DEBUGGER_TOOLS.includes(tool) ? noDebuggerText(`browser_${tool}`, browser) : null;
}

/**
 * The side panel's word on a build without chrome.debugger (the Chrome Web Store build, or
 * Firefox), or null when it has it.
 * @param {boolean} hasDebugger @param {string} browser browserName()
 */
export function buildNote(hasDebugger, browser) {
  if (hasDebugger) return null;
  const tools = DEBUGGER_TOOLS.map((t) => `browser_${t}`).join(', ');
  const why = browser === 'Firefox'
    ? 'Firefox gives extensions no debugger'
    : 'This is the Chrome Web Store build: it does not ask for Chrome\'s "debugger" permission (Chrome lets an ' +
      'extension have it only from installation, never asked later)';
  const instead = browser === 'Firefox' ? '' : ' To have them, load the full build from the release download ' +
    '(the webmcp-sidecar-<version>-chrome folder, with Load unpacked) instead of this one.';
  return `${why}, so real mouse and keyboard input, screenshots and file upload are not available here: ${tools} ` +
    `and skills' trusted steps answer so. Everything else works: the pages' own tools, snapshots, page text, ` +
    `select, scroll, waits, tabs and the other skill steps.${instead}`;
}
