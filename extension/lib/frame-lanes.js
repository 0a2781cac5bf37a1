// Pairing a content script's MessagePort with its runtime port (background/frame-ports.js).
//
// A frame's calls and results can go over a MessageChannel instead of its chrome.runtime port:
// measured, the worker <-> content script hop costs about half (bench/README.md, "The frame
// lane"). The content script makes the channel and hands one end to the worker through an
// extension frame (page/bridge/lane.html), with a random nonce; it sends the same nonce on its
// runtime port. Only the two together make a lane, so a page that loads the bridge itself and
// sends a port of its own (it can: the bridge is web accessible) pairs with nothing. Both halves
// may come first; unpaired ones are few and short-lived, so a flood of ports costs nothing.

export const LANE_NONCE = /^[0-9a-f]{32}$/;
const MAX_WAITING = 32; // unpaired halves kept, each side; the oldest goes first
const WAIT_MS = 10_000; // an unpaired half older than this is dropped

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
    /** @type {Map<string, {port: MessagePort, at: number}>} ports offered through the bridge */
    this.offered = new Map();
    /** @type {Map<string, {claimant: P, at: number}>} nonces sent on runtime ports */
    this.claimed = new Map();
  }

  /**
   * A port from the bridge (the worker's `message` event). False (and the port closed) for one
   * that is malformed.
   * @param {unknown} data the event's data: `{lane: nonce}` @param {readonly MessagePort[]} ports
   */
  offer(data, ports) {
    const nonce = /** @type {any} */ (data)?.lane;
    const port = ports?.length === 1 ? ports[0] : null;
    if (!port || typeof nonce !== 'string' || !LANE_NONCE.test(nonce) || this.offered.has(nonce)) {
      for (const p of ports ?? []) p.close();
      return false;
    }
    const waiting = this.claimed.get(nonce);
    if (waiting && this.fresh(waiting.at)) {
      this.claimed.delete(nonce);
      this.paired(port, waiting.claimant);
      return true;
    }
    this.claimed.delete(nonce);
    this.keep(this.offered, nonce, { port, at: this.now() }, (old) => old.port.close());
    return true;
  }

  /**
   * A nonce on a runtime port (the content script's `lane` message). False for a malformed one.
   * @param {unknown} nonce @param {P} claimant
   */
  claim(nonce, claimant) {
    if (typeof nonce !== 'string' || !LANE_NONCE.test(nonce) || this.claimed.has(nonce)) return false;
    const waiting = this.offered.get(nonce);
    if (waiting) {
      this.offered.delete(nonce);
      if (this.fresh(waiting.at)) {
        this.paired(waiting.port, claimant);
        return true;
      }
      waiting.port.close();
    }
    this.keep(this.claimed, nonce, { claimant, at: this.now() }, () => {});
    return true;
  }

  /** How many halves wait, each side (for tests and the worker's state). */
  get waiting() {
    return { offered: this.offered.size, claimed: this.claimed.size };
  }

  /** @param {number} at */
  fresh(at) {
    return this.now() - at <= WAIT_MS;
  }

  /**
   * @template V @param {Map<string, V & {at: number}>} map @param {string} nonce
   * @param {V & {at: number}} value @param {(v: V) => void} drop
   */
  keep(map, nonce, value, drop) {
    for (const [k, v] of map) { // oldest first: Maps keep insertion order
      if (this.fresh(v.at) && map.size < MAX_WAITING) break;
      map.delete(k);
      drop(v);
    }
    map.set(nonce, value);
  }
}
