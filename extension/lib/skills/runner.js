// Runs one skill tool's steps (docs/SKILLS.md): each step resolved against the call's arguments
// and the values extracted so far, then carried out by `io`, the worker's hands (the page agent,
// the debugger, the tab's loads). A navigation between steps is normal: io.step runs each step
// in whatever document the tab shows by then, and the extracted values live here, so they
// survive it. Pure: no chrome.* here (tests/js/skills-runner.test.mjs drives it with a fake io).

import { resolveStep, resolveValue } from './template.js';

/** A step that failed: its code (protocol ERROR_CODES) and a message that names the step. */
export class StepError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Actions after which the page may be on its way to another document. */
const MAY_NAVIGATE = new Set(['click', 'press', 'check', 'select', 'fill', 'type']);
const DEFAULT_STEP_TIMEOUT_MS = 5_000;
const MAX_STEP_TIMEOUT_MS = 60_000;

/**
 * @typedef {{
 *   step: (step: any, index: number, timeoutMs: number) => Promise<any>,
 *   steps?: (steps: any[], start: number, timeoutMs: number) => Promise<any[]>,
 *   trusted: (step: any, answer: any) => Promise<void>,
 *   navigate: (url: string, timeoutMs: number) => Promise<void>,
 *   waitUrl: (test: (url: string) => boolean, since: any, timeoutMs: number) => Promise<boolean>,
 *   mark: () => any,
 *   settle: (answer: any, mark: any) => Promise<void>,
 * }} SkillIo
 *   step: one page op in the tab's current document, its `{error}` thrown; steps: a run of
 *   page steps in one op, their answers (fewer when one began a navigation); trusted: real input
 *   for a `trusted` step the page prepared; navigate: loads a URL (already checked to be on
 *   the site) and waits for it; waitUrl: until the tab's URL passes `test` or, with `since`
 *   (a mark), a navigation begun after it has loaded; mark: where the tab's loads stand now;
 *   settle: after an action, waits for the navigation it started, if any
 */

/**
 * A short name of the step for messages: `step 3 (click "form#search button")`.
 * @param {any} step @param {number} index
 */
export function stepLabel(step, index) {
  const what = step.selector ?? step.url ?? step.key ?? step.text ?? step.as;
  const shown = typeof what === 'string' ? ` ${JSON.stringify(what.length > 80 ? `${what.slice(0, 80)}…` : what)}` : '';
  return `step ${index + 1} (${step.action}${shown})`;
}

/**
 * A glob on a whole URL (`*` any run of characters) as a test.
 * @param {string} glob @returns {(url: string) => boolean}
 */
export function urlGlob(glob) {
  const re = new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (url) => re.test(url);
}

/**
 * Whether `url` stays on `site` (host[:port], our site notion) over http(s).
 * @param {string} url @param {string} site
 */
export function onSite(url, site) {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.host === site;
  } catch {
    return false;
  }
}

/**
 * The `default`s of the tool's top-level inputSchema properties: what an argument the caller
 * left out stands for (a select keeps no stale choice from the page's last search).
 * @param {{inputSchema?: any}} tool @returns {Record<string, unknown>}
 */
function defaultsOf(tool) {
  const props = tool.inputSchema?.properties;
  /** @type {Record<string, unknown>} */
  const out = {};
  if (!props || typeof props !== 'object') return out;
  for (const [k, v] of Object.entries(props)) {
    if (v && typeof v === 'object' && 'default' in v) Object.defineProperty(out, k, { value: v.default, enumerable: true, writable: true });
  }
  return out;
}

/**
 * Runs `tool`'s steps; resolves to the tool's result value (what `return` gives, else every
 * extracted value by name), or rejects with a StepError.
 * @param {{steps: any[], inputSchema?: any}} tool
 * @param {Record<string, unknown>} args
 * @param {SkillIo} io
 * @param {{site: string, pageUrl: string, signal?: AbortSignal}} ctx pageUrl: the tab's URL
 *   when the call began (relative `navigate` URLs resolve against the page's URL)
 */
