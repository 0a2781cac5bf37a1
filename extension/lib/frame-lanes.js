// Pairing a content script's MessagePort with its runtime port (background/frame-ports.js).
//
// A frame's calls and results can go over a MessageChannel instead of its chrome.runtime port:
// measured, the worker <-> content script hop costs about half (bench/README.md, "The frame
// lane"). The content script makes the channel and hands one end to the worker through an
// extension frame (page/bridge/lane.html), with a random nonce; it sends the same nonce on its
// runtime port. Only the two together make a lane, so a page that loads the bridge itself and
// sends a port of its own (it can: the bridge is web accessible) pairs with nothing. The content
// script sends its nonce before the frame even loads, so the claim comes first; a port that finds
// no claim waiting is closed at once (a page must not park ports, and what it streams into them,
// in the extension's process). Claims are few and short-lived.

export const LANE_NONCE = /^[0-9a-f]{32}$/;
/**
 * A lane is not ordered with its port: when the port closes, the worker keeps the lane this long
 * for what may still be on the way, and only then fails the frame's calls (frame-ports.js).
 */
export const LANE_GRACE_MS = 100;
const MAX_WAITING = 32; // claims kept; the oldest goes first
const WAIT_MS = 10_000; // a claim older than this pairs with nothing

/**
 * @template P the runtime-port side's value (what `claim` is given)
 */
export class LanePairs {
  /**
   * @param {{now?: () => number, paired: (port: MessagePort, claimant: P) => void}} opts
   *   paired: called once per lane, with the MessagePort and what claimed it
   */
  constructor({ now = () => Date.now(), paired }) {
    this.now = now;
    this.paired = paired;
    /** @type {Map<string, {claimant: P, at: number}>} nonces sent on runtime ports */
    this.claimed = new Map();
    /** Ports closed unpaired, so far (the worker's state; tests). */
    this.refused = 0;
  }

  /**
   * A port from the bridge (the worker's `message` event): paired with the claim of its nonce,
   * else closed. True when it made a lane.
   * @param {unknown} data the event's data: `{lane: nonce}` @param {readonly MessagePort[]} ports
   */
  offer(data, ports) {
    const nonce = /** @type {any} */ (data)?.lane;
    const ok = ports?.length === 1 && typeof nonce === 'string' && LANE_NONCE.test(nonce);
    const waiting = ok ? this.claimed.get(nonce) : undefined;
    if (waiting) this.claimed.delete(nonce);
    if (!waiting || !this.fresh(waiting.at)) {
      for (const p of ports ?? []) p.close();
      this.refused++;
      return false;
    }
    this.paired(ports[0], waiting.claimant);
    return true;
  }

  /**
   * A nonce on a runtime port (the content script's `lane` message), kept until its port comes.
   * False for a malformed or repeated one.
   * @param {unknown} nonce @param {P} claimant
   */
  claim(nonce, claimant) {
    if (typeof nonce !== 'string' || !LANE_NONCE.test(nonce) || this.claimed.has(nonce)) return false;
    for (const [k, v] of this.claimed) { // oldest first: Maps keep insertion order
      if (this.fresh(v.at) && this.claimed.size < MAX_WAITING) break;
      this.claimed.delete(k);
    }
    this.claimed.set(nonce, { claimant, at: this.now() });
    return true;
  }

  /** Claims waiting for their port, and ports refused so far (the worker's state; tests). */
  get waiting() {
    return { claimed: this.claimed.size, refused: this.refused };
  }

  /** @param {number} at */
  fresh(at) {
    return this.now() - at <= WAIT_MS;
  }
}
