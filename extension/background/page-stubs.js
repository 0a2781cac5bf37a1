// The MAIN world's stub, registered per mode (issue 29). V8 compiles a content script in every
// document it runs in, and that time grows with its code: a stub carrying both modes' installers
// cost a plain article ~15% of its DOMContentLoaded (bench/README.md, "Page load"). So the
// manifest holds only the isolated stub, and the worker registers the MAIN stub of the mode this
// browser needs (lib/page-files.js STUB_FILES): native where Chromium has WebMCP, else the
// polyfill's surface.
//
// When: on the worker's first start since the browser started or the extension was loaded
// (chrome.storage.session is empty then): it looks at the mode and registers that stub if the
// registered one is not it (an install, an update, WebMCP switched on or off since). The
// registration persists, so pages restored at start-up have their stub before the worker runs
// (after WebMCP was switched, the other mode's: such a page has Chromium's own WebMCP without
// our relay, or none, until it reloads; page/main/start.js). A document loaded before any stub
// was registered (the first moments after an install) gets one from the open-tabs sweep
// (open-tabs.js), which waits for `ready`.

import { STUB_IDS, sameStub, stubScript } from '../lib/page-files.js';

const MODE_KEY = 'pageStubMode';
const PROBE_URL = 'offscreen/mode-probe.html';

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Whether the browser has WebMCP of its own: `document.modelContext` exists in its documents.
 * Firefox's background page is a document; Chrome's worker asks an offscreen one.
 * @param {typeof globalThis.chrome} chrome
 * @returns {Promise<import('../lib/page-files.js').StubMode>}
 */
async function detectMode(chrome) {
  const doc = /** @type {any} */ (globalThis).document;
  if (doc) return 'modelContext' in doc ? 'native' : 'polyfill';
  const off = /** @type {any} */ (chrome).offscreen;
  if (!off?.createDocument) return 'polyfill';
  if (!(await off.hasDocument?.())) {
    await off.createDocument({
      url: PROBE_URL, reasons: ['DOM_PARSER'],
      justification: "Finds out whether the browser has WebMCP, which decides the page script every page gets.",
    });
  }
  try {
    // The page's listener is there once its module ran; until then nobody receives.
    for (let i = 0; i < 50; i++) {
      try {
        const r = await chrome.runtime.sendMessage({ type: 'webmcp_mode?' });
        if (r && typeof r.native === 'boolean') return r.native ? 'native' : 'polyfill';
      } catch {
        /* not listening yet */
      }
      await sleep(20);
    }
    throw new Error('the mode probe did not answer');
  } finally {
    await off.closeDocument().catch(() => {});
  }
}

/**
 * @param {{chrome: typeof globalThis.chrome, log: (level: 'debug'|'info'|'warning'|'error', message: string) => void}} opts
 * @returns {{registered: Promise<void>, isRegistered: () => boolean,
 *   ready: Promise<import('../lib/page-files.js').StubMode|null>}}
 *   registered: some stub is registered (the worker connects its host after it, so a browser
 *   MCP clients see connected gives new pages our stub), at once for a browser without
 *   chrome.scripting (the tests' fake); ready: the mode, once its stub is registered (null: no
 *   chrome.scripting)
 */
export function installPageStubs({ chrome, log }) {
  const scripting = chrome.scripting;
  if (!scripting?.registerContentScripts) {
    return { registered: Promise.resolve(), isRegistered: () => true, ready: Promise.resolve(null) };
  }
  const session = chrome.storage?.session;
  let done = false;
  /** @type {() => void} */
  let registeredNow = () => {};
  const registered = new Promise((/** @type {(v?: any) => void} */ r) => {
    registeredNow = () => {
      done = true;
      r();
    };
  });

  const ready = (async () => {
    const known = (await session?.get(MODE_KEY).catch(() => null))?.[MODE_KEY];
    if (known === 'native' || known === 'polyfill') return known;
    const had = await scripting.getRegisteredContentScripts({ ids: [...STUB_IDS] });
    if (!had.length) {
      // The first start after an install: a stub for either mode at once, while the probe
      // looks (~0.4 s for an offscreen document), so pages opened meanwhile have WebMCP too.
      await scripting.registerContentScripts([stubScript('any')]);
    }
    registeredNow();
    const mode = await detectMode(chrome);
    const want = stubScript(mode);
    // The mode's stub in, then the others out: a document loading in between gets both, and
    // the second is a no-op (page/main/base.js's marker), never neither.
    const now = await scripting.getRegisteredContentScripts({ ids: [...STUB_IDS] });
    const mine = now.find((r) => r.id === want.id);
    if (!mine) await scripting.registerContentScripts([want]);
    else if (!sameStub(mine, want)) await scripting.updateContentScripts([want]); // an update changed its files
    const stale = now.filter((r) => r.id !== want.id).map((r) => r.id);
    if (stale.length) await scripting.unregisterContentScripts({ ids: stale });
    if (!mine || stale.length) {
      log('info', `Page script registered for ${mode === 'native' ? "the browser's own WebMCP" : 'the WebMCP polyfill'}.`);
    }
    await session?.set({ [MODE_KEY]: mode });
    return mode;
  })();
  ready.then(registeredNow, (e) => {
    registeredNow();
    log('error', `Could not register the page script: ${e?.message ?? e}`);
  });
  return { registered, isRegistered: () => done, ready };
}
