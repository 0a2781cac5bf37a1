// A skill call's hands on its tab (lib/skills/runner.js SkillIo): page steps through the page
// agent (again in the new document when one came mid-step and the step only looks), trusted
// input through the debugger, navigations and URL waits through the tab's loads.

import { browserLabel } from '../lib/browser.js';
import { browserName, noDebuggerText } from '../lib/browser-support.js';
import { keyEvents, parseKey } from '../lib/keys.js';
import { StepError } from '../lib/skills/runner.js';
import { inPage, ToolError } from './page-calls.js';
import { focusProblem, pointProblem, typingLanded } from './input-guard.js';

/** Steps that only look at the page: run again in the new document if one came mid-step. */
const LOOKS = new Set(['wait_for', 'extract', 'scroll']);
/** How long a navigation a step started may take to load. */
const NAV_TIMEOUT_MS = 30_000;

/**
 * The runner's hands on one tab (lib/skills/runner.js SkillIo).
 * @param {number} tabId @param {AbortSignal} signal
 * @param {{loads: import('./tab-loads.js').TabLoads, debuggers: import('./cdp.js').Debuggers, chrome: typeof globalThis.chrome}} env
 * @returns {import('../lib/skills/runner.js').SkillIo}
 */
export function skillIo(tabId, signal, { loads, debuggers, chrome }) {
  const gone = () => {
    if (signal.aborted) throw new StepError('cancelled', 'The call was cancelled.');
  };
  /** The nonce the page marked a trusted step's element with (input-guard.js). */
  let aim = '';
  /** @param {string|null} problem */
  const steered = (problem) => {
    if (problem) throw new StepError('page_error', `no input was sent: ${problem} (the page moved something there since the step aimed). If this repeats, the page is steering input elsewhere.`);
  };
  return {
    mark: () => loads.mark(tabId),
    async step(step, index, timeoutMs) {
      const t0 = Date.now();
      // No real input without chrome.debugger (Firefox): said before the page aims anything.
      if (step.trusted && !chrome.debugger) throw new ToolError('bad_request', noDebuggerText('a trusted step', browserName(browserLabel(globalThis.navigator?.userAgent ?? ''))));
      if (step.trusted) aim = crypto.randomUUID();
      for (;;) {
        gone();
        const mark = loads.mark(tabId);
        try {
          return await inPage(tabId, 'skill_step', { step, index, ...(step.trusted ? { aim } : {}) });
        } catch (e) {
          // The document went away under the step (a navigation an earlier step began): a
          // step that only looks runs again in the new document; an action is done.
          const navigated = loads.get(tabId).starts > mark.starts || loads.get(tabId).loading;
          if (!navigated || e?.code === 'tab_closed') throw e;
          if (!LOOKS.has(step.action)) return { ok: true, navigated: true };
          const left = timeoutMs - (Date.now() - t0);
          if (left <= 0) throw e;
          await loads.waitIdle(tabId, Math.min(left, NAV_TIMEOUT_MS));
        }
      }
    },
    async steps(steps, start, timeoutMs) {
      const t0 = Date.now();
      for (;;) {
        gone();
        const mark = loads.mark(tabId);
        try {
          const r = await inPage(tabId, 'skill_steps', { steps, start });
          return Array.isArray(r?.answers) ? r.answers : [];
        } catch (e) {
          // As for one step: the first step ran if it acts; if it only looks, run again there.
          const navigated = loads.get(tabId).starts > mark.starts || loads.get(tabId).loading;
          if (!navigated || e?.code === 'tab_closed') throw e;
          if (!LOOKS.has(steps[0]?.action)) return [{ ok: true, navigated: true }];
          const left = timeoutMs - (Date.now() - t0);
          if (left <= 0) throw e;
          await loads.waitIdle(tabId, Math.min(left, NAV_TIMEOUT_MS));
        }
      }
    },
    async trusted(step, answer) {
      gone();
      await debuggers.use(tabId, async (send) => {
        if (step.action === 'click') {
          const { x, y } = answer.point ?? {};
          if (!Number.isInteger(x) || !Number.isInteger(y)) throw new StepError('page_error', 'the page gave no point to click');
          await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
          // After the move (a page may swap a frame in on mousemove), right before the press.
          steered(await pointProblem(send, { x, y, nonce: aim }));
          await send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 });
          await send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: 1 });
        } else if (step.action === 'type') {
          const text = String(step.text ?? '');
          const before = await inPage(tabId, 'aimed', { nonce: aim }).catch(() => null);
          steered(await focusProblem(send, aim));
          await send('Input.insertText', { text });
          const after = await inPage(tabId, 'aimed', { nonce: aim }).catch(() => null);
          if (!typingLanded(text, before?.value, typeof after?.value === 'string' ? after.value : null)) {
            throw new StepError('page_error', 'the text did not reach the field: its value did not change (the page moved the keyboard focus elsewhere as it was typed, perhaps into another site\'s frame)');
          }
        } else if (step.action === 'press') {
          const key = parseKey(String(step.key ?? ''));
          if ('error' in key) throw new StepError('invalid_args', key.error);
          steered(await focusProblem(send, aim));
          for (const ev of keyEvents(key)) await send('Input.dispatchKeyEvent', ev);
        }
        // A round trip: the navigation events this input caused have arrived after it.
        await send('Runtime.evaluate', { expression: '0', returnByValue: true }).catch(() => {});
      });
    },
    async navigate(url, timeoutMs) {
      gone();
      const mark = loads.mark(tabId);
      await chrome.tabs.update(tabId, { url });
      const how = await loads.waitLoaded(tabId, mark, { timeoutMs: Math.max(timeoutMs, NAV_TIMEOUT_MS) });
      if (how === 'closed') throw new StepError('tab_closed', 'The tab closed while loading the page.');
      if (how !== 'loaded') throw new StepError('timeout', `${url.slice(0, 200)} did not load in time.`);
    },
    async waitUrl(test, since, timeoutMs) {
      const t0 = Date.now();
      for (;;) {
        gone();
        const tab = await chrome.tabs.get(tabId).catch(() => null);
        if (!tab) throw new StepError('tab_closed', 'The tab closed while waiting.');
        if (since) {
          if (await loads.waitLoaded(tabId, since, { timeoutMs: Math.max(0, timeoutMs - (Date.now() - t0)) }) === 'loaded') return true;
          return false;
        }
        if (tab.url && test(tab.url) && tab.status === 'complete') return true;
        if (Date.now() - t0 >= timeoutMs) return false;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async settle(answer, mark) {
      const t = loads.get(tabId);
      if (answer?.navigating || answer?.navigated || t.starts > mark.starts) {
        const how = await loads.waitLoaded(tabId, mark, { timeoutMs: NAV_TIMEOUT_MS, startWithinMs: 3_000 });
        if (how === 'closed') throw new StepError('tab_closed', 'The tab closed after the step.');
      }
    },
  };
}
