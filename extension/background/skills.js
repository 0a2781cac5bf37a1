// Skills in the worker (docs/SKILLS.md): the host's list of enabled skills, matched against each
// tab's URL once its page has loaded, health-checked in the page, and their tools put into the
// registry as the tab's `skill` tools; and the calls to those tools, run step by step
// (lib/skills/runner.js) with the page agent, the debugger and the tab's loads as its hands
// (skill-io.js).

import { errorResult, frameResultToHost } from '../lib/messages.js';
import { timeoutText } from '../lib/protocol.js';
import { matchesUrl, skillsForUrl } from '../lib/skills/match.js';
import { runSkillTool, StepError } from '../lib/skills/runner.js';
import { skillIo } from './skill-io.js';
import { siteOf } from '../lib/site.js';
import { inPage } from './page-calls.js';

/** After a failed health check, look again this long after the load (pages render late). */
const HEALTH_RETRIES_MS = [700, 2_500];
/** Skills the host may send at most (its store caps what it keeps; this caps what we hold). */
const MAX_SKILLS = 1_000;
/** A call to a tab whose skills are being checked waits this long at most for the verdict. */
const LOOK_WAIT_MS = 10_000;

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
   *   changed: () => void,
   *   settled?: () => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   * }} opts changed: the registry has changed (site-updates.js schedules a diff); settled: a
   *   tab's look has ended (calls waiting for its tools look again: tool-waits.js)
   */
  constructor({ chrome, registry, loads, debuggers, focus, changed, settled, log }) {
    this.settled = settled ?? (() => {});
    /** @type {Set<number>} tabs whose skills are being looked at */
    this._looking = new Set();
    /** @type {Set<() => void>} calls waiting for a look to end */
    this._lookWaiters = new Set();
    this.chrome = chrome;
    this.registry = registry;
    this.loads = loads;
    this.debuggers = debuggers;
    this.focus = focus;
    this.changed = changed;
    this.log = log;
    /** @type {any[]} the enabled skills, as the host sent them */
    this.list = [];
    /** @type {Map<number, TabSkills>} */
    this.tabs = new Map();
    /**
     * Skill calls running (or waiting for their tab's look), by call id; done: the call's one
     * answer (site-calls.js sends it back the way the call came).
     * @type {Map<string, {ac: AbortController, timer?: ReturnType<typeof setTimeout>, tabId: number, done: (result: any) => void}>}
     */
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
      this._lookEnded(tabId);
    });
  }

  /** The host's skills (`docs` of kind `skills`): the new list; every open tab is looked at again. @param {any} docs */
  update(docs) {
    const list = Array.isArray(docs) ? docs : [];
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

  /** Whether the tab's skills are being looked at (a look running, or a health check to retry). @param {number} tabId */
  looking(tabId) {
    return this._looking.has(tabId);
  }

  /**
   * Matches the tab's URL against the skills, checks the matching ones' health in its page and
   * puts the tools of the healthy ones into the registry (a skill of higher priority first; a
   * name one skill took is not taken again).
   * @param {number} tabId @param {chrome.tabs.Tab} [known] @param {number} [attempt]
   */
  async evaluate(tabId, known, attempt = 0) {
    const gen = ++this._gen;
    this._latest.set(tabId, gen);
    this._looking.add(tabId);
    let retrying = false;
    try {
      retrying = await this._look(tabId, known, attempt, gen);
    } finally {
      // The newest look ends the tab's looking, unless it will look again (a failed health check).
      if (this._latest.get(tabId) === gen && !retrying) this._lookEnded(tabId);
    }
  }

  /** The tab's looking is over: calls waiting for its verdict go on. @param {number} tabId */
  _lookEnded(tabId) {
    this._looking.delete(tabId);
    for (const fn of [...this._lookWaiters]) fn();
    this.settled();
  }

  /**
   * Until the tab's skills have been looked at (no look running or due), or `ms` has passed.
   * @param {number} tabId @param {number} ms
   */
  _lookDone(tabId, ms) {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this._lookWaiters.delete(check);
        resolve(undefined);
      };
      const check = () => {
        if (!this._looking.has(tabId)) done();
      };
      const timer = setTimeout(done, ms);
      this._lookWaiters.add(check);
      check();
    });
  }

  /**
   * One look at the tab (evaluate). @param {number} tabId @param {chrome.tabs.Tab|undefined} known
   * @param {number} attempt @param {number} gen @returns {Promise<boolean>} whether a retry is due
   */
  async _look(tabId, known, attempt, gen) {
    const tab = known?.url ? known : await this.chrome.tabs.get(tabId).catch(() => null);
    const url = tab?.url ?? '';
    const site = siteOf(url);
    const matching = site ? skillsForUrl(this.list, url) : [];
    const prev = this.tabs.get(tabId);
    if (!matching.length) {
      if (prev) {
        this.tabs.delete(tabId);
        this._publish(tabId, url, tab?.windowId, []);
      }
      return false;
    }
    const mark = this.loads.mark(tabId);
    /** @type {TabSkills} */
    const entry = { url, gen, defs: new Map(), status: [] };
    let unhealthy = false;
    for (const skill of matching) {
      const health = await this._health(tabId, skill);
      if (this._latest.get(tabId) !== gen) return false; // a newer look at this tab began meanwhile
      const names = [];
      if (health.healthy) {
        for (const tool of skill.tools) {
          if (typeof tool?.name !== 'string' || entry.defs.has(tool.name)) continue;
          entry.defs.set(tool.name, { skill, tool });
          names.push(tool.name);
        }
      } else {
        unhealthy = true;
        // Healthy on this tab's last page and about to be checked again (pages render late):
        // its tools stay meanwhile, so they do not vanish from clients between two pages; a
        // call to one waits for the verdict (run()).
        if (attempt < HEALTH_RETRIES_MS.length) {
          for (const [name, def] of prev?.defs ?? []) {
            if (def.skill.name === skill.name && !entry.defs.has(name)) entry.defs.set(name, def);
          }
        }
      }
      entry.status.push({ skill: skill.name, matched: true, healthy: health.healthy, ...(health.reason ? { reason: health.reason } : {}), tools: names });
    }
    const now = await this.chrome.tabs.get(tabId).catch(() => null);
    if (!now || now.url !== url || this._latest.get(tabId) !== gen) return false; // the tab moved on: its own load brings a new look
    // A load began while we looked (even of the same URL): what the health check saw, or could
    // not see, was the page going away. Its load's own look decides; the tools stay till then.
    const load = this.loads.get(tabId);
    if (load.starts !== mark.starts || load.loading) return false;
    this.tabs.set(tabId, entry);
    this._publish(tabId, url, now.windowId, [...entry.defs.values()].map(({ skill, tool }) => toolDef(skill, tool)));
    if (unhealthy && attempt < HEALTH_RETRIES_MS.length) {
      setTimeout(() => {
        if (this.tabs.get(tabId) === entry) void this.evaluate(tabId, undefined, attempt + 1);
        else if (this._latest.get(tabId) === gen) this._lookEnded(tabId);
      }, HEALTH_RETRIES_MS[attempt]);
      return true;
    }
    return false;
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
      const value = await runSkillTool(tool, args, skillIo(tabId, ac.signal, this), { site, pageUrl: url, signal: ac.signal });
      return { ...out, ok: true, value: value ?? null };
    } catch (e) {
      return { ...out, ok: false, error: { code: String(e?.code ?? 'page_error'), message: String(e?.message ?? e).slice(0, 4000) } };
    } finally {
      clearTimeout(timer);
    }
  }

  // --- calls ------------------------------------------------------------------------------------

  /**
   * A call the registry routed to a tab's skill tool; answered exactly once, to `done`.
   * @param {import('../lib/protocol.js').CallMsg} msg
   * @param {{tabId: number, windowId: number|undefined}} route
   * @param {(result: any) => void} done
   */
  run(msg, route, done) {
    const { id } = msg;
    const { tabId } = route;
    if (!this._looking.has(tabId)) return this._start(msg, route, done);
    // The tab's page is being checked (it has just loaded): run on its verdict. The wait counts
    // against the call's timeout; a cancel meanwhile answers at once.
    const t0 = Date.now();
    const ac = new AbortController();
    this.pending.set(id, { ac, tabId, done });
    void this._lookDone(tabId, Math.min(msg.timeout_ms, LOOK_WAIT_MS)).then(() => {
      if (this.pending.get(id)?.ac !== ac) return; // cancelled, or the tab closed
      this.pending.delete(id);
      this._start({ ...msg, timeout_ms: Math.max(1, msg.timeout_ms - (Date.now() - t0)) }, route, done);
    });
  }

  /**
   * Runs the call now, with the tab's tools of now.
   * @param {import('../lib/protocol.js').CallMsg} msg @param {{tabId: number, windowId: number|undefined}} route
   * @param {(result: any) => void} done
   */
  _start(msg, route, done) {
    const { id } = msg;
    const { tabId } = route;
    const def = this.tabs.get(tabId)?.defs.get(msg.tool);
    if (!def) return done(errorResult(id, 'not_found', this._missing(msg.site, msg.tool, tabId), tabId));
    const ac = new AbortController();
    const timer = setTimeout(() => {
      ac.abort();
      this._finish(id, errorResult(id, 'timeout', timeoutText('The skill tool', msg.timeout_ms), tabId));
    }, msg.timeout_ms);
    this.pending.set(id, { ac, timer, tabId, done });
    this.focus.bring(tabId, route.windowId);
    const pageUrl = this.tabs.get(tabId)?.url ?? '';
    runSkillTool(def.tool, /** @type {Record<string, unknown>} */ (msg.args ?? {}), skillIo(tabId, ac.signal, this), { site: msg.site, pageUrl, signal: ac.signal }).then(
      (value) => this._finish(id, frameResultToHost(id, { ok: true, value: value ?? null }, tabId, msg.max_bytes)),
      (e) => this._finish(id, errorResult(id, e instanceof StepError ? /** @type {any} */ (e.code) : 'page_error',
        `Skill ${def.skill.name}, tool ${msg.tool}: ${String(e?.message ?? e).slice(0, 4000)}`, tabId)),
    );
  }

  /** Why the tab has no skill tool `tool`: its skill failed its health check there, or none has it. */
  _missing(site, tool, tabId) {
    const entry = this.tabs.get(tabId);
    const failed = entry?.status.find((st) => !st.healthy && this.list.some((sk) => sk.name === st.skill && sk.tools.some((t) => t?.name === tool)));
    if (failed) return `${site} has no skill tool named "${tool}" right now: skill ${failed.skill} does not fit this page (${failed.reason ?? 'its health check failed'}).`;
    return `${site} has no skill tool named "${tool}" right now.`;
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
    call.done(result);
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
