// Running the page agent (page/agent/*.js) in a tab's top frame, and the error every browser
// tool throws: a code from the protocol's list and a message that says what to do.

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

/** The page agent's files, in order (page/agent/roles.js explains how they fit together). */
export const AGENT_FILES = ['roles', 'refs', 'snapshot', 'act', 'read', 'selectors', 'rows', 'skill-steps', 'skill-ops', 'run'].map((f) => `page/agent/${f}.js`);

/**
 * Runs in the page (the extension's isolated world): one op of the agent, if this document has
 * it, in this extension version; else `{noAgent: true}`, and the worker injects the files.
 * @param {string} op @param {any} params @param {string} version
 */
function callAgent(op, params, version) {
  const agent = /** @type {any} */ (globalThis).webmcpSidecar?.agent;
  if (!agent || agent.version !== version) return { noAgent: true };
  return agent.run(op, params);
}

/**
 * Runs one page agent op in the tab's top frame (the extension's isolated world). The agent's
 * files go in once per document: only a call that finds none injects them, then calls again.
 * @param {number} tabId @param {string} op @param {object} [params]
 * @returns {Promise<any>} the op's answer; its `{error}` is thrown as a ToolError
 */
export async function inPage(tabId, op, params = {}) {
  const target = { tabId, frameIds: [0] };
  const version = chrome.runtime.getManifest().version;
  let results;
  try {
    // Twice at most: a document replaced between injecting and calling gets one more try.
    for (let tries = 0; ; tries++) {
      results = await chrome.scripting.executeScript({
        target, world: 'ISOLATED', func: callAgent, args: [op, params, version],
      });
      if (!(/** @type {any} */ (results?.[0])?.result?.noAgent) || tries === 2) break;
      await chrome.scripting.executeScript({ target, world: 'ISOLATED', files: AGENT_FILES });
    }
  } catch (e) {
    throw await pageFailure(tabId, String(e?.message ?? e));
  }
  const first = /** @type {any} */ (results?.[0]);
  if (!first) throw await pageFailure(tabId, 'the page gave no answer');
  if (first.error) throw await pageFailure(tabId, String(first.error?.message ?? first.error));
  const value = first.result;
  if (value?.noAgent) throw await pageFailure(tabId, 'the page agent could not be loaded (the page kept changing)');
  if (value && typeof value === 'object' && value.error) throw new ToolError(value.error.code, value.error.message);
  return value;
}

async function pageFailure(tabId, message) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) return new ToolError('tab_closed', 'The tab was closed while working on it.');
  return new ToolError(/error page|Cannot access|cannot be scripted|permission/i.test(message) ? 'bad_request' : 'page_error',
    explainPageError(message, tab.url ?? tab.pendingUrl));
}
