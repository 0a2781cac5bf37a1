// Browser tools that manage tabs and their pages' history: list, open, select, close, navigate,
// back, forward, reload (page-actions.js has the tools that act in a page). Each runs on the
// session's own tabs (browser-tools.js has the sessions, the calls and their context).

import { checkScriptable, inPage, ToolError } from './page-calls.js';
import { navigableUrl } from '../lib/tab-urls.js';

/**
 * @typedef {import('./browser-tools.js').Env} Env
 * @typedef {import('./browser-tools.js').CallCtx} CallCtx
 * @typedef {import('./browser-tools.js').BrowserTool} BrowserTool
 * @typedef {import('../lib/sessions.js').Session} Session
 */

const NAV_TIMEOUT_MS = 30_000;
const noop = () => {};

const describeTab = (t) => `tab ${t.id} ("${(t.title || '').slice(0, 80)}", ${(t.url || t.pendingUrl || '').slice(0, 300)})`;

/** Waits for a navigation the call started, and words the outcome. */
async function settle(env, ctx, tabId, mark, verb) {
  const timeoutMs = Math.max(0, Math.min(env.remaining(ctx) - 500, NAV_TIMEOUT_MS));
  const how = await env.loads.waitLoaded(tabId, mark, { timeoutMs, startWithinMs: 3_000 });
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) throw new ToolError('tab_closed', 'The tab closed while its page was loading.');
  if (how === 'timeout') return `${verb} ${describeTab(tab)}; it is still loading after ${Math.round(timeoutMs / 1000)} s, so it may be incomplete.`;
  // The browser's error page cannot be scripted: that is how a failed load shows.
  try {
    await inPage(tabId, 'info');
  } catch (e) {
    if (e instanceof ToolError && /error page/i.test(e.message)) throw new ToolError('page_error', e.message);
  }
  return `${verb} ${describeTab(tab)}.`;
}

/** @param {Env} env @param {CallCtx} ctx @param {string} url */
async function openInSession(env, ctx, url) {
  if (ctx.panel) {
    const tab = await chrome.tabs.create({ url, active: true });
    return /** @type {chrome.tabs.Tab} */ (tab);
  }
  return env.sessions.open(/** @type {Session} */ (ctx.s).id, url);
}

