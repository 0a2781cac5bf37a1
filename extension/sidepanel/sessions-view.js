// MCP sessions: each client's tab group, its tabs and last activity; the user can bring a
// session's tab to the front or close all of a session's tabs. The worker owns the state
// (background/session-tabs.js) and answers `{type: "sessions"}`.

import { fmtTime, h } from './dom.js';
import { saveAsSkill } from './skill-draft.js';

const REFRESH_MS = 2000;

export class SessionsView {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.list = h('div', { class: 'sessions', role: 'list' });
    this.empty = h('p', { class: 'muted', text: 'No MCP client is using the browser tools yet.' });
    this.msg = h('p', { class: 'form-msg', role: 'status', id: 'sessions-msg' });
    root.append(this.msg, this.list, this.empty);
    this.visible = false;
    chrome.runtime.onMessage.addListener((msg) => {
      if (msg?.type === 'sessions_changed' && this.visible) void this.refresh();
    });
    setInterval(() => { if (this.visible) void this.refresh(); }, REFRESH_MS);
  }

  shown() {
    this.visible = true;
    void this.refresh();
  }

  hidden() {
    this.visible = false;
  }

  async refresh() {
    let answer;
    try {
      answer = await chrome.runtime.sendMessage({ type: 'sessions' });
    } catch {
      return; // the worker is restarting; the next tick asks again
    }
    const sessions = Array.isArray(answer?.sessions) ? answer.sessions : [];
    this.empty.hidden = sessions.length > 0;
    this.list.replaceChildren(...sessions.map((s) => this.renderSession(s)));
  }

  /** @param {any} s */
  renderSession(s) {
    const tabs = Array.isArray(s.tabs) ? s.tabs : [];
    const last = s.lastActivity ? `last active ${fmtTime(s.lastActivity)}` : 'no activity yet';
    return h('article', { class: 'session', role: 'listitem', 'data-session': s.id },
      h('header', { class: 'session-head' },
        h('span', { class: `dot group-${s.color || 'grey'}` }),
        h('b', { class: 'session-name', text: s.title || s.client || 'MCP client' }),
        h('span', { class: 'muted', text: ` · ${last}${s.lastTool ? ` (${s.lastTool})` : ''}` })),
      tabs.length
        ? h('ul', { class: 'session-tabs' }, tabs.map((t) => h('li', {},
          h('span', { class: 'tab-title', title: t.url, text: t.title || t.url || `tab ${t.id}` }),
          t.id === s.current ? h('span', { class: 'badge', text: 'current' }) : null,
          h('button', { type: 'button', class: 'ghost small', 'aria-label': `Show ${t.title || t.url}`,
            on: { click: () => this.focus(t.id) } }, 'Show'))))
        : h('p', { class: 'muted', text: 'No tabs.' }),
      tabs.length
        ? h('div', { class: 'form-actions' },
          s.current !== null && s.current !== undefined
            ? h('button', { type: 'button', class: 'ghost save-skill', title: 'A skill draft from its browser calls on its current tab, opened in the Skills editor',
              on: { click: () => this.saveSkill(s.id, s.current) } }, 'Save as skill')
            : null,
          h('button', { type: 'button', class: 'ghost close-tabs', on: { click: () => this.closeTabs(s.id) } },
            `Close ${tabs.length === 1 ? 'its tab' : `its ${tabs.length} tabs`}`))
        : null);
  }

  /** @param {number} tabId */
  async focus(tabId) {
    await chrome.runtime.sendMessage({ type: 'session_focus', tabId }).catch(() => {});
  }

  /**
   * "Save as skill": the session's recorded browser calls (the worker keeps its last 200, typed
   * text masked) on its current tab, since its last draft.
   * @param {string} session @param {number} tabId
   */
  async saveSkill(session, tabId) {
    const r = await chrome.runtime.sendMessage({ type: 'sessions', calls: session }).catch(() => null);
    const all = Array.isArray(r?.calls) ? r.calls : [];
    const lastDraft = all.findLastIndex((c) => c.tool === 'skill_draft');
    const calls = all.slice(lastDraft + 1).filter((c) => c.tabId === tabId);
    const out = calls.length ? saveAsSkill(calls) : { ok: false, message: 'This session has made no browser calls on its current tab yet.' };
    this.msg.className = `form-msg ${out.ok ? 'ok' : 'error'}`;
    this.msg.textContent = out.message;
  }

  /** @param {string} session */
  async closeTabs(session) {
    await chrome.runtime.sendMessage({ type: 'session_close_tabs', session }).catch(() => {});
    await this.refresh();
  }
}
