// The browser tools that read or act on the page in the call's tab: snapshot, act by ref (click,
// type, press a key, choose an option, hover, scroll, upload), wait, read the text, screenshot.

import { formatSnapshot, DEFAULT_MAX_CHARS } from '../lib/snapshot.js';
import { cleanText, DEFAULT_PAGE_CHARS, textPage } from '../lib/page-text.js';
import { keyEvents, parseKey } from '../lib/keys.js';
import { checkScriptable, inPage, ToolError } from './page-calls.js';
import { noteChecked, noteRows, noteTarget } from './skill-recorder.js';
import { focusProblem, pointProblem, typingLanded } from './input-guard.js';
import { BROWSER_TOOLS } from '../lib/protocol.js';

const NAV_WAIT_MS = 30_000;
const UPLOAD_ATTR = 'data-webmcp-sidecar-upload';
/** Chrome cannot capture taller than this many device pixels in one go. */
const MAX_CAPTURE_PX = 16_384;
const SHOT_TIMEOUT_MS = 5_000;

/**
 * @typedef {import('./browser-tools.js').Env} Env
 * @typedef {import('./browser-tools.js').CallCtx} CallCtx
 * @typedef {import('./browser-tools.js').BrowserTool} BrowserTool
 */

// --- arguments (the MCP entry checks them against the schema; the panel's agent may not) -----

function refArg(ctx, name = 'ref', required = true) {
  const v = ctx.args[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !/^e\d+$/.test(v.trim())) {
    throw new ToolError('invalid_args', `Give \`${name}\` as an element ref from browser_snapshot, e.g. "e12".`);
  }
  return v.trim();
}

/**
 * A number argument, in the range its tool's schema gives (tools/browser_tools.py, generated into
 * lib/generated/protocol.js), else in `min`..`max`.
 * @param {CallCtx} ctx @param {string} name
 * @param {{min?: number, max?: number, def: number}} range
 */
function numArg(ctx, name, { min = -Infinity, max = Infinity, def }) {
  const schema = /** @type {any} */ (BROWSER_TOOLS)[ctx.tool]?.inputSchema.properties[name] ?? {};
  min = schema.minimum ?? min;
  max = schema.maximum ?? max;
  const v = ctx.args[name];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw new ToolError('invalid_args', `\`${name}\` must be a number from ${min} to ${max}.`);
  }
  return v;
}

const boolArg = (ctx, name, def) => (typeof ctx.args[name] === 'boolean' ? ctx.args[name] : def);

/** The call's tab, checked to be a page we may touch. */
async function pageTab(env, ctx) {
  const tab = await env.target(ctx);
  checkScriptable(tab);
  return /** @type {chrome.tabs.Tab & {id: number}} */ (tab);
}

// --- acting -----------------------------------------------------------------------------------

const withoutHash = (url) => String(url ?? '').split('#')[0];

/**
 * Runs CDP input on the tab, noting whether it made the tab's page navigate to another document;
 * if so, waits for the new page to load and says where it went.
 * @param {Env} env @param {CallCtx} ctx @param {chrome.tabs.Tab & {id: number}} tab
 * @param {(send: (m: string, p?: object) => Promise<any>) => Promise<void>} act
 */
async function actAndSettle(env, ctx, tab, act) {
  const tabId = tab.id;
  const here = withoutHash(tab.url);
  // A same-page #anchor is no navigation to wait for; a form sent to the same URL is.
  const leaves = (p) => withoutHash(p.url) !== here || /^(formSubmission|reload)/.test(p.reason ?? '');
  const mark = env.noteAction(ctx, tabId);
  env.sessions.acting(tabId);
  const before = ctx.s ? new Set(ctx.s.tabs) : null;
  let navigating = false;
  await env.debuggers.use(tabId, async (send) => {
    const main = env.debuggers.mainFrame(tabId);
    const off = env.debuggers.listen(tabId, (method, p) => {
      if (p.frameId !== main) return;
      if ((method === 'Page.frameScheduledNavigation' && leaves(p)) ||
        (method === 'Page.frameRequestedNavigation' && p.disposition === 'currentTab' && leaves(p)) ||
        (method === 'Page.frameStartedNavigating' && !/sameDocument/i.test(p.navigationType ?? ''))) navigating = true;
    });
    try {
      await act(send);
      // Input is acknowledged apart from the page's own events: a round trip through the page
      // makes sure the navigation events the input caused have arrived.
      await send('Runtime.evaluate', { expression: '0', returnByValue: true }).catch(() => {});
    } finally {
      off();
    }
  });
  let note = '';
  if (navigating || env.loads.get(tabId).starts > mark.starts) {
    const timeoutMs = Math.max(0, Math.min(env.remaining(ctx) - 500, NAV_WAIT_MS));
    const how = await env.loads.waitLoaded(tabId, mark, { timeoutMs, startWithinMs: 3_000 });
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (how === 'closed' || !tab) note = ' The tab then closed.';
    else if (how === 'loaded') note = ` The page navigated to ${tab.url} ("${(tab.title ?? '').slice(0, 80)}"): refs from earlier snapshots no longer apply; take a new snapshot.`;
    else if (how === 'timeout') note = ` The page is navigating to ${tab.pendingUrl || tab.url} and still loading.`;
  }
  if (before && ctx.s) {
    const opened = ctx.s.tabs.filter((t) => !before.has(t));
    if (opened.length) note += ` It opened ${opened.length === 1 ? `a new tab (${opened[0]})` : `new tabs (${opened.join(', ')})`} in your group; browser_tab_select switches to it.`;
  }
  return note;
}

