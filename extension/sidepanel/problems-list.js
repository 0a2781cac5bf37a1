// The host's problems with an edited file (a skill, a chat-site adapter), shown under its editor:
// each line "line N, column M · field: message", a click putting the cursor there.

import { offsetOf, parseProblem, problemText } from '../lib/skills/view-model.js';
import { h } from './dom.js';

/** Puts the cursor of `text` at line, column (1-based); nothing without a line. */
export function goTo(text, line, column) {
  if (line === null) return;
  const at = offsetOf(text.value, line, column ?? 1);
  text.focus();
  text.setSelectionRange(at, at);
}

/**
 * Shows a `validate` or `save` answer in `box`.
 * @param {HTMLElement} box @param {HTMLTextAreaElement} text the editor
 * @param {any} r the host's answer @param {string} what "skill", "adapter": for the message when
 *   the host could not check at all
 */
export function showProblems(box, text, r, what) {
  if (r.ok) return void box.replaceChildren(h('p', { class: 'form-msg ok', text: 'No problems.' }));
  if (!r.problems?.length) {
    return void box.replaceChildren(h('p', { class: 'form-msg error', text: r.error ?? `The host could not check the ${what}.` }));
  }
  box.replaceChildren(h('ul', { class: 'card-error skill-problems' }, r.problems.slice(0, 50).map((line) => {
    const p = parseProblem(line);
    return h('li', { 'data-line': p.line ?? '', 'data-field': p.field ?? '', title: p.line !== null ? 'Go there' : '',
      on: { click: () => goTo(text, p.line, p.column) } }, problemText(p));
  })));
}
