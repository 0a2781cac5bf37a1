// A rate limit per key (per site): a bucket of `burst` tokens, refilled one per `intervalMs` (kept
// as the time its "theoretical arrival" reaches, so integer ms stay exact). An event costs one
// token or more (a site's update costs by its size), never more than the whole bucket.
// Pure: the caller passes the time. A refused event is not lost; the caller keeps its latest
// state and asks again after `waitMs()`.

export class RateLimit {
  /** @param {{burst: number, intervalMs: number}} opts */
  constructor({ burst, intervalMs }) {
    this.intervalMs = intervalMs;
    /** How far ahead of now a key's arrival time may run: the burst. */
    this._tolerance = (burst - 1) * intervalMs;
    /** @type {Map<string, number>} per key, when its bucket would be full again */
    this._tat = new Map();
    /** Keys refused since they last got through: when they may go. */
    /** @type {Map<string, number>} */
    this._waiting = new Map();
  }

  /**
   * Lets an event for `key` happen now, or refuses it.
   * @param {string} key
   * @param {number} now ms
   * @param {number} [cost] tokens it takes: 1 or more, capped at the burst
   * @returns {boolean} whether the event may happen now
   */
  take(key, now, cost = 1) {
    const tokens = Math.min(Math.max(1, Math.floor(cost) || 1), this._tolerance / this.intervalMs + 1);
    const tat = Math.max(this._tat.get(key) ?? now, now);
    const spend = (tokens - 1) * this.intervalMs;
    if (tat + spend - now > this._tolerance) {
      this._waiting.set(key, tat + spend - this._tolerance);
      return false;
    }
    this._tat.set(key, tat + spend + this.intervalMs);
    this._waiting.delete(key);
    if (this._tat.size > 1024) this._prune(now);
    return true;
  }

  /**
   * How long until a key refused since may go again; null when none waits. Call it right after
   * a round of take(): a key whose time has come and that was not asked again has nothing left
   * to send, and is forgotten.
   * @param {number} now ms
   * @returns {number|null}
   */
  waitMs(now) {
    let next = Infinity;
    for (const [key, at] of this._waiting) {
      if (at <= now) this._waiting.delete(key);
      else next = Math.min(next, at);
    }
    return next === Infinity ? null : next - now;
  }

  /** Forgets a key (its waiting state too). @param {string} key */
  forget(key) {
    this._tat.delete(key);
    this._waiting.delete(key);
  }

  /** Keys whose bucket is full again need no memory. @param {number} now */
  _prune(now) {
    for (const [key, tat] of this._tat) if (tat <= now && !this._waiting.has(key)) this._tat.delete(key);
  }
}
