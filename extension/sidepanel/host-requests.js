// Requests from a side-panel view to a host plugin (`panel_doc` for a kind of document,
// `panel_servers`), each answered by one message of the same `id`. Answers go to every open
// panel, so ids carry a prefix of this panel's own; a request the host does not answer in time,
// or that cannot be sent, resolves with {ok: false, error} in plain words.

export class HostRequests {
  /**
   * @param {{status?: any, send: (msg: any) => boolean}} app the panel (its link status, its port)
   * @param {string} what the request's message type, or a kind of document (its `panel_doc`)
   * @param {string} tag a few letters for the ids @param {number} withinMs how long an answer may take
   */
  constructor(app, what, tag, withinMs) {
    this.app = app;
    /** what every request carries besides its id, op and fields */
    this.head = what.startsWith('panel_') ? { type: what } : { type: 'panel_doc', kind: what };
    this.withinMs = withinMs;
    this.prefix = `${tag}.${Math.random().toString(36).slice(2, 8)}.`;
    this.seq = 0;
    /** @type {Map<string, {resolve: (r: any) => void, timer: ReturnType<typeof setTimeout>}>} */
    this.waiting = new Map();
  }

  /** @param {string} op @param {object} [fields] @returns {Promise<any>} the answer */
  send(op, fields = {}) {
    const id = `${this.prefix}${++this.seq}`;
    return new Promise((resolve) => {
      if (!this.app.status?.connected || !this.app.send({ ...this.head, id, op, ...fields })) {
        return resolve({ ok: false, error: this.app.status?.hint ?? 'The host is not connected.' });
      }
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ ok: false, error: 'The host did not answer.' });
      }, this.withinMs);
      this.waiting.set(id, { resolve, timer });
    });
  }

  /** An answer: settles our request of its id (another panel's, or a push, is left alone). */
  settle(msg) {
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    clearTimeout(w.timer);
    w.resolve(msg);
  }
}
