// Browser tools: the worker side of `browser_call` messages from the host.
// Each MCP session (the host's entry connection id) works in its own tabs, grouped and named
// after its client; the side panel's agent uses the session id `panel`, which means "the tab the
// user is looking at" (or `tab_id` when the call names one). Answers are `result` messages like
// a site tool's: `value` is JSON text (a string for text, MCP content for screenshots).
//
// Reading a page (snapshot, text, waiting) runs in the page via chrome.scripting; acting like a
// user (mouse, keyboard, screenshots, files) goes through chrome.debugger, attached on demand.

import { browserLabel } from '../lib/browser.js';
import { browserName, toolUnavailable } from '../lib/browser-support.js';
import { Debuggers } from './cdp.js';
import { ToolError } from './page-calls.js';
import { PAGE_TOOLS } from './page-actions.js';
import { TAB_TOOLS } from './tab-tools.js';
import { newRecord, RECORDER_TOOLS, SkillRecorder, withRecord } from './skill-recorder.js';
import { SessionTabs } from './session-tabs.js';
import { TabLoads } from './tab-loads.js';
import {
  BROWSER_TOOLS, DEFAULT_TIMEOUT_MS, ERROR_TEXTS, MAX_BROWSER_TIMEOUT_MS as MAX_TIMEOUT_MS, PANEL_SESSION,
  timeoutText,
} from '../lib/protocol.js';

/** How many files one upload may set (tools/browser_tools.py). */
const MAX_UPLOAD_FILES = BROWSER_TOOLS.upload_file.inputSchema.properties.paths.maxItems;

/**
 * Uploads: the host checks each file against the folders the user allowed (and resolves links)
 * before it sends the call; this is the last line, on the paths' spelling alone, for a call
 * that skipped that check: full paths only, no `..`, no dotfile or hidden folder anywhere.
 * @param {unknown} paths
 * @returns {string|null} why the call is refused, or null
 */
export function uploadPathProblem(paths) {
  if (!Array.isArray(paths) || !paths.length || paths.length > MAX_UPLOAD_FILES) {
    return `Give 1 to ${MAX_UPLOAD_FILES} files in \`paths\`.`;
  }
  for (const p of paths) {
    if (typeof p !== 'string' || !p || p.length > 4096 || p.includes('\0')) return 'Each path must be a file\'s full path.';
    const absolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
    const parts = p.split(/[\\/]+/).filter(Boolean);
    if (!absolute) return `\`${p.slice(0, 300)}\` is not an absolute path.`;
    if (parts.some((part) => part.startsWith('.'))) {
      return `\`${p.slice(0, 300)}\` is refused: dotfiles, hidden folders and \`..\` are never uploaded.`;
    }
  }
  return null;
}

/** The side panel's agent (`PANEL_SESSION`): acts on the active tab, owns no tabs, has no group. */
export { PANEL_SESSION };
/** What extension pages (the side panel) may ask: see docs/BROWSER_TOOLS.md. */
const PANEL_MESSAGES = new Set(['sessions', 'session_focus', 'session_close_tabs']);
/** Record of a call that never found its tab (refused early). */
const NO_TAB = Object.freeze({ tabId: null, url: '' });
const noop = () => {};

/**
 * @typedef {import('../lib/sessions.js').Session} Session
 * @typedef {{id: string, session: string, tool: string, panel: boolean, s: Session|null,
 *   args: any, tabIdArg: number|null, deadline: number, rec: import('./skill-recorder.js').CallRecord}} CallCtx
 * @typedef {{debuggers: Debuggers, loads: TabLoads, sessions: SessionTabs, recorder: SkillRecorder,
 *   refBase: Map<number, number>, lastAction: Map<string, {tabId: number, mark: {starts: number, loads: number}}>,
 *   target: (ctx: CallCtx) => Promise<chrome.tabs.Tab>, remaining: (ctx: CallCtx) => number,
 *   noteAction: (ctx: CallCtx, tabId: number) => {starts: number, loads: number}}} Env
 * @typedef {{run: (env: Env, ctx: CallCtx) => Promise<unknown>}} BrowserTool
 */

