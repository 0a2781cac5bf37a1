// WebMCP Sidecar, MAIN world: the polyfill's channel to the ISOLATED content script. CustomEvents
// on `window` whose detail is JSON text (docs/PROTOCOL.md, "MAIN world <-> content script"):
// the page can read and forge them, so they carry only what the page may see, and the ISOLATED
// side checks everything. Calls arrive by a per-frame id, never the extension's or the host's.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const {
    W, rApply, isArray, jsonParse, MapC, AbortControllerC, listen, detailOf,
    EXT_EVENT, isObj, domError, errorMessage, plainJson, resultText, NoResponse, tell,
  } = ns;

  /**
   * Listens for the ISOLATED world's messages and reports the registry's tools to it.
   * @param {{tools: Map<string, any>, run: (e: any, input: any, signal: AbortSignal|undefined) => Promise<unknown>}} registry
   * @returns {{announce: () => void, post: (msg: unknown) => void}}
   */
  function installBridge({ tools, run }) {
    /** @type {Map<string, AbortController>} calls from the extension, by channel id */
    const calls = new MapC();

    /** @param {unknown} msg */
    const post = (msg) => {
      try {
        tell(plainJson(msg));
      } catch {
        /* not JSON (plainJson threw): nothing to report */
      }
    };

    const announce = () => {
      const list = [];
      for (const e of tools.values()) {
        list.push({
          name: e.name,
          title: e.title || undefined,
          description: e.description,
          inputSchema: e.inputSchema,
          outputSchema: e.outputSchema,
          annotations: e.annotations,
          source: e.source,
          exposedTo: e.exposedTo,
        });
      }
      post({ type: 'tools', tools: list });
    };

    /** @param {string} id @param {string} name @param {any} args */
    const onCall = async (id, name, args) => {
      const e = tools.get(name);
      if (!e) {
        post({ type: 'result', id, ok: false, error: `No tool named "${name}" on this page.` });
        return;
      }
      const ac = new AbortControllerC();
      calls.set(id, ac);
      try {
        const v = await run(e, isObj(args) && !isArray(args) ? args : {}, ac.signal);
        // A form submitted without respondWith: our words, where the page's executeTool gets "null".
        const none = v instanceof NoResponse;
        const value = none ? /** @type {any} */ (v).text : v;
        // noResponse: a form submitted without respondWith (if it navigates, the next document answers).
        if (!ac.signal.aborted) post(none ? { type: 'result', id, ok: true, value: resultText(value), noResponse: true } : { type: 'result', id, ok: true, value: resultText(value) });
      } catch (err) {
        if (!ac.signal.aborted) post({ type: 'result', id, ok: false, error: errorMessage(err) });
      } finally {
        if (calls.get(id) === ac) calls.delete(id);
      }
    };

    rApply(listen, W, [
      EXT_EVENT,
      /** @param {Event} ev */ (ev) => {
        let msg;
        try {
          const d = detailOf ? rApply(detailOf, ev, []) : /** @type {any} */ (ev).detail;
          if (typeof d !== 'string') return;
          msg = jsonParse(d);
        } catch {
          return;
        }
        if (!isObj(msg)) return;
        if (msg.type === 'sync') announce();
        else if (msg.type === 'call' && typeof msg.id === 'string' && typeof msg.name === 'string') {
          if (!calls.has(msg.id)) onCall(msg.id, msg.name, msg.args);
        } else if (msg.type === 'cancel' && typeof msg.id === 'string') {
          const ac = calls.get(msg.id);
          if (ac) {
            calls.delete(msg.id);
            ac.abort(domError('The call was cancelled.', 'AbortError'));
          }
        }
      },
    ]);
    // bfcache restore: the extension side lost its port, announce the list again.
    rApply(listen, W, [
      'pageshow',
      /** @param {PageTransitionEvent} ev */ (ev) => {
        if (ev.persisted) announce();
      },
    ]);

    return { announce, post };
  }

  Object.assign(ns, { installBridge });
})();