export async function runSkillTool(tool, args, io, { site, pageUrl, signal }) {
  /** @type {Record<string, unknown>} */
  const vars = { ...defaultsOf(tool), ...args };
  /** @type {Record<string, unknown>} */
  const extracted = {};
  let base = pageUrl;
  /** Where the tab's loads stood before the last action: `wait_for navigation` waits for a load
   * begun since then (or since the call began). */
  let startMark = io.mark();
  for (let i = 0; i < tool.steps.length; i++) {
    if (signal?.aborted) throw new StepError('cancelled', `The call was cancelled before ${stepLabel(tool.steps[i], i)}.`);
    const raw = tool.steps[i];
    if (raw.action === 'return') return resolveValue(raw.value, vars);
    const end = io.steps ? batchEnd(tool.steps, i) : i + 1;
    if (end - i > 1 && io.steps) {
      // A run of page steps in one call to the page (one executeScript, not one a step).
      const batch = tool.steps.slice(i, end).map((r) => resolveStep(r, vars));
      const budget = batch.reduce((ms, st) => ms + Math.min(MAX_STEP_TIMEOUT_MS, Math.max(1, Number(st.timeout_ms) || DEFAULT_STEP_TIMEOUT_MS)), 0);
      const mark = io.mark();
      let answers;
      try {
        answers = await io.steps(batch, i, budget);
      } catch (e) {
        throw asStepError(e, batch[0], i);
      }
      if (!Array.isArray(answers) || !answers.length) throw new StepError('page_error', `${stepLabel(batch[0], i)}: the page gave no answer.`);
      answers.forEach((answer, k) => {
        const st = batch[k];
        if (st.action === 'extract' && !answer?.skipped) {
          vars[st.as] = answer?.value;
          extracted[st.as] = answer?.value;
        }
      });
      const lastStep = batch[answers.length - 1];
      const last = answers[answers.length - 1];
      if (batch.slice(0, answers.length).some((st) => MAY_NAVIGATE.has(st.action))) startMark = mark;
      if (last?.navigating || last?.navigated || MAY_NAVIGATE.has(lastStep.action)) await io.settle(last, mark);
      i += answers.length - 1;
      continue;
    }
    const step = resolveStep(raw, vars);
    const timeoutMs = Math.min(MAX_STEP_TIMEOUT_MS, Math.max(1, Number(step.timeout_ms) || DEFAULT_STEP_TIMEOUT_MS));
    try {
      if (step.action === 'navigate') {
        let url;
        try {
          url = new URL(String(step.url), base).href;
        } catch {
          throw new StepError('invalid_args', `${stepLabel(step, i)}: ${JSON.stringify(String(step.url).slice(0, 200))} is not a URL.`);
        }
        if (!onSite(url, site)) throw new StepError('bad_request', `${stepLabel(step, i)}: ${url.slice(0, 200)} is not on ${site}; a skill stays on its site.`);
        await io.navigate(url, timeoutMs);
        base = url;
        continue;
      }
      if (step.action === 'wait_for' && (step.url !== undefined || step.navigation)) {
        const ok = await io.waitUrl(step.url !== undefined ? urlGlob(String(step.url)) : () => false, step.navigation ? startMark : null, timeoutMs);
        if (!ok) {
          const what = step.navigation ? 'no new page loaded' : `the tab's URL did not match ${JSON.stringify(String(step.url).slice(0, 200))}`;
          throw new StepError('timeout', `${stepLabel(step, i)}: ${what} within ${timeoutMs} ms.`);
        }
        continue;
      }
      const mark = io.mark();
      const answer = await io.step(step, i, timeoutMs);
      if (answer?.trusted) await io.trusted(step, answer);
      if (step.action === 'extract') {
        vars[step.as] = answer?.value;
        extracted[step.as] = answer?.value;
      }
      if (MAY_NAVIGATE.has(step.action)) {
        startMark = mark;
        await io.settle(answer, mark);
      }
    } catch (e) {
      if (step.optional) continue;
      throw asStepError(e, step, i);
    }
  }
  return extracted;
}

/** An error as a StepError that names its step (the page's messages name it already). */
function asStepError(e, step, index) {
  if (e instanceof StepError) return e;
  const code = typeof e?.code === 'string' ? e.code : 'page_error';
  const message = String(e?.message ?? e);
  return new StepError(code, /^step \d+ /.test(message) ? message : `${stepLabel(step, index)}: ${message}`);
}

/** Steps the page runs by itself: not the worker's (navigate, URL waits, return), not trusted. */
const PAGE_STEPS = new Set(['fill', 'type', 'click', 'press', 'select', 'check', 'scroll', 'extract', 'wait_for']);
const MAX_BATCH = 16;
const TEMPLATE_NAMES = /\{\{([A-Za-z_][A-Za-z0-9_-]{0,63})\}\}/g;

/** @param {any} raw */
const pageStep = (raw) => PAGE_STEPS.has(raw?.action) && !raw.trusted && !(raw.action === 'wait_for' && (raw.url !== undefined || raw.navigation));

/**
 * Where a run of page steps that can go to the page together, starting at `i`, ends: a step
 * that uses a value extracted earlier in the same run must wait for it (templates are resolved
 * here, before the run is sent).
 * @param {any[]} steps @param {number} i
 */
export function batchEnd(steps, i) {
  const fresh = new Set();
  let j = i;
  while (j < steps.length && j - i < MAX_BATCH && pageStep(steps[j])) {
    const uses = [...JSON.stringify(steps[j]).matchAll(TEMPLATE_NAMES)].map((m) => m[1]);
    if (uses.some((n) => fresh.has(n))) break;
    if (steps[j].action === 'extract' && typeof steps[j].as === 'string') fresh.add(steps[j].as);
    j++;
  }
  return Math.max(j, i + 1);
}
