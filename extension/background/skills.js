// Skills in the worker (docs/SKILLS.md): the host's list of enabled skills, matched against each
// tab's URL once its page has loaded, health-checked in the page, and their tools put into the
// registry as the tab's `skill` tools; and the calls to those tools, run step by step
// (lib/skills/runner.js) with the page agent, the debugger and the tab's loads as its hands.

import { errorResult, frameResultToHost } from '../lib/messages.js';
import { keyEvents, parseKey } from '../lib/keys.js';
import { matchesUrl, skillsForUrl } from '../lib/skills/match.js';
import { runSkillTool, StepError } from '../lib/skills/runner.js';
import { siteOf } from '../lib/site.js';
import { inPage } from './page-calls.js';
import { focusProblem, pointProblem, typingLanded } from './input-guard.js';

/** After a failed health check, look again this long after the load (pages render late). */
const HEALTH_RETRIES_MS = [700, 2_500];
/** Skills the host may send at most (its store caps what it keeps; this caps what we hold). */
const MAX_SKILLS = 1_000;
/** Steps that only look at the page: run again in the new document if one came mid-step. */
const LOOKS = new Set(['wait_for', 'extract', 'scroll']);
/** How long a navigation a step started may take to load. */
const NAV_TIMEOUT_MS = 30_000;

/**
 * @typedef {{name: string, skill: string, title?: string, description: string, inputSchema?: object,
 *   annotations?: Record<string, unknown>, source: 'skill'}} SkillToolDef
 * @typedef {{skill: string, matched: boolean, healthy: boolean, reason?: string, tools: string[]}} SkillStatus
 * @typedef {{url: string, gen: number, defs: Map<string, {skill: any, tool: any}>, status: SkillStatus[]}} TabSkills
 */

