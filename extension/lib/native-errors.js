// Plain-language explanations, with the fix, for the errors Chrome reports when the native
// port drops (chrome.runtime.lastError.message). Shown in the UI; `doctor` says the same.

/** @type {[RegExp, string][]} */
const EXPLANATIONS = [
  [
    /not found/i,
    'The WebMCP Sidecar host is not installed for this browser (Chrome found no host manifest ' +
      'named io.webmcp.sidecar). Fix: run `webmcp-sidecar install`, then reload this extension. ' +
      '`webmcp-sidecar doctor` checks every step.',
  ],
  [
    /forbidden/i,
    "The host manifest does not allow this extension: its allowed_origins lacks this extension's " +
      'id. Fix: run `webmcp-sidecar install` again (it writes the right id), or ' +
      '`webmcp-sidecar doctor` to see what is wrong.',
  ],
  [
    /failed to start/i,
    'Chrome found the host manifest but could not start the program it points to (moved, ' +
      'deleted, not executable, or a Python that no longer exists). Fix: run ' +
      '`webmcp-sidecar install` again, then `webmcp-sidecar doctor`.',
  ],
  [
    /exited/i,
    'The host started and then stopped (it crashed or was closed). The extension reconnects ' +
      'by itself; if this keeps happening run `webmcp-sidecar doctor` and read the host log it ' +
      'points to.',
  ],
  [
    /communicating/i,
    'The host sent something that is not a valid message (a frame over 1 MiB, or stray output ' +
      'on its stdout). Fix: update the host (`webmcp-sidecar install`); `webmcp-sidecar doctor` ' +
      'shows its log.',
  ],
  [
    /invalid native messaging host name/i,
    'This extension asked for a malformed host name; reinstall the extension.',
  ],
];

/**
 * @param {string|null|undefined} message chrome.runtime.lastError.message, if any
 * @returns {string} what happened and how to fix it
 */
export function explainNativeError(message) {
  if (!message) {
    return 'The connection to the WebMCP Sidecar host closed. The extension reconnects by ' +
      'itself; if it does not, run `webmcp-sidecar doctor`.';
  }
  for (const [pattern, text] of EXPLANATIONS) if (pattern.test(message)) return text;
  return `The connection to the WebMCP Sidecar host failed (${message}). Run ` +
    '`webmcp-sidecar doctor` to find out why.';
}
