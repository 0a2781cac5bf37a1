// Content-script ports, one per frame that has tools: who may connect, which port speaks for a
// frame (only its current document's), and the frames' tool lists into the registry.

import { LANE_GRACE_MS, LanePairs } from '../lib/frame-lanes.js';
import { frameUrl as urlForSite } from '../lib/inject-plan.js';
import { isHttps, siteOf } from '../lib/site.js';

/**
 * A frame's port and what the browser (not the frame) says about it.
 * @typedef {{port: chrome.runtime.Port, key: string, tabId: number, frameId: number,
 *   tab: chrome.tabs.Tab, frameUrl: string, top: boolean}} Frame
 */

const frameKey = (tabId, frameId) => `${tabId}:${frameId}`;

/** What a frame lane carries each way (lib/frame-lanes.js); the rest stays on the port. */
const LANE_TO_FRAME = new Set(['call', 'cancel']);
const LANE_FROM_FRAME = new Set(['result', 'result_part']);

/**
 * Posts to a content script, on its frame lane if given; false when its document is gone
 * (known at once on the port; on a lane, when the port's disconnect fails the call).
 * @param {chrome.runtime.Port} port @param {any} msg @param {MessagePort|null} [lane]
 */
export function postToFrame(port, msg, lane) {
  try {
    if (lane && LANE_TO_FRAME.has(msg.type)) lane.postMessage(msg);
    else port.postMessage(msg);
    return true;
  } catch {
    return false;
  }
}

export class FramePorts {
  /**
   * @param {{
   *   chrome: typeof globalThis.chrome,
   *   registry: import('../lib/registry.js').Registry,
   *   changed: () => void,
   *   portGone: (port: chrome.runtime.Port, tabId: number) => void,
   * }} opts
   *   changed: the registry may have changed (coalesced into one diff for the host);
   *   portGone: a frame's document went away (its calls fail; LANE_GRACE_MS later if it had a lane)
   */
  constructor({ chrome, registry, changed, portGone }) {
    this.chrome = chrome;
    this.registry = registry;
    this.changed = changed;
    this.portGone = portGone;
    /**
     * Ports by "tabId:frameId": only the current port of a frame reports tools.
     * @type {Map<string, {port: chrome.runtime.Port, site: string|null, https: boolean, top: boolean}>}
     */
    this.ports = new Map();
    /** @type {Map<chrome.runtime.Port, MessagePort>} frame lanes, by the port they belong to */
    this.lanes = new Map();
    /** @type {WeakMap<chrome.runtime.Port, (frame: Frame, msg: any) => void>} */
    this.routes = new WeakMap();
    /** @type {LanePairs<Frame>} */
    this.pairs = new LanePairs({ paired: (lane, frame) => this.attachLane(lane, frame) });
    /** Off: new calls take the ports (bench/chain.py measures the lane this way, interleaved). */
    this.lanesOn = true;
  }

  /** A frame's lane, if it has one up (and lanes are on). @param {chrome.runtime.Port} port */
  laneOf(port) {
    return this.lanesOn ? this.lanes.get(port) ?? null : null;
  }

  /**
   * The worker's `message` event: a MessagePort from the lane bridge (page/bridge/lane.html).
   * Only an extension page can post to the worker; the page it sits in is still untrusted, so the
   * port is only kept until a runtime port claims its nonce.
   * @param {{data: unknown, ports: readonly MessagePort[], origin?: string}} ev
   */
  offerLane(ev) {
    this.pairs.offer(ev.data, ev.ports);
  }

  /** A frame's `lane` message: the nonce it sent with its MessagePort. @param {Frame} frame @param {any} msg */
  claimLane(frame, msg) {
    if (this.lanes.has(frame.port) || !this.routes.has(frame.port)) return; // one lane a port; gone ports none
    this.pairs.claim(msg.nonce, frame);
  }

  /** @param {MessagePort} lane @param {Frame} frame */
  attachLane(lane, frame) {
    const route = this.routes.get(frame.port);
    if (!route || this.lanes.has(frame.port)) return void lane.close();
    this.lanes.set(frame.port, lane);
    lane.onmessage = (ev) => {
      const msg = ev.data;
      if (msg && typeof msg === 'object' && LANE_FROM_FRAME.has(msg.type)) route(frame, msg);
    };
    lane.postMessage({ type: 'lane_ready' });
  }

