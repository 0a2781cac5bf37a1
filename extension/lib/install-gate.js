// Which of the stubs' install requests the worker honours (background/page-install.js). Pure:
// the caller passes the time. A page cannot send the request itself (only our isolated-world
// stub can, once per document), but it can make our stub ask: a tool in each of many iframes,
// or a frame that reloads itself in a loop. So one install per document, and per frame and per
// tab a token bucket (lib/rate-limit.js); a refused request is not retried (that document goes
// without the full code: its tools are not listed, and its own getTools/executeTool fail). The
// top frame takes only from its own bucket: an iframe (an ad) that spends the tab's must not cost
// the page itself its API.

import { RateLimit } from './rate-limit.js';

/** A frame: 12 at once, then one a second. A tab: 120 at once, then ten a second. */
export const FRAME_LIMIT = Object.freeze({ burst: 12, intervalMs: 1000 });
export const TAB_LIMIT = Object.freeze({ burst: 120, intervalMs: 100 });
/** Documents remembered as installed (the oldest forgotten first: a document that old is gone). */
export const MAX_DOCUMENTS = 4096;

export class InstallGate {
  constructor({ frame = FRAME_LIMIT, tab = TAB_LIMIT, maxDocuments = MAX_DOCUMENTS } = {}) {
    this.frames = new RateLimit(frame);
    this.tabs = new RateLimit(tab);
    this.maxDocuments = maxDocuments;
    /** @type {Set<string>} */
    this.documents = new Set();
    this.admitted = 0;
    this.refused = 0;
  }

  /**
   * Whether to install into this document now; remembers it if so.
   * @param {{tabId: number, frameId: number, document: string, now: number}} req
   *   `document`: the sender's documentId, or what names the document where there is none
   * @returns {'ok'|'again'|'capped'}
   */
  admit({ tabId, frameId, document, now }) {
    if (this.documents.has(document)) {
      this.refused++;
      return 'again';
    }
    if ((frameId !== 0 && !this.tabs.take(`${tabId}`, now)) || !this.frames.take(`${tabId}:${frameId}`, now)) {
      this.refused++;
      return 'capped';
    }
    this.documents.add(document);
    if (this.documents.size > this.maxDocuments) {
      const oldest = this.documents.values().next().value;
      if (oldest !== undefined) this.documents.delete(oldest);
    }
    this.admitted++;
    return 'ok';
  }
}
