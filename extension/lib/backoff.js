// Reconnect delays for the native port: quick first retries, then no faster than every 30 s.

export class Backoff {
  /**
   * @param {{initialMs?: number, maxMs?: number, jitter?: number, random?: () => number}} [opts]
   *   jitter: the fraction a delay may move either way, so many browsers do not retry in step
   */
  constructor({ initialMs = 250, maxMs = 30_000, jitter = 0.2, random = Math.random } = {}) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.jitter = jitter;
    this.random = random;
    this.attempt = 0;
  }

  /** The delay before the next attempt (250, 500, 1000... ms, capped), jittered. */
  next() {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    const spread = base * this.jitter * (2 * this.random() - 1);
    return Math.round(Math.min(this.maxMs, Math.max(0, base + spread)));
  }

  /** After a connection that worked: the next failure retries quickly again. */
  reset() {
    this.attempt = 0;
  }
}