  /** @param {number} tabId @param {number} frameId */
  get(tabId, frameId) {
    return this.ports.get(frameKey(tabId, frameId));
  }

  /**
   * A content script connected (port `webmcp-page`), in the tab and frame routes.js found it in
   * (lib/senders.js `ourFrame`); its messages go to `route`.
   * @param {chrome.runtime.Port} port
   * @param {{tab: chrome.tabs.Tab, tabId: number, frameId: number}} at
   * @param {(frame: Frame, msg: any) => void} route
   */
  connect(port, { tab, tabId, frameId }, route) {
    const sender = /** @type {chrome.runtime.MessageSender} */ (port.sender);
    const key = frameKey(tabId, frameId);
    // The browser's view of the frame's URL, not what the frame says about itself; an
    // about:blank/srcdoc (or blob:) frame's is its origin, the document that made it.
    const frameUrl = urlForSite(sender.url, sender.origin);
    // The tab's own page. Chrome's MessageSender has no frameType, and a prerendered page's frame
    // has a non-zero id: it is not the tab's page until activated (tabNavigated moves it then).
    const top = frameId === 0;
    this.ports.set(key, { port, site: siteOf(frameUrl), https: isHttps(frameUrl), top });
    /** @type {Frame} */
    const frame = { port, key, tabId, frameId, tab, frameUrl, top };

    this.routes.set(port, route);
    port.onMessage.addListener((msg) => route(frame, msg));
    port.onDisconnect.addListener(() => {
      void this.chrome.runtime.lastError; // read, so Chrome does not report it as unchecked
      this.routes.delete(port);
      const lane = this.lanes.get(port);
      this.lanes.delete(port); // no new calls on it
      if (this.ports.get(key)?.port === port) {
        this.ports.delete(key);
        this.registry.removeFrame(tabId, frameId);
        this.changed();
      }
      if (!lane) return this.portGone(port, tabId);
      // A lane is not ordered with its port: answers still on it come in before the calls fail.
      setTimeout(() => {
        lane.close();
        this.portGone(port, tabId);
      }, LANE_GRACE_MS);
    });
  }

  /**
   * A frame's whole tool list (`tools` message).
   * @param {Frame} frame @param {any} msg
   */
  report(frame, msg) {
    const { port, key, tabId, frameId, tab, frameUrl, top } = frame;
    if (this.ports.get(key)?.port !== port) return; // a document that has been replaced
    // The frame's origin is the browser's (port.sender), never what the page says.
    const moved = this.registry.reportFrame(tabId, frameId, tab.windowId, frameUrl || String(msg.url ?? ''),
      msg.tools, msg.native === true,
      { top, tabUrl: tab.url, dropped: msg.dropped, origin: port.sender?.origin, allows: msg.allows,
        grant: msg.grant });
    if (moved) this.afterSiteChange(tabId, port);
    this.changed();
  }

  /**
   * After a tab changed site: its frames of another site (the old documents) may no longer
   * report, and frames of the new site whose entries were dropped with the old ones (e.g. an
   * activated prerendered page) are asked to send their list again.
   * @param {number} tabId
   * @param {chrome.runtime.Port} [reporter] the port whose report moved the tab: it needs no sync
   */
  afterSiteChange(tabId, reporter) {
    const site = this.registry.siteOfTab(tabId);
    const https = this.registry.tabIsHttps(tabId);
    const prefix = `${tabId}:`;
    for (const [key, entry] of this.ports) {
      if (!key.startsWith(prefix)) continue;
      // A main document of the other scheme (http left for https, or back) is the old page too:
      // its late report must not turn the tab back.
      if (entry.site !== site || (entry.top && entry.https !== https && entry.port !== reporter)) this.ports.delete(key);
      else if (entry.port !== reporter) postToFrame(entry.port, { type: 'sync' });
    }
  }

  /** @param {number} tabId */
  tabRemoved(tabId) {
    const prefix = `${tabId}:`;
    for (const key of this.ports.keys()) if (key.startsWith(prefix)) this.ports.delete(key);
  }
}
