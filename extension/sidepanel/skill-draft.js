// "Save as skill" in the panel (log-view.js, sessions-view.js): a draft from recorded browser
// calls (lib/skills/draft.js) opens in the Skills view's editor. The Skills view listens for
// the `webmcp-skill-draft` event (panel.js); should nothing take it, the draft is downloaded.

import { buildDraft, DraftError, defaultSkillName } from '../lib/skills/draft.js';
import { h } from './dom.js';

export const DRAFT_EVENT = 'webmcp-skill-draft';

/**
 * Builds the draft and opens it; the words for the user (what was left out, or why nothing).
 * @param {import('../lib/skills/draft.js').RecordedCall[]} calls
 * @returns {{ok: boolean, message: string}}
 */
export function saveAsSkill(calls) {
  const start = calls.flatMap((c) => [c.url, c.urlAfter]).find((u) => /^https?:/.test(u ?? '')) ?? '';
  let draft;
  try {
    draft = buildDraft(calls, { name: defaultSkillName(start), toolName: 'recorded_task' });
  } catch (e) {
    if (e instanceof DraftError) return { ok: false, message: e.message };
    throw e;
  }
  const text = `${JSON.stringify(draft.skill, null, 2)}\n`;
  const ev = new CustomEvent(DRAFT_EVENT, { detail: { text, notes: draft.notes }, cancelable: true });
  document.dispatchEvent(ev);
  if (!ev.defaultPrevented) {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = h('a', { href: url, download: `${draft.skill.name}.skill.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  const named = draft.params.length ? ` Parameters: ${draft.params.map((p) => p.name).join(', ')} (rename them in the editor).` : '';
  return { ok: true, message: `Draft of ${draft.skill.tools[0].steps.length} steps opened.${named}${draft.notes.length ? ` ${draft.notes.join(' ')}` : ''}` };
}
