// Running the page agent (lib/page-agent.js) in a tab's top frame, and the error every browser
// tool throws: a code from the protocol's list and a message that says what to do.

import { pageAgent } from '../lib/page-agent.js';
import { explainPageError, unscriptableReason } from '../lib/tab-urls.js';

export class ToolError extends Error {
  /** @param {import('../lib/protocol.js').ErrorCode} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Refuses early, in plain words, a tab no extension may touch. */
export function checkScriptable(tab) {
  const reason = unscriptableReason(tab.url ?? tab.pendingUrl);
  if (reason) throw new ToolError('bad_request', `${reason} Use a web page (http or https) instead; browser_navigate can open one.`);
}

/**
 * Runs one page agent op in the tab's top frame (the extension's isolated world).
 * @param {number} tabId @param {string} op @param {object} [params]
 * @returns {Promise<any>} the op's answer; its `{error}` is thrown as a ToolError
 */
export async function inPage(tabId, op, params = {}) {
  let results;
  try {
    results = await chrome.scripting.executeScript({
      target: { tabId, frameIds: [0] }, world: 'ISOLATED', func: pageAgent, args: [op, params],
    });
  } catch (e) {
    throw await pageFailure(tabId, String(e?.message ?? e));
  }
  const first = /** @type {any} */ (results?.[0]);
  if (!first) throw await pageFailure(tabId, 'the page gave no answer');
  if (first.error) throw await pageFailure(tabId, String(first.error?.message ?? first.error));
  const value = first.result;
  if (value && typeof value === 'object' && value.error) throw new ToolError(value.error.code, value.error.message);
  return value;
}

async function pageFailure(tabId, message) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) return new ToolError('tab_closed', 'The tab was closed while working on it.');
  return new ToolError(/error page|Cannot access|cannot be scripted|permission/i.test(message) ? 'bad_request' : 'page_error',
    explainPageError(message, tab.url ?? tab.pendingUrl));
}