/** @type {Record<string, BrowserTool>} */
export const TAB_TOOLS = {
  tabs: {
    async run(env, ctx) {
      const all = await chrome.tabs.query({});
      const mine = ctx.s;
      const active = ctx.panel ? (await chrome.tabs.query({ active: true, lastFocusedWindow: true }))[0]?.id ?? null : null;
      return {
        session: mine ? mine.title : 'side panel',
        current: mine ? mine.current : active,
        tabs: all.map((t) => {
          const owner = t.id === undefined ? null : env.sessions.table.ownerOf(t.id);
          return {
            id: t.id, title: (t.title ?? '').slice(0, 200), url: (t.url || t.pendingUrl || '').slice(0, 500), active: t.active,
            owner: owner ? (mine && owner.id === mine.id ? 'you' : owner.title) : null,
          };
        }),
      };
    },
  },

  tab_open: {
    async run(env, ctx) {
      let url = 'about:blank';
      if (ctx.args.url !== undefined) {
        const u = navigableUrl(ctx.args.url);
        if ('error' in u) throw new ToolError('invalid_args', u.error);
        url = u.url;
      }
      const tab = await openInSession(env, ctx, url);
      if (url === 'about:blank') return `Opened a new empty tab ${tab.id}${ctx.s ? ' in your tab group; it is now your current tab' : ''}. Use browser_navigate to load a page in it.`;
      return settle(env, ctx, /** @type {number} */ (tab.id), { starts: 0, loads: 0 },
        `Opened a new tab${ctx.s ? ' in your tab group (now your current tab):' : ':'}`);
    },
  },

  tab_select: {
    async run(env, ctx) {
      const tabId = ctx.args.tab_id;
      if (!Number.isInteger(tabId)) throw new ToolError('invalid_args', 'Give the tab\'s id in `tab_id` (browser_tabs lists them).');
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      if (!tab) throw new ToolError('not_found', `There is no tab ${tabId} (it may have been closed). browser_tabs lists the open ones.`);
      if (ctx.s) {
        const owner = env.sessions.table.ownerOf(tabId);
        if (owner && owner.id !== ctx.s.id && ctx.args.take_over !== true) {
          throw new ToolError('invalid_args', `Tab ${tabId} belongs to another MCP session ("${owner.title}"), whose agent may be using it. ` +
            'Leave it alone, or pass take_over: true to take it over.');
        }
        await env.sessions.adopt(ctx.s.id, tabId);
      }
      await chrome.tabs.update(tabId, { active: true }).catch(noop);
      return `Selected ${describeTab(tab)}: ${ctx.s ? 'browser tools now act on it' : 'it is now in front'}.`;
    },
  },

  tab_close: {
    async run(env, ctx) {
      let tabId = ctx.args.tab_id;
      if (tabId === undefined) tabId = (await env.target(ctx)).id;
      if (!Number.isInteger(tabId)) throw new ToolError('invalid_args', '`tab_id` must be a tab id from browser_tabs.');
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      if (!tab) throw new ToolError('not_found', `There is no tab ${tabId} (already closed?). browser_tabs lists the open ones.`);
      if (ctx.s) {
        const owner = env.sessions.table.ownerOf(tabId);
        if (!owner || owner.id !== ctx.s.id) {
          throw new ToolError('invalid_args', `Tab ${tabId} is not one of your tabs (${owner ? `it belongs to the MCP session "${owner.title}"` : 'it is the user\'s'}), so it stays open. ` +
            'Close only your own tabs; browser_tabs shows which are yours.');
        }
        env.sessions.release(ctx.s.id, tabId);
      }
      await chrome.tabs.remove(tabId);
      const s = ctx.s;
      return `Closed ${describeTab(tab)}.${s ? (s.current !== null ? ` Your current tab is now ${s.current}.` : ' You have no tab open now.') : ''}`;
    },
  },

  navigate: {
    async run(env, ctx) {
      const u = navigableUrl(ctx.args.url);
      if ('error' in u) throw new ToolError('invalid_args', u.error);
      const s = ctx.s;
      if (s && s.current === null) {
        // No tab yet (or its last one was closed): the page opens in a new tab of its group.
        const closed = env.sessions.table.takeClosed(s.id);
        const tab = await openInSession(env, ctx, u.url);
        env.noteAction(ctx, /** @type {number} */ (tab.id));
        ctx.rec.tabId = tab.id ?? null;
        return settle(env, ctx, /** @type {number} */ (tab.id), { starts: 0, loads: 0 },
          closed ? 'Your tab had been closed, so opened a new one in your tab group and loaded' : 'Opened a new tab in your tab group and loaded');
      }
      const tab = await env.target(ctx);
      const tabId = /** @type {number} */ (tab.id);
      const mark = env.noteAction(ctx, tabId);
      await chrome.tabs.update(tabId, { url: u.url });
      return settle(env, ctx, tabId, mark, 'Loaded');
    },
  },

  back: historyTool('back'),
  forward: historyTool('forward'),
  reload: historyTool('reload'),
};

/** @param {'back'|'forward'|'reload'} dir @returns {BrowserTool} */
function historyTool(dir) {
  return {
    async run(env, ctx) {
      const tab = await env.target(ctx);
      const tabId = /** @type {number} */ (tab.id);
      checkScriptable(tab);
      const mark = env.noteAction(ctx, tabId);
      try {
        if (dir === 'back') await chrome.tabs.goBack(tabId);
        else if (dir === 'forward') await chrome.tabs.goForward(tabId);
        else await chrome.tabs.reload(tabId);
      } catch (e) {
        const m = String(e?.message ?? e);
        if (/Cannot find a (next|previous) page/i.test(m)) {
          throw new ToolError('invalid_args', `There is no ${dir === 'back' ? 'earlier' : 'later'} page in this tab's history.`);
        }
        throw new ToolError('page_error', `Could not go ${dir}: ${m}`);
      }
      return settle(env, ctx, tabId, mark, dir === 'reload' ? 'Reloaded' : `Went ${dir} to`);
    },
  };
}

/** Every browser tool by its wire name (the MCP name is `browser_` + this). */