/**
 * @param {{send: (msg: any) => boolean, log?: (level: 'debug'|'info'|'warning'|'error', message: string) => void}} worker
 *   send: to the host (the worker's send, which splits big messages)
 */
export function installBrowserTools({ send, log = noop }) {
  /** @type {ReturnType<typeof setTimeout>|null} */
  let changeTimer = null;
  const onChange = () => {
    // Extension pages (the side panel) redraw their sessions list; nobody listening is fine.
    if (changeTimer) return;
    changeTimer = setTimeout(() => {
      changeTimer = null;
      chrome.runtime.sendMessage({ type: 'sessions_changed' }).catch(noop);
    }, 100);
  };
  const debuggers = new Debuggers();
  const loads = new TabLoads();
  const sessions = new SessionTabs({ send, onChange });
  const recorder = new SkillRecorder();
  /** @type {Map<string, {done: boolean, timer: ReturnType<typeof setTimeout>, tabId: number|null}>} */
  const calls = new Map();
  chrome.tabs.onRemoved.addListener((tabId) => {
    debuggers.tabClosed(tabId);
    env.refBase.delete(tabId);
  });

  /** @type {Env} */
  const env = {
    debuggers, loads, sessions, recorder, refBase: new Map(), lastAction: new Map(),
    target: (ctx) => target(ctx),
    remaining: (ctx) => Math.max(0, ctx.deadline - Date.now()),
    noteAction(ctx, tabId) {
      const mark = loads.mark(tabId);
      env.lastAction.set(ctx.session, { tabId, mark });
      return mark;
    },
  };

  /** The tab a call acts on (its result names it): the session's current tab, or the panel's. */
  async function target(ctx) {
    const tab = await findTarget(ctx);
    const entry = calls.get(ctx.id);
    if (entry && tab.id !== undefined) entry.tabId = tab.id;
    if (ctx.rec.tabId === null && tab.id !== undefined) Object.assign(ctx.rec, { tabId: tab.id, url: tab.url ?? tab.pendingUrl ?? '' });
    return tab;
  }

  /** @param {CallCtx} ctx */
  async function findTarget(ctx) {
    if (ctx.panel) {
      /** @type {chrome.tabs.Tab|null} */
      let tab = null;
      if (ctx.tabIdArg !== null) {
        tab = await chrome.tabs.get(ctx.tabIdArg).catch(() => null);
        if (!tab) throw new ToolError('tab_closed', `Tab ${ctx.tabIdArg} is not open any more.`);
      } else {
        [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
        if (!tab) throw new ToolError('no_tab', 'No tab is open in the browser window.');
      }
      return tab;
    }
    const s = /** @type {Session} */ (ctx.s);
    const closed = sessions.table.takeClosed(s.id);
    if (closed) {
      const what = `Your tab ${closed.tabId}${closed.title ? ` ("${closed.title.slice(0, 80)}")` : ''} was closed (by the user or the page)` +
        `${closed.url ? `; it showed ${closed.url.slice(0, 300)}` : ''}.`;
      const reopen = closed.url && /^(https?|file):/.test(closed.url)
        ? `reopen it with browser_navigate (url: "${closed.url.slice(0, 300)}")` : 'open a page with browser_navigate';
      throw new ToolError('tab_closed', s.current !== null
        ? `${what} Your calls now go to your other tab ${s.current}: repeat the call to act there, or ${reopen}.`
        : `${what} You have no tab now: to carry on, ${reopen}.`);
    }
    if (s.current === null) {
      throw new ToolError('no_tab', 'You have no tab open yet. Open a page with browser_navigate (url), or take an open tab with browser_tabs and browser_tab_select.');
    }
    const tab = await chrome.tabs.get(s.current).catch(() => null);
    if (!tab) {
      const gone = s.current;
      sessions.table.removeTab(gone);
      sessions.table.takeClosed(s.id);
      sessions.notify(s.id);
      throw new ToolError('tab_closed', `Your tab ${gone} was closed. ${s.current !== null ? `Your calls now go to your tab ${s.current}; repeat the call.` : 'Open a page with browser_navigate to carry on.'}`);
    }
    return tab;
  }

  // --- calls ----------------------------------------------------------------------------------

  /** @param {any} msg a `browser_call` */
  async function onCall(msg) {
    const id = msg.id;
    if (typeof id !== 'string' || !id) return log('warning', 'ignored a browser_call without an id');
    if (calls.has(id)) return log('warning', `ignored a second browser_call with id ${id}`);
    const timeoutMs = Number.isFinite(msg.timeout_ms) && msg.timeout_ms > 0 ? Math.min(msg.timeout_ms, MAX_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
    const entry = { done: false, timer: /** @type {any} */ (null), tabId: /** @type {number|null} */ (null) };
    calls.set(id, entry);
    /** @type {any} the call's record, for drafts and the log (set once the call runs) */
    let rec = NO_TAB;
    const finish = (result) => {
      if (entry.done) return;
      entry.done = true;
      clearTimeout(entry.timer);
      calls.delete(id);
      withRecord(id, rec, () => send(result));
    };
    const fail = (code, message) => finish({ type: 'result', id, ok: false, error: { code, message }, tab_id: entry.tabId });
    entry.timer = setTimeout(() => fail('timeout', timeoutText('The browser tool', timeoutMs)), timeoutMs);

    const tool = TOOLS[msg.tool];
    if (typeof msg.session !== 'string' || !msg.session) return fail('bad_request', 'browser_call without a session');
    if (!tool) return fail('not_found', `There is no browser tool "${String(msg.tool).slice(0, 60)}". Browser tools: ${Object.keys(TOOLS).join(', ')}.`);
    if (msg.args !== undefined && msg.args !== null && (typeof msg.args !== 'object' || Array.isArray(msg.args))) {
      return fail('invalid_args', 'The arguments must be a JSON object.');
    }
    const unavailable = toolUnavailable(msg.tool, !!chrome.debugger, browserName(browserLabel(globalThis.navigator?.userAgent ?? '')));
    if (unavailable) return fail('bad_request', unavailable);
    if (msg.tool === 'upload_file') {
      const refused = uploadPathProblem(msg.args?.paths);
      if (refused) return fail('invalid_args', refused);
    }
    const panel = msg.session === PANEL_SESSION;
    const s = panel ? null : sessions.table.ensure(msg.session);
    if (s) sessions.table.touch(s.id, msg.tool);
    /** @type {CallCtx} */
    const ctx = {
      id, session: msg.session, tool: msg.tool, panel, s, args: msg.args ?? {},
      tabIdArg: panel && Number.isInteger(msg.tab_id) ? msg.tab_id : null, deadline: Date.now() + timeoutMs,
      rec: newRecord(),
    };
    /** Recorded (skill-recorder.js) with the page the call left, before its result goes. */
    const record = async (ok) => {
      if (entry.done) return;
      const tab = ctx.rec.tabId === null ? null : await chrome.tabs.get(ctx.rec.tabId).catch(() => null);
      rec = { ...ctx.rec, urlAfter: tab?.url ?? '' };
      recorder.add(ctx.session, msg.tool, ctx.args, ok, rec);
    };
    try {
      const value = await tool.run(env, ctx);
      if (s) sessions.onChange();
      await record(true);
      finish({ type: 'result', id, ok: true, value: JSON.stringify(value ?? null), tab_id: entry.tabId });
    } catch (e) {
      await record(false).catch(noop);
      if (e instanceof ToolError) return fail(e.code, e.message);
      log('error', `browser tool ${msg.tool} failed: ${e?.stack ?? e}`);
      fail('internal', `The browser tool ${msg.tool} failed: ${e?.message ?? e}`);
    }
  }

  function onCancel(id) {
    const entry = calls.get(id);
    if (!entry) return false;
    if (!entry.done) {
      entry.done = true;
      clearTimeout(entry.timer);
      calls.delete(id);
      send({ type: 'result', id, ok: false, error: { code: 'cancelled', message: ERROR_TEXTS.cancelled }, tab_id: entry.tabId });
    }
    return true;
  }

  // --- the side panel's view ------------------------------------------------------------------

  async function sessionsState() {
    const all = await chrome.tabs.query({});
    const byId = new Map(all.map((t) => [t.id, t]));
    return {
      sessions: [...sessions.table.sessions.values()].map((s) => ({
        id: s.id, client: s.client, title: s.title, color: s.color, groupId: s.groupId, current: s.current,
        started: s.started, lastActivity: s.lastActivity, lastTool: s.lastTool,
        tabs: s.tabs.map((t) => byId.get(t)).filter((t) => t !== undefined).map((t) => ({
          id: t.id, title: t.title ?? '', url: t.url ?? t.pendingUrl ?? '', active: t.active, windowId: t.windowId,
        })),
      })),
      debuggerAttached: debuggers.attachedTabs(),
    };
  }

  /**
   * The side panel's Sessions view (`sessions`, `session_focus`, `session_close_tabs`), routed
   * here by routes.js from chrome.runtime.onMessage; true when `sendResponse` will be called.
   * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} sendResponse
   */
  function onPanelRequest(msg, sender, sendResponse) {
    if (!PANEL_MESSAGES.has(msg?.type)) return false; // routes.js let only our own pages through
    if (msg?.type === 'sessions' && typeof msg.calls === 'string') {
      // A session's recorded browser calls ("Save as skill" in the Sessions view); typed text masked.
      sendResponse({ calls: recorder.shown(msg.calls) });
      return false;
    }
    if (msg?.type === 'sessions') {
      sessionsState().then(sendResponse, (e) => sendResponse({ error: String(e?.message ?? e) }));
      return true;
    }
    if (msg?.type === 'session_focus' && Number.isInteger(msg.tabId)) {
      chrome.tabs.update(msg.tabId, { active: true })
        .then((tab) => tab && chrome.windows.update(tab.windowId, { focused: true }))
        .then(() => sendResponse({ ok: true }), (e) => sendResponse({ ok: false, error: String(e?.message ?? e) }));
      return true;
    }
    if (msg?.type === 'session_close_tabs' && typeof msg.session === 'string') {
      const s = sessions.table.get(msg.session);
      const tabs = s ? [...s.tabs] : [];
      for (const t of tabs) sessions.release(msg.session, t);
      chrome.tabs.remove(tabs).then(() => sendResponse({ ok: true, closed: tabs.length }),
        (e) => sendResponse({ ok: false, error: String(e?.message ?? e) }));
      return true;
    }
    return false;
  }

  return {
    /** Host messages this module takes: true when it took it. */
    onHostMessage(raw) {
      switch (raw?.type) {
        case 'browser_call': void onCall(raw); return true;
        case 'session':
          if (typeof raw.session === 'string' && raw.session && raw.session !== PANEL_SESSION) {
            sessions.start(raw.session, String(raw.client ?? '')).catch((e) => log('warning', `session start failed: ${e?.message ?? e}`));
          }
          return true;
        case 'session_end':
          if (typeof raw.session === 'string') sessions.end(raw.session);
          return true;
        case 'cancel': return onCancel(raw.id);
        default: return false;
      }
    },
    onPanelRequest,
    sessionsState,
    sessions,
    recorder,
    debuggers,
    loads,
  };
}

export const TOOLS = { ...TAB_TOOLS, ...PAGE_TOOLS, ...RECORDER_TOOLS };
