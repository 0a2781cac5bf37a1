// AI chat websites (docs/CHAT_SITES.md): the host's adapters, matched against tabs; on a tab of a
// site an adapter names, the chat toolbar (isolated world, page/chat/) is offered, and only once
// the user turned tools on for that site does the MAIN-world hook (page/chat/hook.js) go in. The
// page asks on its port (`webmcp-chat`) for its state and to run the calls its chat's model made:
// tools of open WebMCP sites and skills (the registry; run like the Inspector's calls, id `c.N`),
// and the user's local MCP servers' tools (through the host: `chat_server_call`). Every call is in
// the operation log with the chat site as its caller. Per site, kept in chrome.storage.local:
// enabled, the chosen tools, auto-run for read-only tools, the tools allowed to run without
// asking (any tool, one by one), auto-send of results. Auto-run believes a tool's `readOnlyHint`
// only from a source the user trusts: local MCP servers and skills the user installed; a web
// page's word about its own tools runs nothing without a click (the user may allow that tool). The side panel's Chat sites view reads and
// sets them with runtime messages (`chat_sites_state`, `chat_sites_tools`, `chat_sites_set`;
// extension pages only: routes.js checks).

import { calls, CHAT_LIB_FILES } from '../lib/chat/index.js';
import { callId, CALLER_CHAT } from '../lib/call-ids.js';
import { CHAT_PORT_NAME, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../lib/protocol.js';
import { siteOf } from '../lib/site.js';
import { isPublicSuffix } from '../lib/public-suffix.js';
import { localReply } from './reply.js';

export { CHAT_PORT_NAME };
const STORE_KEY = 'chatSites.prefs';
// generated-limits.js first: main.js takes its port's name from it (a tab open from before the
// install may not have the content scripts yet).
const ISOLATED_FILES = [
  'page/isolated/generated-limits.js', ...CHAT_LIB_FILES, 'page/chat/ui.js', 'page/chat/input.js', 'page/chat/main.js',
];
const HOOK_FILE = 'page/chat/hook.js';
const CALL_TIMEOUT_MS = DEFAULT_TIMEOUT_MS; // as an MCP client's call (wire/messages.py ChatServerCall)
const SERVER_TOOLS_TTL_MS = 30_000;
const MAX_CHOSEN = 64;
const MAX_ADAPTERS = 200;
const MAX_SITE = 300;
const VERIFIED_EVERY_MS = 60_000;

/**
 * @typedef {{enabled: boolean, chosen: string[], autoRun: boolean, autoSend: boolean, allowed: string[]}} Prefs
 *   allowed: tools (keys) that run without asking, whatever they do
 * @typedef {{key: string, where: string, tool: string, kind: 'site'|'mcp', description: string,
 *   inputSchema: any, readOnly: boolean, trusted: boolean}} Offered
 *   trusted: its hints come from a source the user trusts (a local server, an installed skill),
 *   not from a web page
 */

/**
 * A page's `host[:port]` against an adapter's hostname (`*.x` = x and its subdomains). A public
 * suffix (`com`, `*.co.uk`) matches nothing: the host refuses it, this is for a file that skipped that.
 */
export function hostMatches(pattern, host) {
  const [name, port = ''] = host.split(':');
  const [pname, pport = ''] = pattern.split(':');
  if (pport && pport !== port) return false;
  if (isPublicSuffix(pname.startsWith('*.') ? pname.slice(2) : pname)) return false;
  return pname.startsWith('*.') ? name === pname.slice(2) || name.endsWith(pname.slice(1)) : name === pname;
}

/**
 * Loopback hosts: nobody on the network can answer for them, so plain http is allowed there
 * (local chat UIs, the tests' replicas). Anywhere else an adapter acts on https only: a plain-http
 * page of a chat site's host may be a network attacker's, and must not get its settings.
 */
const LOOPBACK = /^(localhost|[^:]*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The origin a chat page's settings belong to, for an http(s) URL that may carry them: an https
 * one, or http on a loopback host; else null. Settings are keyed by `host[:port]` (siteOf), which
 * with this names exactly one origin. @param {string} url
 */
export function chatOrigin(url) {
  let u;
  try { u = new URL(url); } catch { return null; }
  if (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.test(u.hostname))) return u.origin;
  return null;
}

/** Read-only as the confirm policy counts it: said so, and not said to change things. */
const readOnly = (a) => a?.readOnlyHint === true && a?.destructiveHint !== true && a?.consequentialHint !== true;

/**
 * Whether a call of this tool runs without the user's click: read-only ones (by hints from a
 * trusted source) when the site allows that, any other only when the user allowed that very tool.
 * @param {Prefs} p @param {{key: string, readOnly: boolean, trusted: boolean}} t
 */
export const autoRuns = (p, t) => (p.autoRun && t.readOnly && t.trusted) || p.allowed.includes(t.key);

export class ChatSites {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   registry: import('../lib/registry.js').Registry,
   *   runCall: (msg: any, reply: import('./reply.js').Reply) => void,
   *   send: (msg: any) => boolean,
   *   logCall: (id: string, caller: {kind: 'chat', label: string}, site: string, tool: string, args: any) => void,
   *   logEnd: (id: string, outcome: {ok: boolean, value?: string|null, error?: any}) => void,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   * }} w runCall: a site call routed as if the host had sent it (its result comes to siteResult, by its reply)
   */
  constructor(w) {
    this.w = w;
    /** @type {any[]} */
    this.adapters = [];
    /** @type {Record<string, Prefs>} */
    this.prefs = {};
    this.loaded = w.chrome.storage?.local?.get(STORE_KEY).then((r) => { this.prefs = /** @type {any} */ (r?.[STORE_KEY]) ?? {}; }, () => {});
    /** @type {Set<chrome.runtime.Port>} */
    this.ports = new Set();
    /** @type {Map<string, {port: chrome.runtime.Port, req: unknown}>} calls in flight, by id */
    this.pending = new Map();
    /** @type {Map<string, (raw: any) => void>} server tool lists asked for, by id */
    this.asked = new Map();
    this.seq = 0;
    /** @type {{at: number, tools: Record<string, any[]>}|null} */
    this.serverTools = null;
    /** @type {Map<string, number>} when each adapter's last good round trip was sent to the host */
    this.verifiedSent = new Map();
    /** @type {Map<string, {at: string, reason: string, adapter: string}>} by site: the adapter seen not matching */
    this.stale = new Map();
    w.chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
      if (change.status === 'complete' && tab?.url) void this.offer(tabId, tab.url);
    });
  }

  // --- the host --------------------------------------------------------------------------------

  /** The enabled adapters (`docs` of kind `chat_sites`); tabs open on their sites get the toolbar now. @param {any} docs */
  async update(docs) {
    this.adapters = Array.isArray(docs) ? docs.slice(0, MAX_ADAPTERS) : [];
    for (const port of this.ports) this.postState(port);
    const tabs = await this.w.chrome.tabs.query({}).catch(() => []);
    for (const tab of tabs) if (tab.id !== undefined && tab.url) void this.offer(tab.id, tab.url);
  }

  /** `chat_server_result`: a server tool list, or a call's outcome. */
  serverResult(raw) {
    if (typeof raw?.id !== 'string') return;
    const waiter = this.asked.get(raw.id);
    if (waiter) {
      this.asked.delete(raw.id);
      return waiter(raw);
    }
    if (!this.pending.has(raw.id)) return;
    const outcome = { ok: raw.ok === true, value: typeof raw.value === 'string' ? raw.value : null, error: raw.error ?? null };
    this.w.logEnd(raw.id, outcome);
    this.answer(raw.id, outcome);
  }

  /** A site call's `result` (its reply's: run()), for the chat page that asked, if still there. */
  siteResult(msg) {
    if (!this.pending.has(msg?.id)) return;
    this.answer(msg.id, { ok: msg.ok === true, value: msg.value ?? null, error: msg.error ?? null });
  }

  // --- tabs ------------------------------------------------------------------------------------

  /** The adapter for a page URL (https, or http on a loopback host: chatOrigin), or null. */
  adapterFor(url) {
    return this.adaptersFor(url)[0] ?? null;
  }

  /** Every enabled adapter naming a page URL's site (a site may run two apps: Doubao). */
  adaptersFor(url) {
    if (!chatOrigin(url)) return [];
    const host = new URL(url).host;
    return this.adapters.filter((a) => (a.hostnames ?? []).some((h) => hostMatches(h, host)));
  }

  /** A loaded tab of an adapter's site: the toolbar (isolated world), the hook if enabled. */
  async offer(tabId, url) {
    if (!this.adapterFor(url)) return;
    await this.loaded;
    const target = { tabId, frameIds: [0] };
    try {
      await this.w.chrome.scripting.executeScript({ target, files: ISOLATED_FILES });
      if (this.prefsOf(siteOf(url) ?? '').enabled) await this.hook(tabId);
    } catch (e) {
      this.w.log('debug', `chat toolbar not added to tab ${tabId}: ${e?.message ?? e}`);
    }
  }

  /** The MAIN-world hook, only ever for an enabled site (a second copy does nothing). */
  async hook(tabId) {
    await this.w.chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: [HOOK_FILE], world: 'MAIN' });
  }

  // --- the page's port -------------------------------------------------------------------------

  /**
   * Port `webmcp-chat` from a chat page's isolated world, in a tab's top frame (routes.js checked
   * the sender): its site is the tab's, never its word.
   * @param {chrome.runtime.Port} port
   */
  connect(port) {
    this.ports.add(port);
    port.onDisconnect.addListener(() => {
      void this.w.chrome.runtime.lastError;
      this.ports.delete(port);
      for (const [id, p] of this.pending) if (p.port === port) this.pending.delete(id);
    });
    port.onMessage.addListener((msg) => {
      try {
        void this.fromPage(port, msg);
      } catch (e) {
        this.w.log('error', `chat page message failed: ${e?.stack ?? e}`);
      }
    });
  }

  /** The port's site (`host[:port]`, the prefs' key): '' unless its page may have them (chatOrigin). */
  siteOfPort(port) {
    const url = port.sender?.url ?? '';
    return chatOrigin(url) ? siteOf(url) ?? '' : '';
  }

  /** @returns {Prefs} */
  prefsOf(site) {
    const p = this.prefs[site] ?? {};
    const keys = (v) => (Array.isArray(v) ? v.filter((k) => typeof k === 'string') : []);
    return { enabled: p.enabled === true, chosen: keys(p.chosen), autoRun: p.autoRun === true, autoSend: p.autoSend === true, allowed: keys(p.allowed) };
  }

  /**
   * Changes a site's prefs (from its toolbar or the side panel); its open tabs get the hook when
   * tools are on, and their toolbars the new state. @returns {Promise<Prefs>}
   */
  async setPrefs(site, change) {
    await this.loaded;
    const p = this.prefsOf(site);
    for (const k of /** @type {const} */ (['enabled', 'autoRun', 'autoSend'])) if (typeof change?.[k] === 'boolean') p[k] = change[k];
    for (const k of /** @type {const} */ (['chosen', 'allowed'])) {
      if (Array.isArray(change?.[k])) p[k] = [...new Set(change[k].filter((x) => typeof x === 'string' && x.length <= 600))].slice(0, MAX_CHOSEN);
    }
    this.prefs[site] = p;
    await this.w.chrome.storage?.local?.set({ [STORE_KEY]: this.prefs });
    for (const port of this.ports) {
      if (this.siteOfPort(port) !== site) continue;
      if (p.enabled && port.sender?.tab?.id) await this.hook(port.sender.tab.id).catch(() => {});
      await this.postState(port); // before the answer: the panel's next step finds the page told
    }
    return p;
  }

  async fromPage(port, msg) {
    if (!msg || typeof msg !== 'object') return;
    await this.loaded;
    const site = this.siteOfPort(port);
    let adapter = this.adapterFor(port.sender?.url ?? '');
    if (!adapter) return;
    if (msg.type === 'hello' || msg.type === 'refresh') return this.postState(port, msg.type === 'refresh');
    if (msg.type === 'set') return void await this.setPrefs(site, msg);
    if (msg.type === 'run') return this.run(port, site, msg);
    if (msg.type === 'stale') {
      // The page saw the adapter not match (no request for a sent message, an unreadable
      // answer): the side panel's view says so beside the site.
      this.stale.set(site, { at: new Date().toISOString(), reason: String(msg.reason ?? '').slice(0, 300), adapter: adapter.name });
      if (this.stale.size > MAX_ADAPTERS) this.stale.delete(/** @type {string} */ (this.stale.keys().next().value));
      return;
    }
    if (msg.type === 'round_trip') {
      // The adapter whose request it was (one of those naming this tab's site; never the page's pick of another).
      adapter = this.adaptersFor(port.sender?.url ?? '').find((a) => a.name === msg.name) ?? adapter;
      // The adapter's formats matched the live site from a call to the next answer: the host
      // keeps it as the adapter's last good round trip (at most once a minute per adapter).
      this.stale.delete(site);
      const last = this.verifiedSent.get(adapter.name) ?? -Infinity;
      if (Date.now() - last < VERIFIED_EVERY_MS) return;
      this.verifiedSent.set(adapter.name, Date.now());
      this.w.send({ type: 'chat_site_verified', name: adapter.name, host: site });
    }
  }

  /** The tools this chat may be offered: open sites' (with skills) and local servers'. */
  async offered(site, fresh = false) {
    /** @type {Offered[]} */
    const out = [];
    for (const [where, tools] of Object.entries(this.w.registry.snapshot())) {
      if (where === site) continue; // the chat site's own tools are the page's business
      for (const t of tools) {
        out.push({ key: `site:${where}/${t.name}`, where, tool: t.name, kind: 'site', description: t.description ?? '',
          inputSchema: t.inputSchema ?? { type: 'object', properties: {} }, readOnly: readOnly(t.annotations),
          trusted: t.source === 'skill' }); // a page cannot say its tool is a skill (lib/tools.js)
      }
    }
    for (const [server, tools] of Object.entries(await this.listServerTools(site, fresh))) {
      for (const t of Array.isArray(tools) ? tools : []) {
        if (typeof t?.name !== 'string') continue;
        out.push({ key: `mcp:${server}/${t.name}`, where: server, tool: t.name, kind: 'mcp', description: String(t.description ?? ''),
          inputSchema: t.inputSchema ?? { type: 'object', properties: {} }, readOnly: readOnly(t.annotations), trusted: true });
      }
    }
    return out;
  }

  /** The local servers' tools (host), cached a while; {} when there is no host or no server. */
  listServerTools(site, fresh) {
    if (!fresh && this.serverTools && Date.now() - this.serverTools.at < SERVER_TOOLS_TTL_MS) return Promise.resolve(this.serverTools.tools);
    const id = callId(CALLER_CHAT, `t.${++this.seq}`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.asked.delete(id); resolve({}); }, 20_000);
      this.asked.set(id, (raw) => {
        clearTimeout(timer);
        const tools = raw.ok && raw.tools && typeof raw.tools === 'object' ? raw.tools : {};
        this.serverTools = { at: Date.now(), tools };
        resolve(tools);
      });
      if (!this.w.send({ type: 'chat_server_call', id, op: 'tools', site })) {
        this.asked.delete(id);
        clearTimeout(timer);
        resolve({});
      }
    });
  }

  /** The chosen tools with the chat's names for them. */
  async chosenTools(site, fresh = false) {
    const prefs = this.prefsOf(site);
    const all = await this.offered(site, fresh);
    const chosen = all.filter((t) => prefs.chosen.includes(t.key));
    const names = calls.chatNames(chosen);
    return { all, chosen: chosen.map((t, i) => ({ ...t, name: names[i] })) };
  }

  async postState(port, fresh = false) {
    const site = this.siteOfPort(port);
    const adapter = this.adapterFor(port.sender?.url ?? '');
    if (!adapter) return;
    const prefs = this.prefsOf(site);
    const { all, chosen } = await this.chosenTools(site, fresh);
    const block = chosen.length ? calls.instructionBlock(chosen) : null;
    try {
      port.postMessage({
        type: 'state', site, ...prefs,
        adapter: { name: adapter.name, title: adapter.title, verified: adapter.verified === true,
          request: adapter.request, response: adapter.response, selectors: adapter.selectors },
        alternates: this.adaptersFor(port.sender?.url ?? '').slice(1, 8)
          .map((a) => ({ name: a.name, request: a.request, response: a.response })),
        tools: all.map((t) => ({ key: t.key, where: t.where, tool: t.tool, readOnly: t.readOnly, trusted: t.trusted, chosen: prefs.chosen.includes(t.key),
          name: chosen.find((c) => c.key === t.key)?.name ?? t.tool, autoRun: autoRuns(prefs, t) })),
        block: prefs.enabled ? block : null,
      });
    } catch { this.ports.delete(port); }
  }

  /** `run {req, name, arguments}`: one of the chosen tools, by its chat name. */
  async run(port, site, msg) {
    const { chosen } = await this.chosenTools(site);
    const tool = chosen.find((t) => t.name === msg.name);
    const id = callId(CALLER_CHAT, ++this.seq);
    this.pending.set(id, { port, req: msg.req });
    if (!this.prefsOf(site).enabled) return this.answer(id, { ok: false, error: { code: 'bad_request', message: 'Tools are off for this site.' } });
    if (!tool) {
      const names = chosen.map((t) => t.name).join(', ') || 'none';
      return this.answer(id, { ok: false, error: { code: 'not_found', message: `${String(msg.name).slice(0, 128)} is not one of the tools chosen for this chat (${names}).` } });
    }
    const args = msg.arguments && typeof msg.arguments === 'object' && !Array.isArray(msg.arguments) ? msg.arguments : {};
    const caller = { kind: /** @type {'chat'} */ ('chat'), label: `Chat: ${site}` };
    if (tool.kind === 'site') {
      this.w.logCall(id, caller, tool.where, tool.tool, args);
      this.w.runCall({ type: 'call', id, site: tool.where, tool: tool.tool, args, timeout_ms: CALL_TIMEOUT_MS, max_bytes: DEFAULT_MAX_BYTES },
        localReply('chat', (result) => this.siteResult(result)));
      return;
    }
    this.w.logCall(id, caller, `mcp:${tool.where}`, tool.tool, args);
    const sent = this.w.send({ type: 'chat_server_call', id, op: 'call', site, server: tool.where, tool: tool.tool, args, timeout_ms: CALL_TIMEOUT_MS });
    if (!sent) this.serverResult({ id, ok: false, error: { code: 'no_extension', message: 'The host is not connected, so local MCP servers cannot be reached.' } });
  }

  // --- the side panel's Chat sites view ---------------------------------------------------------

  /** Whether an enabled adapter names this site (`host[:port]`). */
  known(site) {
    return typeof site === 'string' && site.length > 0 && site.length <= MAX_SITE
      && this.adapters.some((a) => (a.hostnames ?? []).some((h) => hostMatches(h, site)));
  }

  /**
   * The sites the view shows, by adapter: each adapter's own hostnames (a `*.x` as x), the sites
   * with prefs, and the sites of open tabs; each with its prefs and whether a tab has it open.
   */
  async panelState() {
    await this.loaded;
    const tabs = await this.w.chrome.tabs.query({}).catch(() => []);
    const open = new Set(tabs.map((t) => siteOf(t.url ?? '')).filter((s) => s && this.known(s)));
    const sites = [];
    for (const a of this.adapters) {
      const names = new Set((a.hostnames ?? []).map((h) => (h.startsWith('*.') ? h.slice(2) : h)));
      for (const s of [...Object.keys(this.prefs), ...open]) if ((a.hostnames ?? []).some((h) => hostMatches(h, s))) names.add(s);
      for (const s of names) {
        const stale = this.stale.get(s);
        sites.push({ site: s, adapter: a.name, open: open.has(s), ...this.prefsOf(s), stale: stale?.adapter === a.name ? stale : null });
      }
    }
    return { sites };
  }

  /** The tools a site's chat may be offered, with what its prefs say of each. */
  async panelTools(site) {
    const prefs = this.prefsOf(site);
    const { all, chosen } = await this.chosenTools(site, true);
    return { site, ...prefs, tools: all.map((t) => ({ key: t.key, where: t.where, tool: t.tool, kind: t.kind, readOnly: t.readOnly, trusted: t.trusted,
      description: String(t.description).slice(0, 300), chosen: prefs.chosen.includes(t.key), allowed: prefs.allowed.includes(t.key),
      name: chosen.find((c) => c.key === t.key)?.name ?? t.tool })) };
  }

  /**
   * Runtime messages from the side panel (`chat_sites_state`, `chat_sites_tools {site}`,
   * `chat_sites_set {site, ...change}`); extension pages only (routes.js checks): a page must
   * not learn or change this.
   * @param {any} msg @param {chrome.runtime.MessageSender} _sender @param {(r: any) => void} respond
   */
  panelRequest(msg, _sender, respond) {
    /** @type {() => Promise<any>} */
    let work;
    if (msg.type === 'chat_sites_state') work = () => this.panelState();
    else if (!this.known(msg.site)) work = async () => ({ error: `No enabled chat-site adapter names ${String(msg.site).slice(0, 100)}.` });
    else if (msg.type === 'chat_sites_tools') work = () => this.panelTools(msg.site);
    else work = async () => ({ site: msg.site, ...(await this.setPrefs(msg.site, msg)) });
    work().then(respond, (e) => respond({ error: String(e?.message ?? e).slice(0, 1000) }));
    return true;
  }

  answer(id, outcome) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    try {
      p.port.postMessage({ type: 'result', req: p.req, outcome });
    } catch { /* the page went */ }
  }
}
