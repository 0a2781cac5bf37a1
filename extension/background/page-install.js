// The rest of the page code, into the one frame that asks (docs/PAGE_CODE.md, "What runs in a
// page"): the manifest puts only a stub in every frame's isolated world; a stub whose frame uses
// WebMCP (tools, a tool form, iframes given `tools`) sends `page_install`, and this injects
// lib/page-files.js's files into that document, once (lib/install-gate.js caps the rest).

import { InstallGate } from '../lib/install-gate.js';
import { ISOLATED_FILES, MAIN_FILES } from '../lib/page-files.js';

/**
 * @param {{chrome: typeof globalThis.chrome, log: (level: 'debug'|'info'|'warning'|'error', message: string) => void}} opts
 */
export function createPageInstall({ chrome, log }) {
  const gate = new InstallGate();
  let warned = false;

  /**
   * chrome.runtime.onMessage `page_install`, from our stub in a web page's frame.
   * @param {any} msg `{type: 'page_install', main?: true}` @param {chrome.runtime.MessageSender} sender
   * @param {{tabId: number, frameId: number}} at the frame, from routes.js (lib/senders.js ourFrame: our content script)
   * @param {(r: any) => void} respond
   * @returns {boolean}
   */
  function request(msg, sender, { tabId, frameId }, respond) {
    // Web pages only (about:blank/srcdoc frames run with their creator's origin).
    const where = sender.origin && sender.origin !== 'null' ? sender.origin : sender.url ?? '';
    if (!/^(https?:|about:)/.test(where)) return false;
    const documentId = /** @type {any} */ (sender).documentId;
    // Firefox has no documentId: the stub's own name for its document stands for it (a random
    // UUID; the frame's URL would name a reload the same).
    const doc = typeof msg?.doc === 'string' && msg.doc.length <= 64 ? msg.doc : '';
    const document = typeof documentId === 'string' ? documentId : `${tabId}:${frameId}:${doc || sender.url}`;
    const verdict = gate.admit({ tabId, frameId, document, now: Date.now() });
    if (verdict !== 'ok') {
      if (verdict === 'capped' && !warned) {
        warned = true;
        log('warning', `A page asked for WebMCP Sidecar's page code more often than allowed (tab ${tabId}); some of its frames go without.`);
      }
      respond({ ok: false, why: verdict });
      return false;
    }
    const target = typeof documentId === 'string' ? { tabId, documentIds: [documentId] } : { tabId, frameIds: [frameId] };
    // Polyfill mode: the MAIN world's full code first (its stub queues the page's calls until
    // then), so that the relay's first `sync` finds the bridge.
    const isolated = () => chrome.scripting.executeScript({ target, files: [...ISOLATED_FILES], injectImmediately: true });
    const done = msg?.main === true
      ? chrome.scripting.executeScript({ target, files: [...MAIN_FILES], world: 'MAIN', injectImmediately: true }).then(isolated)
      : isolated();
    done.then(
      () => respond({ ok: true }),
      (e) => respond({ ok: false, why: String(e?.message ?? e) }), // the document went meanwhile
    );
    return true;
  }

  return {
    request,
    /** For tests and the bench: installs made and refused so far. */
    counts: () => ({ admitted: gate.admitted, refused: gate.refused }),
  };
}