export class Skills {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   registry: import('../lib/registry.js').Registry,
   *   loads: import('./tab-loads.js').TabLoads,
   *   debuggers: import('./cdp.js').Debuggers,
   *   focus: import('./tab-focus.js').TabFocus,
   *   send: (msg: any) => boolean,
   *   changed: () => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   * }} opts changed: the registry has changed (site-updates.js schedules a diff)
   */
  constructor({ chrome, registry, loads, debuggers, focus, send, changed, log }) {
    this.chrome = chrome;
    this.registry = registry;
    this.loads = loads;
    this.debuggers = debuggers;
    this.focus = focus;
    this.send = send;
    this.changed = changed;
    this.log = log;
    /** @type {any[]} the enabled skills, as the host sent them */
    this.list = [];
    /** @type {Map<number, TabSkills>} */
    this.tabs = new Map();
    /** @type {Map<string, {ac: AbortController, timer: ReturnType<typeof setTimeout>, tabId: number}>} */
    this.pending = new Map();
    this._gen = 0;
    /** @type {Map<number, number>} the newest look at each tab (an older one gives way) */
    this._latest = new Map();
    chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
      // A page that has loaded, or an SPA that changed its URL after loading.
      if (change.status === 'complete' || (change.url && tab?.status === 'complete')) void this.evaluate(tabId, tab);
    });
    chrome.tabs.onRemoved.addListener((tabId) => {
      this.tabs.delete(tabId);
      this._latest.delete(tabId);
    });
  }

  /** The host's `skills` message: the new list; every open tab is looked at again. @param {any} raw */
  update(raw) {
    const list = Array.isArray(raw?.skills) ? raw.skills : [];
    this.list = list.filter((s) => s && typeof s === 'object' && typeof s.name === 'string' && Array.isArray(s.tools)
      && Array.isArray(s.match)).slice(0, MAX_SKILLS);
    this.chrome.tabs.query({}).then((tabs) => {
      for (const tab of tabs) if (tab.id !== undefined) void this.evaluate(tab.id, tab);
    }, () => {});
  }

  /** What the Skills view shows about a tab: each matching skill, healthy or why not. @param {number} tabId */
  statusOf(tabId) {
    return this.tabs.get(tabId)?.status ?? [];
  }

  /**
   * Matches the tab's URL against the skills, checks the matching ones' health in its page and
   * puts the tools of the healthy ones into the registry (a skill of higher priority first; a
   * name one skill took is not taken again).
   * @param {number} tabId @param {chrome.tabs.Tab} [known] @param {number} [attempt]
   */
  async evaluate(tabId, known, attempt = 0) {
    const tab = known?.url ? known : await this.chrome.tabs.get(tabId).catch(() => null);
    const url = tab?.url ?? '';
    const site = siteOf(url);
    const gen = ++this._gen;
    this._latest.set(tabId, gen);
    const matching = site ? skillsForUrl(this.list, url) : [];
    const prev = this.tabs.get(tabId);
    if (!matching.length) {
      if (prev) {
        this.tabs.delete(tabId);
        this._publish(tabId, url, tab?.windowId, []);
      }
      return;
    }
    /** @type {TabSkills} */
    const entry = { url, gen, defs: new Map(), status: [] };
    let unhealthy = false;
    for (const skill of matching) {
      const health = await this._health(tabId, skill);
      if (this._latest.get(tabId) !== gen) return; // a newer look at this tab began meanwhile
      const names = [];
      if (health.healthy) {
        for (const tool of skill.tools) {
          if (typeof tool?.name !== 'string' || entry.defs.has(tool.name)) continue;
          entry.defs.set(tool.name, { skill, tool });
          names.push(tool.name);
        }
      } else {
        unhealthy = true;
      }
      entry.status.push({ skill: skill.name, matched: true, healthy: health.healthy, ...(health.reason ? { reason: health.reason } : {}), tools: names });
    }
    const now = await this.chrome.tabs.get(tabId).catch(() => null);
    if (!now || now.url !== url || this._latest.get(tabId) !== gen) return; // the tab moved on: its own load brings a new look
    this.tabs.set(tabId, entry);
    this._publish(tabId, url, now.windowId, [...entry.defs.values()].map(({ skill, tool }) => toolDef(skill, tool)));
    if (unhealthy && attempt < HEALTH_RETRIES_MS.length) {
      setTimeout(() => {
        if (this.tabs.get(tabId) === entry) void this.evaluate(tabId, undefined, attempt + 1);
      }, HEALTH_RETRIES_MS[attempt]);
    }
  }

  /** @param {number} tabId @param {any} skill @returns {Promise<{healthy: boolean, reason?: string}>} */
  async _health(tabId, skill) {
    const h = skill.health;
    if (!h || ((!Array.isArray(h.selectors) || !h.selectors.length) && !h.text)) return { healthy: true };
    try {
      const r = await inPage(tabId, 'skill_health', { selectors: h.selectors ?? [], text: h.text ?? null });
      if (r?.healthy) return { healthy: true };
      const missing = Array.isArray(r?.missing) && r.missing.length ? `missing ${r.missing.slice(0, 5).join(', ')}` : '';
      return { healthy: false, reason: String(r?.reason ?? (missing || 'the page did not pass the health check')).slice(0, 500) };
    } catch (e) {
      return { healthy: false, reason: `the health check could not run: ${String(e?.message ?? e).slice(0, 300)}` };
    }
  }

  /** @param {number} tabId @param {string} url @param {number|undefined} windowId @param {SkillToolDef[]} tools */
  _publish(tabId, url, windowId, tools) {
    if (this.registry.setSkillTools(tabId, url, tools, windowId)) this.changed();
  }

  /**
   * The Skills view's "Test on this tab": a skill from the editor (validated by the host, not
   * installed) is matched and health-checked on the tab, then, with `toolName`, that tool runs
   * there with `args`.
   * @param {number} tabId @param {any} skill @param {string|null} toolName @param {Record<string, unknown>} args
   * @param {number} [timeoutMs]
   * @returns {Promise<{matched: boolean, healthy: boolean, reason?: string, ok?: boolean, value?: unknown,
   *   error?: {code: string, message: string}}>}
   */
  async tryDraft(tabId, skill, toolName, args, timeoutMs = 60_000) {
    const tab = await this.chrome.tabs.get(tabId);
    const url = tab.url ?? '';
    const site = siteOf(url);
    if (!site) return { matched: false, healthy: false, reason: 'the tab shows no web page (http or https)' };
    const matched = Array.isArray(skill?.match) && matchesUrl(skill.match, skill.exclude ?? [], url);
    const health = await this._health(tabId, skill);
    const out = { matched, ...health };
    if (!toolName || !health.healthy) return out;
    const tool = Array.isArray(skill.tools) ? skill.tools.find((t) => t?.name === toolName) : undefined;
    if (!tool) return { ...out, ok: false, error: { code: 'not_found', message: `The skill has no tool named "${toolName}".` } };
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      const value = await runSkillTool(tool, args, this._io(tabId, ac.signal), { site, pageUrl: url, signal: ac.signal });
      return { ...out, ok: true, value: value ?? null };
    } catch (e) {
      return { ...out, ok: false, error: { code: String(e?.code ?? 'page_error'), message: String(e?.message ?? e).slice(0, 4000) } };
    } finally {
      clearTimeout(timer);
    }
  }

  // --- calls ------------------------------------------------------------------------------------

  /**
   * A call the registry routed to a tab's skill tool; answered exactly once.
   * @param {import('../lib/protocol.js').CallMsg} msg
   * @param {{tabId: number, windowId: number|undefined}} route
   */
  run(msg, route) {
    const { id } = msg;
    const { tabId } = route;
    const def = this.tabs.get(tabId)?.defs.get(msg.tool);
    if (!def) return void this.send(errorResult(id, 'not_found', `${msg.site} has no skill tool named "${msg.tool}" right now.`, tabId));
    const ac = new AbortController();
    const timer = setTimeout(() => {
      ac.abort();
      this._finish(id, errorResult(id, 'timeout', `The skill tool did not finish within ${msg.timeout_ms / 1000} s.`, tabId));
    }, msg.timeout_ms);
    this.pending.set(id, { ac, timer, tabId });
    this.focus.bring(tabId, route.windowId);
    const pageUrl = this.tabs.get(tabId)?.url ?? '';
    runSkillTool(def.tool, /** @type {Record<string, unknown>} */ (msg.args ?? {}), this._io(tabId, ac.signal), { site: msg.site, pageUrl, signal: ac.signal }).then(
      (value) => this._finish(id, frameResultToHost(id, { ok: true, value: value ?? null }, tabId, msg.max_bytes)),
      (e) => this._finish(id, errorResult(id, e instanceof StepError ? /** @type {any} */ (e.code) : 'page_error',
        `Skill ${def.skill.name}, tool ${msg.tool}: ${String(e?.message ?? e).slice(0, 4000)}`, tabId)),
    );
  }

  /** @param {string} id @returns {boolean} whether the call was one of ours */
  cancel(id) {
    const call = this.pending.get(id);
    if (!call) return false;
    call.ac.abort();
    this._finish(id, errorResult(id, 'cancelled', 'The call was cancelled.', call.tabId));
    return true;
  }

  /** @param {number} tabId */
  tabClosed(tabId) {
    for (const [id, call] of this.pending) {
      if (call.tabId === tabId) {
        call.ac.abort();
        this._finish(id, errorResult(id, 'tab_closed', 'The tab was closed while the skill tool ran.', tabId));
      }
    }
  }

  /** @param {string} id @param {any} result */
  _finish(id, result) {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    this.send(result);
  }

  /**
   * The runner's hands on one tab (lib/skills/runner.js SkillIo).
   * @param {number} tabId @param {AbortSignal} signal
   * @returns {import('../lib/skills/runner.js').SkillIo}
   */
  _io(tabId, signal) {
    const { loads, debuggers, chrome } = this;
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
}

/** A skill's tool as the registry holds it. @returns {SkillToolDef} */
function toolDef(skill, tool) {
  /** @type {SkillToolDef} */
  const def = { name: tool.name, skill: skill.name, description: String(tool.description ?? ''), source: 'skill' };
  if (typeof tool.title === 'string') def.title = tool.title;
  def.inputSchema = tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object', properties: {} };
  if (tool.annotations && typeof tool.annotations === 'object') def.annotations = /** @type {Record<string, unknown>} */ (tool.annotations);
  return def;
}
