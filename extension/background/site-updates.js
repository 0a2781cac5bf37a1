// The registry's changes on their way to the host: a burst of frame reports coalesced into one
// diff, a reloading tab's tools held for a grace, `site_tools` rate-limited per site, and a
// site's notice written to the host's log once.

import { SITE_UPDATE_BURST, SITE_UPDATE_INTERVAL_MS, SITE_UPDATE_TOKEN_CHARS } from '../lib/limits.js';
import { RateLimit } from '../lib/rate-limit.js';

/** How long a site's tools survive its tab reloading before the host hears they are gone. */
const RELOAD_GRACE_MS = 1_000;

export class SiteUpdates {
  /**
   * @param {{
   *   registry: import('../lib/registry.js').Registry,
   *   send: (msg: any) => boolean,
   *   log: (level: 'debug'|'info'|'warning'|'error', message: string) => void,
   *   linked: () => boolean,
   * }} opts send: to the host; linked: whether there is a host port (one that connects later
   *   gets the whole registry instead)
   */
  constructor({ registry, send, log, linked }) {
    this.registry = registry;
    this.send = send;
    this.log = log;
    this.linked = linked;
    /** `site_tools` per site: a page that changes its tools all the time costs every client little. */
    this.siteRate = new RateLimit({ burst: SITE_UPDATE_BURST, intervalMs: SITE_UPDATE_INTERVAL_MS });
    /** The notice last written to the host's log, per site. */
    this.loggedNotices = new Map();
    /** @type {ReturnType<typeof setTimeout>|null} */ this.flushTimer = null;
    /** @type {ReturnType<typeof setTimeout>|null} */ this.graceTimer = null;
    /** @type {ReturnType<typeof setTimeout>|null} */ this.rateTimer = null;
  }

  /** Coalesces a burst of frame reports into one diff. */
  schedule() {
    if (this.flushTimer === null) this.flushTimer = setTimeout(() => this.flush(), 0);
  }

  flush() {
    this.flushTimer = null;
    if (!this.linked()) return;
    this.sendChanges({ holdReloading: true });
    if (this.registry.hasUntakenChanges() && this.graceTimer === null) {
      this.graceTimer = setTimeout(() => {
        this.graceTimer = null;
        if (this.linked()) this.sendChanges({});
      }, RELOAD_GRACE_MS);
    }
  }

  /**
   * Sends the sites' changes the rate limit lets through; the others stay in the registry and
   * go, in their state of then, when their turn comes.
   * @param {{holdReloading?: boolean}} opts
   */
  sendChanges(opts) {
    const now = Date.now();
    for (const { site, tools, notice } of this.registry.takeChanges({ ...opts, allow: (s, chars) => this.siteRate.take(s, now, 1 + Math.floor(chars / SITE_UPDATE_TOKEN_CHARS)) })) {
      this.send(notice ? { type: 'site_tools', site, tools, notice } : { type: 'site_tools', site, tools });
      if (notice && this.loggedNotices.get(site) !== notice) this.log('warning', notice);
      if (notice) this.loggedNotices.set(site, notice);
      else this.loggedNotices.delete(site);
    }
    const wait = this.siteRate.waitMs(now);
    if (wait !== null && this.rateTimer === null) {
      this.rateTimer = setTimeout(() => {
        this.rateTimer = null;
        this.flush();
      }, wait);
    }
  }

  /** Clears the timers (tests drop a worker this way). */
  stop() {
    for (const timer of [this.flushTimer, this.graceTimer, this.rateTimer]) if (timer !== null) clearTimeout(timer);
    this.flushTimer = this.graceTimer = this.rateTimer = null;
  }
}