const mouse = (send, type, x, y, extra = {}) => send('Input.dispatchMouseEvent', { type, x, y, ...extra });

/** @param {(m: string, p?: object) => Promise<any>} send @param {import('../lib/keys.js').KeyPress} key */
async function pressKey(send, key) {
  for (const ev of keyEvents(key)) await send('Input.dispatchKeyEvent', ev);
}

const BUTTONS = { left: 1, right: 2, middle: 4 };

/**
 * Refuses real input that would not land on `what` (input-guard.js): another frame or element at
 * the point, or the focus moved elsewhere, since the page agent aimed.
 * @param {string|null} problem @param {string} what
 */
function refuseIfSteered(problem, what) {
  if (problem) {
    throw new ToolError('page_error', `Nothing was sent to ${what}: ${problem} (the page moved something there since it was aimed at). Take a new snapshot and try again; if this repeats, the page is steering input elsewhere.`);
  }
}

/** @type {Record<string, BrowserTool>} */
export const PAGE_TOOLS = {
  snapshot: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const interactive = boolArg(ctx, 'interactive', true);
      const root = refArg(ctx, 'ref', false);
      const maxChars = numArg(ctx, 'max_chars', { def: DEFAULT_MAX_CHARS });
      const maxDepth = numArg(ctx, 'depth', { max: 1000, def: Infinity });
      const page = numArg(ctx, 'page', { max: 100_000, def: 1 });
      const [res] = await Promise.all([
        inPage(tab.id, 'snapshot', { interactive, root, base: env.refBase.get(tab.id) ?? 1 }), noteTarget(ctx, tab.id, root),
      ]);
      env.refBase.set(tab.id, res.next);
      const snap = formatSnapshot(res.records, { interactive, maxDepth, maxChars, page: Math.floor(page) });
      const head = `Page: "${(res.title ?? '').slice(0, 120)}" ${res.url}${root ? ` (part: ${root})` : ''}`;
      const kind = interactive ? 'interactive elements and their context' : 'everything shown';
      let body = snap.text;
      if (!snap.total) {
        body = interactive
          ? '(nothing to act on here: no links, buttons or fields. Try interactive: false, or browser_page_text to read it.)'
          : '(the page shows nothing)';
      }
      const clipped = res.clipped ? '\n… the page is too large to walk whole; snapshot a part with ref.' : '';
      return `${head}\n[snapshot of ${kind}; refs like [e12] stay valid until the page changes]\n${body}${clipped}`;
    },
  },

  click: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx);
      const button = ctx.args.button ?? 'left';
      if (!(button in BUTTONS)) throw new ToolError('invalid_args', '`button` is left, right or middle.');
      const clicks = boolArg(ctx, 'double', false) ? 2 : 1;
      // The element's selector is recorded alongside (skill-recorder.js): refs die with the page.
      const nonce = crypto.randomUUID();
      const [pt] = await Promise.all([inPage(tab.id, 'point', { ref, aim: nonce }), noteTarget(ctx, tab.id, ref)]);
      const note = await actAndSettle(env, ctx, tab, async (send) => {
        await mouse(send, 'mouseMoved', pt.x, pt.y);
        for (let n = 1; n <= clicks; n++) {
          // After the move (a page may swap a frame in on mousemove), right before each press.
          refuseIfSteered(await pointProblem(send, { x: pt.x, y: pt.y, nonce }), `${ref} (${pt.desc})`);
          const extra = { button, clickCount: n, buttons: BUTTONS[button] };
          await mouse(send, 'mousePressed', pt.x, pt.y, extra);
          await mouse(send, 'mouseReleased', pt.x, pt.y, { ...extra, buttons: 0 });
        }
      });
      await noteChecked(ctx, tab.id);
      return `${clicks === 2 ? 'Double-clicked' : 'Clicked'} ${ref} (${pt.desc}).${note}`;
    },
  },

  type: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx);
      const text = ctx.args.text;
      if (typeof text !== 'string') throw new ToolError('invalid_args', 'Give the text to type in `text`.');
      const clear = boolArg(ctx, 'clear', true);
      const submit = boolArg(ctx, 'submit', false);
      const nonce = crypto.randomUUID();
      const [f] = await Promise.all([inPage(tab.id, 'focus', { ref, clear, aim: nonce }), noteTarget(ctx, tab.id, ref)]);
      const what = `${ref} (${f.desc})`;
      const note = await actAndSettle(env, ctx, tab, async (send) => {
        refuseIfSteered(await focusProblem(send, nonce), what);
        if (text) await send('Input.insertText', { text });
        else if (clear) await pressKey(send, /** @type {any} */ (parseKey('Backspace')));
        if (text) {
          const after = await inPage(tab.id, 'aimed', { nonce }).catch(() => null);
          if (!typingLanded(text, f.before, typeof after?.value === 'string' ? after.value : null)) {
            throw new ToolError('page_error', `The text did not reach ${what}: its value did not change (the page moved the keyboard focus elsewhere as it was typed, perhaps into another site's frame). Nothing was submitted.`);
          }
        }
        if (submit) {
          refuseIfSteered(await focusProblem(send, nonce), `${what} (Enter)`);
          await pressKey(send, /** @type {any} */ (parseKey('Enter')));
        }
      });
      if (submit) return `Typed into ${what} and pressed Enter.${note}`;
      const now = await inPage(tab.id, 'value', { ref }).catch(() => null);
      const shown = now && typeof now.value === 'string' ? ` Its value is now ${JSON.stringify(now.value.slice(0, 200))}.` : '';
      return `Typed into ${ref} (${f.desc}).${shown}${note}`;
    },
  },

  press_key: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const key = parseKey(ctx.args.key);
      if ('error' in key) throw new ToolError('invalid_args', key.error);
      const ref = refArg(ctx, 'ref', false);
      let where = 'the page';
      const nonce = ref ? crypto.randomUUID() : null;
      if (ref) {
        const [f] = await Promise.all([inPage(tab.id, 'focus', { ref, needEditable: false, aim: nonce }), noteTarget(ctx, tab.id, ref)]);
        where = `${ref} (${f.desc})`;
      }
      const note = await actAndSettle(env, ctx, tab, async (send) => {
        refuseIfSteered(await focusProblem(send, nonce), where);
        await pressKey(send, key);
      });
      return `Pressed ${ctx.args.key} in ${where}.${note}`;
    },
  },

  select_option: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx);
      let values = ctx.args.values;
      if (typeof values === 'string') values = [values];
      if (!Array.isArray(values) || !values.length || values.some((v) => typeof v !== 'string')) {
        throw new ToolError('invalid_args', 'Give the option(s) to choose in `values`: a list of their labels or values.');
      }
      env.noteAction(ctx, tab.id);
      await noteTarget(ctx, tab.id, ref); // before: a page may replace the list when the choice changes
      const r = await inPage(tab.id, 'select', { ref, values });
      return `Chose ${r.selected.map((s) => JSON.stringify(s)).join(', ')} in ${ref} (${r.desc}).`;
    },
  },

  hover: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx);
      const pt = await inPage(tab.id, 'point', { ref, enabled: false });
      await actAndSettle(env, ctx, tab, (send) => mouse(send, 'mouseMoved', pt.x, pt.y));
      return `The pointer is over ${ref} (${pt.desc}).`;
    },
  },

  scroll: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx, 'ref', false);
      const direction = ctx.args.direction;
      if (direction !== undefined && !['up', 'down', 'left', 'right'].includes(direction)) {
        throw new ToolError('invalid_args', '`direction` is up, down, left or right.');
      }
      if (!ref && !direction) throw new ToolError('invalid_args', 'Give `ref` (scroll it into view) or `direction` (scroll the page), or both (scroll inside ref).');
      const amount = numArg(ctx, 'amount', { min: 0.1, def: 1 });
      const [r] = await Promise.all([inPage(tab.id, 'scroll', { ref, direction, amount }), noteTarget(ctx, tab.id, ref)]);
      const where = ref && !direction ? `Scrolled ${ref} (${r.desc}) into view` : `Scrolled ${r.desc === 'the page' ? 'the page' : `${ref} (${r.desc})`} ${direction}`;
      const atEnd = r.y >= r.maxY ? ' (at the bottom)' : r.y === 0 ? ' (at the top)' : '';
      return `${where}. Scroll position: ${r.y} of ${r.maxY} px down${atEnd}.`;
    },
  },

  upload_file: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx);
      const paths = ctx.args.paths;
      if (!Array.isArray(paths) || !paths.length || paths.some((p) => typeof p !== 'string' || !p)) {
        throw new ToolError('invalid_args', 'Give the files in `paths`: a list of absolute file paths.');
      }
      const nonce = crypto.randomUUID();
      const m = await inPage(tab.id, 'mark', { ref, file: true, attr: UPLOAD_ATTR, nonce, count: paths.length });
      let done = /** @type {{files?: string[]}} */ ({});
      try {
        await actAndSettle(env, ctx, tab, async (send) => {
          const { result } = await send('Runtime.evaluate', { expression: `document.querySelector('[${UPLOAD_ATTR}="${nonce}"]')` });
          if (!result?.objectId) {
            throw new ToolError('page_error', `${ref} (${m.desc}) could not be reached to set its files (it may sit inside a closed part of the page).`);
          }
          try {
            await send('DOM.setFileInputFiles', { files: paths, objectId: result.objectId });
          } catch (e) {
            throw new ToolError('invalid_args', `The browser did not accept the files: ${e?.message ?? e}`);
          }
        });
      } finally {
        done = await inPage(tab.id, 'unmark', { ref, attr: UPLOAD_ATTR }).catch(() => ({}));
      }
      return `Chose ${done.files?.length ?? paths.length} file(s) in ${ref} (${m.desc})${done.files?.length ? `: ${done.files.join(', ')}` : ''}.`;
    },
  },

  wait_for: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const text = ctx.args.text;
      const ref = refArg(ctx, 'ref', false);
      const gone = boolArg(ctx, 'gone', false);
      const navigation = boolArg(ctx, 'navigation', false);
      const timeoutMs = numArg(ctx, 'timeout_s', { def: 10 }) * 1000;
      if (text !== undefined && (typeof text !== 'string' || !text.trim())) throw new ToolError('invalid_args', '`text` must be non-empty text.');
      if (!navigation && text === undefined && !ref) {
        throw new ToolError('invalid_args', 'Say what to wait for: `text` (appears, or with gone: true disappears), `ref` (becomes visible, or gone), or `navigation: true`.');
      }
      const budget = Math.max(0, Math.min(timeoutMs, env.remaining(ctx) - 500));
      if (ref) await noteTarget(ctx, tab.id, ref);
      const t0 = Date.now();
      if (navigation) {
        const last = env.lastAction.get(ctx.session);
        const since = last && last.tabId === tab.id ? last.mark : env.loads.mark(tab.id);
        const how = await env.loads.waitLoaded(tab.id, since, { timeoutMs: budget });
        const now = await chrome.tabs.get(tab.id).catch(() => null);
        if (how === 'closed' || !now) throw new ToolError('tab_closed', 'The tab closed while waiting for it to navigate.');
        if (how !== 'loaded') throw new ToolError('timeout', `No navigation finished within ${budget / 1000} s; the tab still shows ${now.url}.`);
        return `The page navigated and loaded: ${now.url} ("${(now.title ?? '').slice(0, 80)}") after ${Date.now() - t0} ms.`;
      }
      const what = text !== undefined ? `the text ${JSON.stringify(text.slice(0, 100))}` : `${ref}`;
      for (;;) {
        const left = budget - (Date.now() - t0);
        let r;
        try {
          r = await inPage(tab.id, 'wait', { text, ref, gone, timeoutMs: Math.max(0, left) });
        } catch (e) {
          // The page was replaced while waiting (a navigation): wait for the new one and look again.
          if (!(e instanceof ToolError) || e.code === 'not_found' || e.code === 'invalid_args' || ref || Date.now() - t0 >= budget) throw e;
          await env.loads.waitIdle(tab.id, Math.max(0, budget - (Date.now() - t0)));
          continue;
        }
        if (r.ok) return `${what[0].toUpperCase()}${what.slice(1)} ${gone ? 'is gone' : text !== undefined ? 'is on the page' : 'is visible'} (after ${Date.now() - t0} ms).`;
        throw new ToolError('timeout', `Waited ${budget / 1000} s: ${what} ${gone ? 'is still there' : text !== undefined ? 'did not appear' : 'did not become visible'}.`);
      }
    },
  },

  page_text: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const pageNo = numArg(ctx, 'page', { max: 100_000, def: 1 });
      if (!Number.isInteger(pageNo)) throw new ToolError('invalid_args', '`page` is a whole number, 1 for the first page.');
      const size = numArg(ctx, 'max_chars', { def: DEFAULT_PAGE_CHARS });
      const ref = refArg(ctx, 'ref', false);
      const [r] = await Promise.all([inPage(tab.id, 'text', { ref }), ref ? noteTarget(ctx, tab.id, ref) : noteRows(ctx, tab.id)]);
      const text = cleanText(r.text);
      const p = textPage(text, pageNo, Math.floor(size));
      if ('error' in p) throw new ToolError('invalid_args', p.error);
      const more = p.page < p.pages ? ` Next: browser_page_text with page=${p.page + 1}.` : '';
      return `Text of "${(r.title ?? '').slice(0, 120)}" ${r.url}${ref ? ` (inside ${ref})` : ''}: page ${p.page} of ${p.pages}` +
        ` (characters ${p.start}-${p.end} of ${p.total}).${more}\n\n${p.text}`;
    },
  },

  screenshot: {
    async run(env, ctx) {
      const tab = await pageTab(env, ctx);
      const ref = refArg(ctx, 'ref', false);
      const fullPage = boolArg(ctx, 'full_page', false);
      const format = ctx.args.format ?? 'jpeg';
      if (format !== 'jpeg' && format !== 'png') throw new ToolError('invalid_args', '`format` is jpeg or png.');
      const quality = Math.round(numArg(ctx, 'quality', { def: 80 }));
      const maxWidth = numArg(ctx, 'max_width', { def: 1280 });
      if (ref && fullPage) throw new ToolError('invalid_args', 'Give either `ref` (one element) or `full_page`, not both.');
      const part = ref ? await inPage(tab.id, 'rect', { ref }) : null;
      const shot = await env.debuggers.use(tab.id, async (send) => {
        const m = await send('Page.getLayoutMetrics');
        const vv = m.cssVisualViewport;
        let clip;
        if (part) clip = { x: part.x, y: part.y, width: part.width, height: part.height };
        else if (fullPage) clip = { x: 0, y: 0, width: m.cssContentSize.width, height: m.cssContentSize.height };
        else clip = { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight };
        const scale = Math.min(1, maxWidth / clip.width);
        let cutNote = '';
        if (clip.height * scale > MAX_CAPTURE_PX) {
          clip.height = Math.floor(MAX_CAPTURE_PX / scale);
          cutNote = ` It shows the top ${clip.height} px of the page (the browser captures at most ${MAX_CAPTURE_PX} px in height).`;
        }
        const params = {
          format, clip: { ...clip, scale }, captureBeyondViewport: fullPage || !!part,
          ...(format === 'jpeg' ? { quality } : {}),
        };
        let r = await withTimeout(send('Page.captureScreenshot', params), SHOT_TIMEOUT_MS);
        if (!r) {
          // A background tab may not paint: bring it to the front and try once more.
          await chrome.tabs.update(tab.id, { active: true }).catch(() => {});
          r = await withTimeout(send('Page.captureScreenshot', params), SHOT_TIMEOUT_MS * 2);
          if (!r) throw new ToolError('timeout', 'The browser did not produce the screenshot in time.');
        }
        return { data: r.data, width: Math.round(clip.width * scale), height: Math.round(clip.height * scale), cutNote };
      });
      const bytes = Math.floor(shot.data.length * 3 / 4);
      const what = part ? `${ref} (${part.desc})` : fullPage ? 'the full page' : 'the visible part of the page';
      return {
        content: [
          { type: 'image', data: shot.data, mimeType: `image/${format}` },
          { type: 'text', text: `Screenshot of ${what} of "${(tab.title ?? '').slice(0, 80)}" (${tab.url}): ${shot.width}x${shot.height} px ${format.toUpperCase()}, ${(bytes / 1024).toFixed(0)} KB.${shot.cutNote}` },
        ],
      };
    },
  },
};

/** @template T @param {Promise<T>} p @param {number} ms @returns {Promise<T|null>} */
function withTimeout(p, ms) {
  let timer;
  return Promise.race([p, new Promise((resolve) => { timer = setTimeout(() => resolve(null), ms); })])
    .finally(() => clearTimeout(timer));
}
