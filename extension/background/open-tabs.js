// Our content scripts in tabs that were open before the extension was installed, updated,
// reloaded or re-enabled: Chrome runs content scripts only in documents loaded after that (and
// the MAIN stub only once the worker registered it, page-stubs.js), so without this their tools
// would appear only after a reload. The plan (which tabs, frames and files) is
// lib/inject-plan.js; here, chrome.scripting.
//
// When: on runtime.onInstalled (install, update), and when the worker starts for the first time
// since the extension was loaded (chrome.storage.session is empty after an install, update,
// reload or re-enable; a worker that merely woke up again finds its flag and does nothing). At
// browser start-up the sweep finds the restored tabs' own scripts and injects nothing.

import {
  SWEEP_CONCURRENCY, anyAllFrames, framesToInject, probeFrame, registeredSet, scriptSets, tabsToProbe,
} from '../lib/inject-plan.js';
import { STUB_IDS } from '../lib/page-files.js';

const SWEPT_KEY = 'openTabsSwept';

/** Runs in each frame's isolated world once our files are in: the stub (page/isolated/stub.js)
 * looks at once at what a new document's MAIN stub would have told it of. Firefox puts the
 * manifest's scripts (not the registered MAIN stub) into open tabs itself, so this also runs
 * where nothing was injected. */
function wakeStub() {
  /** @type {any} */ (globalThis).webmcpSidecarStub?.late?.();
}
/** A tab whose page does not answer (busy, a dialog open) is given up on after this. */
const TAB_TIMEOUT_MS = 10_000;

/**
 * @param {Promise<any>} p @param {number} ms
 * @returns {Promise<any>}
 */
function within(p, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('the page did not answer')), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Registers the triggers. A browser without chrome.scripting (the tests' fake) gets none.
 * @param {{chrome: typeof globalThis.chrome, log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
 *   stubs: Promise<unknown>}} opts stubs: page-stubs.js's `ready` (the sweep injects the MAIN
 *   stub it registered)
 * @returns {{sweep: () => Promise<{tabs: number, frames: number}>}}
 */
export function installOpenTabs({ chrome, log, stubs }) {
  /** @type {Promise<{tabs: number, frames: number}>|null} */
  let running = null;
  const none = Promise.resolve({ tabs: 0, frames: 0 });
  if (!chrome.scripting?.executeScript || !chrome.tabs?.query) return { sweep: () => none };

  /** One sweep at a time: a trigger during a sweep shares it. */
  function sweep() {
    running ??= sweepOnce().finally(() => {
      running = null;
    });
    return running;
  }

  async function sweepOnce() {
    await stubs.catch(() => {});
    const registered = await chrome.scripting.getRegisteredContentScripts?.({ ids: [...STUB_IDS] }).catch(() => []) ?? [];
    const sets = [...registered.map(registeredSet).filter((s) => s !== null), ...scriptSets(chrome.runtime.getManifest())];
    if (!sets.length) return { tabs: 0, frames: 0 };
    let fileAccess = false;
    try {
      fileAccess = !!(await chrome.extension?.isAllowedFileSchemeAccess?.());
    } catch {
      /* unknown: no file: tabs */
    }
    const queue = tabsToProbe(await chrome.tabs.query({}), sets, { fileAccess });
    let tabs = 0;
    let frames = 0;
    const worker = async () => {
      for (let tabId = queue.shift(); tabId !== undefined; tabId = queue.shift()) {
        try {
          const n = await within(injectTab(tabId, sets), TAB_TIMEOUT_MS);
          if (n) {
            tabs++;
            frames += n;
          }
        } catch {
          // Quietly: a tab that closed, navigated, shows an error page or a page we may not
          // script. Its next document gets the manifest's scripts anyway.
        }
      }
    };
    await Promise.all(Array.from({ length: SWEEP_CONCURRENCY }, worker));
    if (tabs) log('info', `Added WebMCP Sidecar's page scripts to ${tabs} tab(s) open from before (${frames} frame(s)).`);
    return { tabs, frames };
  }

  /**
   * Probes a tab's frames in each set's world, then injects the set, in order, where it is missing.
   * @param {number} tabId @param {import('../lib/inject-plan.js').ScriptSet[]} sets
   * @returns {Promise<number>} frames that got scripts
   */
  async function injectTab(tabId, sets) {
    let most = 0;
    for (const set of sets) {
      const probe = await chrome.scripting.executeScript({
        target: set.allFrames ? { tabId, allFrames: true } : { tabId },
        func: probeFrame, args: [set.mark], world: set.world, injectImmediately: true,
      });
      const { frameIds, documentIds } = framesToInject(probe, set);
      if (!frameIds.length) continue;
      most = Math.max(most, frameIds.length);
      await chrome.scripting.executeScript({
        target: documentIds ? { tabId, documentIds } : { tabId, frameIds },
        files: set.files, world: set.world, injectImmediately: true,
      });
    }
    await chrome.scripting.executeScript({
      target: anyAllFrames(sets) ? { tabId, allFrames: true } : { tabId },
      func: wakeStub, world: 'ISOLATED', injectImmediately: true,
    });
    return most;
  }

  chrome.runtime.onInstalled.addListener(() => {
    sweep().catch(() => {});
  });
  // The worker's first start since the extension was loaded.
  const session = chrome.storage?.session;
  if (session) {
    session.get(SWEPT_KEY).then(async (got) => {
      if (got?.[SWEPT_KEY]) return;
      await sweep();
      await session.set({ [SWEPT_KEY]: true });
    }).catch(() => {});
  }
  return { sweep };
}
