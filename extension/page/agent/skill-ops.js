// WebMCP Sidecar, page agent: the skill ops (docs/SKILLS.md) over the steps of skill-steps.js:
// `skill_step` (one step), `skill_steps` (a run of steps in one call) and `skill_health`. An
// action that begins a navigation says so, so the worker waits for the new page.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { fail, cut, StepFailure, find, needleOf, pageText } = P;
  const { setAim, label, fill, type, click, press, select, check, waitFor, extract, valueOf, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS,
    MAX_TOTAL } = P.skillParts;
  delete P.skillParts;

  /**
   * Runs an action and notes whether it began a navigation to another document (the Navigation
   * API's `navigate` event, seen from this world too: a link, a form submission, a location
   * change). A form's navigation is queued, so two tasks later are waited for. The worker then
   * waits for the new page before the next step (`navigating: true`).
   * @param {() => any} act @param {boolean} queued whether the action can submit a form (click,
   *   press), whose navigation comes a task or two later
   */
  async function watchingNavigation(act, queued = true) {
    const nav = /** @type {any} */ (globalThis).navigation;
    let leaving = false;
    const on = (e) => { if (!e?.destination?.sameDocument) leaving = true; };
    nav?.addEventListener?.('navigate', on);
    try {
      const answer = await act();
      if (answer?.ok && queued) for (let i = 0; i < 2 && !leaving; i++) await new Promise((r) => setTimeout(r, 0));
      return leaving && answer?.ok ? { ...answer, navigating: true } : answer;
    } finally {
      nav?.removeEventListener?.('navigate', on);
    }
  }

  /** Op `skill_step` {step, index}: one resolved step; `{ok}`, `{ok, value}` or `{trusted, ...}`. */
  async function skillStep(params) {
    const step = params?.step;
    const index = Number.isInteger(params?.index) ? params.index : 0;
    if (!step || typeof step !== 'object' || typeof step.action !== 'string') return fail('bad_request', `step ${index + 1}: not a step`);
    const timeoutMs = Math.min(MAX_TIMEOUT_MS, Math.max(1, Math.floor(Number(step.timeout_ms)) || DEFAULT_TIMEOUT_MS));
    setAim(params?.aim); // a trusted step's element is marked with it, for the worker's check
    try {
      switch (step.action) {
        case 'fill': { const el = await find(step, timeoutMs); return await watchingNavigation(() => fill(el, step), false); }
        case 'type': { const el = await find(step, timeoutMs); return await watchingNavigation(() => type(el, step), false); }
        case 'click': { const el = await find(step, timeoutMs); return await watchingNavigation(() => click(el, step)); }
        case 'press': return await watchingNavigation(() => press(step, timeoutMs));
        case 'select': { const el = await find(step, timeoutMs); return await watchingNavigation(() => select(el, step), false); }
        case 'check': { const el = await find(step, timeoutMs); return await watchingNavigation(() => check(el, step, timeoutMs)); }
        case 'scroll':
          if (step.selector !== undefined) (await find(step, timeoutMs)).scrollIntoView?.({ block: 'center', behavior: 'instant' });
          else if (step.to === 'top' || step.to === 'bottom') scrollTo?.({ top: step.to === 'top' ? 0 : document.documentElement.scrollHeight, behavior: 'instant' });
          else throw new StepFailure('bad_request', 'a `scroll` step needs `selector` or `to` (top or bottom)');
          return { ok: true };
        case 'wait_for': return await waitFor(step, timeoutMs);
        case 'extract': {
          if (typeof step.as !== 'string' || !step.as) throw new StepFailure('bad_request', 'an `extract` step needs `as`');
          const listed = extract(step);
          if (listed) return listed;
          return { ok: true, value: valueOf(await find(step, timeoutMs), step.attribute, { left: MAX_TOTAL }) };
        }
        default:
          throw new StepFailure('bad_request', `the page runs no \`${cut(step.action, 20)}\` step (the worker runs navigate and return)`);
      }
    } catch (e) {
      const code = e instanceof StepFailure ? e.code : 'page_error';
      return fail(code, `${label(step, index)}: ${cut(String(e?.message ?? e), 2000)}`);
    }
  }

  /**
   * Op `skill_steps` {steps, start}: several resolved steps in a row in one call (one
   * executeScript instead of one a step). An optional step that fails is skipped; any other
   * failure ends the call with that step's error; a step that began a navigation ends the batch
   * (the worker waits for the new page, then goes on). `{ok, answers}`: one answer a step run.
   */
  async function skillSteps(params) {
    const steps = Array.isArray(params?.steps) ? params.steps.slice(0, 64) : [];
    const start = Number.isInteger(params?.start) ? params.start : 0;
    const answers = [];
    for (let i = 0; i < steps.length; i++) {
      const answer = await skillStep({ step: steps[i], index: start + i });
      if (answer?.error) {
        if (steps[i]?.optional === true) {
          answers.push({ ok: true, skipped: true });
          continue;
        }
        return answer;
      }
      answers.push(answer);
      if (answer?.navigating || answer?.trusted) break;
    }
    return { ok: true, answers };
  }

  /** Op `skill_health` {selectors, text}: does this page look like the skill's? No waiting. */
  function skillHealth(params) {
    const missing = [];
    const reasons = [];
    try {
      const selectors = Array.isArray(params?.selectors) ? params.selectors.slice(0, 16) : [];
      for (const s of selectors) {
        const shown = JSON.stringify(cut(String(s), 100));
        try {
          if (typeof s !== 'string' || !s.trim()) throw new Error('empty');
          if (!document.querySelector(s)) {
            missing.push(cut(s, 200));
            reasons.push(`no element matches ${shown}`);
          }
        } catch {
          missing.push(cut(String(s), 200));
          reasons.push(`${shown} is not a valid CSS selector`);
        }
      }
      const needle = typeof params?.text === 'string' ? needleOf(params.text) : null;
      if (needle !== null && !pageText().includes(needle)) reasons.push(`the page's text lacks ${JSON.stringify(cut(params.text, 100))}`);
    } catch (e) {
      reasons.push(`the check failed: ${cut(String(e?.message ?? e), 200)}`);
    }
    return reasons.length ? { healthy: false, missing, reason: reasons.join('; ') } : { healthy: true, missing };
  }

  Object.assign(P, { skillStep, skillSteps, skillHealth });
})();
