// WebMCP Sidecar, page agent: refs. A ref (`e12`) names an element for later calls; the
// map lives in the extension's isolated world, so the page can neither read nor forge it.
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { st, page, fail } = P;

  function refFor(el, desc, base) {
    let ref = st.ids.get(el);
    if (ref) {
      const entry = st.refs.get(ref);
      if (entry) {
        entry.desc = desc;
        return ref;
      }
    } else {
      if (!st.started) {
        st.started = true;
        st.base = st.next = Math.max(1, Math.floor(Number(base) || 1));
      }
      ref = `e${st.next++}`;
      st.ids.set(el, ref);
    }
    st.refs.set(ref, { el: new WeakRef(el), desc });
    return ref;
  }

  /** @returns {{el: Element, desc: string}|{error: {code: string, message: string}}} */
  function lookup(ref) {
    if (typeof ref !== 'string' || !/^e\d+$/.test(ref)) {
      return fail('invalid_args', `"${String(ref).slice(0, 40)}" is not a ref: refs look like e12 and come from browser_snapshot.`);
    }
    const again = 'Take a new snapshot (browser_snapshot) and use its refs.';
    if (!st.started) {
      return fail('not_found', `Ref ${ref} is stale: the page has changed (navigated or reloaded) since the snapshot it came from, and this page (${page()}) has no snapshot yet. ${again}`);
    }
    if (Number(ref.slice(1)) < st.base) {
      return fail('not_found', `Ref ${ref} is stale: it is from an earlier page, and the tab has navigated since (now ${page()}). ${again}`);
    }
    const entry = st.refs.get(ref);
    if (!entry) return fail('not_found', `Ref ${ref} was not given for this page (${page()}). ${again}`);
    const el = entry.el.deref();
    if (!el || !el.isConnected) {
      return fail('not_found', `Ref ${ref} (${entry.desc}) is stale: that element is no longer on the page, which has changed since the snapshot. ${again}`);
    }
    return { el, desc: entry.desc };
  }

  Object.assign(P, { refFor, lookup });
})();
