// The side panel's Skills view asks the worker what only the worker knows: how the skills fare
// on a tab (`skills_status`) and how a draft from the editor does there (`skills_try`, "Test on
// this tab"). Runtime messages from the extension's own pages only: a page must neither learn
// what else is open nor run steps in another tab.

import { siteOf } from '../lib/site.js';

/** A draft's text at most (the host's cap on a skill file). */
const MAX_TEXT = 256 * 1024;
/** How long a draft's tool may run. */
const TRY_TIMEOUT_MS = 60_000;

/**
 * @param {{
 *   chrome: typeof globalThis.chrome,
 *   skills: import('./skills.js').Skills,
 *   registry: import('../lib/registry.js').Registry,
 * }} w
 */
export function createSkillsPanel({ chrome, skills, registry }) {
  /** @param {any} v */
  const tabIdOf = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null);

  /**
   * Answers with what `work` gives, or `{error}`; true keeps the channel open for it.
   * @param {(r: any) => void} respond @param {() => Promise<any>} work
   */
  const answer = (respond, work) => {
    work().then(respond, (e) => respond({ error: String(e?.message ?? e).slice(0, 1000) }));
    return true;
  };

  /** @param {(r: any) => void} respond @param {string} error */
  const refuse = (respond, error) => {
    respond({ error });
    return false;
  };

  return {
    /**
     * `skills_status {tabId, fresh?}` -> `{tabId, site, status, hidden}`: each matching skill,
     * healthy or why not, and the skill tools a page's own tool hides there. `fresh` looks at the
     * tab again first (match and health check) instead of answering from the last look.
     * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} respond
     */
    status(msg, sender, respond) {
      const tabId = tabIdOf(msg?.tabId);
      if (tabId === null) return refuse(respond, 'tabId must be a tab id');
      return answer(respond, async () => {
        if (msg.fresh === true) await skills.evaluate(tabId);
        const tab = await chrome.tabs.get(tabId).catch(() => null);
        const site = tab?.url ? siteOf(tab.url) : null;
        return { tabId, site, status: skills.statusOf(tabId), hidden: site ? registry.hiddenSkillTools(site) : [] };
      });
    },

    /**
     * `skills_try {tabId, text, tool?, args?}` -> Skills.tryDraft's answer: the draft (the
     * editor's text, parsed here; the host validated it) matched and health-checked on the tab,
     * then `tool` run there with `args`.
     * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} respond
     */
    try(msg, sender, respond) {
      const tabId = tabIdOf(msg?.tabId);
      if (tabId === null) return refuse(respond, 'tabId must be a tab id');
      const parsed = parseDraft(msg);
      if ('error' in parsed) return refuse(respond, parsed.error);
      const tool = typeof msg.tool === 'string' && msg.tool ? msg.tool : null;
      const args = msg.args && typeof msg.args === 'object' && !Array.isArray(msg.args) ? msg.args : {};
      return answer(respond, () => skills.tryDraft(tabId, parsed.skill, tool, args, TRY_TIMEOUT_MS));
    },
  };
}

/**
 * The draft of a `skills_try`: its `text` (or an already parsed `skill`), as an object.
 * @param {any} msg
 * @returns {{skill: any} | {error: string}}
 */
export function parseDraft(msg) {
  let skill = msg?.skill;
  if (typeof msg?.text === 'string') {
    if (msg.text.length > MAX_TEXT) return { error: `the skill is over ${MAX_TEXT / 1024} KiB` };
    try {
      skill = JSON.parse(msg.text);
    } catch (e) {
      return { error: `the skill is not valid JSON: ${e.message}` };
    }
  }
  if (!skill || typeof skill !== 'object' || Array.isArray(skill)) return { error: 'no skill to try (text or skill)' };
  return { skill };
}
