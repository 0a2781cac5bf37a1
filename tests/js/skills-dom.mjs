// A page for the page agent's skill tests (skills-steps, skills-selectors): the real agent files
// (background/page-calls.js AGENT_FILES, in order) run as classic scripts in a jsdom window, as
// Chrome runs them in the isolated world. jsdom has no layout, so the few layout-bound calls get
// stand-ins here: checkVisibility (hidden attribute or display:none on the element or an
// ancestor) and CSS.escape (the CSSOM algorithm).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import { AGENT_FILES } from '../../extension/background/page-calls.js';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
const SOURCES = AGENT_FILES.map((f) => [f, readFileSync(path.join(EXT, f), 'utf8')]);

/** CSS.escape as CSSOM defines it (jsdom has no CSS namespace). */
function cssEscape(value) {
  const s = String(value);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) out += '\uFFFD';
    else if ((c >= 1 && c <= 0x1f) || c === 0x7f || (i === 0 && c >= 48 && c <= 57) ||
      (i === 1 && c >= 48 && c <= 57 && s.charCodeAt(0) === 45)) out += `\\${c.toString(16)} `;
    else if (i === 0 && s.length === 1 && c === 45) out += `\\${s[i]}`;
    else if (c >= 0x80 || c === 45 || c === 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) out += s[i];
    else out += `\\${s[i]}`;
  }
  return out;
}

/**
 * A page with the agent loaded. `run(op, params)` answers as the worker would see it (a
 * structured-clone-like copy, here JSON, so values compare across realms).
 * @param {string} html @param {{url?: string, title?: string}} [opts]
 */
export function agentPage(html, { url = 'https://shop.test/shop/', title = 'Shop' } = {}) {
  const virtualConsole = new VirtualConsole(); // jsdom's "not implemented" (navigation, scrollTo) notes stay quiet
  const dom = new JSDOM(`<!doctype html><title>${title}</title><body>${html}</body>`, { runScripts: 'outside-only', url, virtualConsole });
  const w = /** @type {any} */ (dom.window);
  w.chrome = { runtime: { getManifest: () => ({ version: '9.9.9' }) } };
  w.CSS = { escape: cssEscape };
  w.Element.prototype.checkVisibility = function checkVisibility() {
    for (let e = this; e; e = e.parentElement) {
      if (e.hidden || e.style?.display === 'none') return false;
    }
    return true;
  };
  for (const [f, src] of SOURCES) w.eval(`${src}\n//# sourceURL=${f}`);
  const doc = w.document;
  return {
    window: w,
    doc,
    $: (sel) => doc.querySelector(sel),
    async run(op, params = {}) {
      const answer = await w.webmcpSidecar.agent.run(op, params);
      return answer === undefined ? undefined : JSON.parse(JSON.stringify(answer));
    },
    /** Gives `el` ref `e1` (as a snapshot would) for ops that take a ref. */
    ref(el) {
      const st = w.webmcpSidecar.agentState;
      st.started = true;
      const ref = `e${st.next++}`;
      st.ids.set(el, ref);
      st.refs.set(ref, { el: new w.WeakRef(el), desc: el.localName });
      return ref;
    },
    /** Records the named events on `el` (or the document) as `type:target-id`. */
    record(types, el = doc) {
      const log = [];
      for (const t of types) el.addEventListener(t, (e) => log.push(`${e.type}${e.target.id ? `:${e.target.id}` : ''}`), true);
      return log;
    },
  };
}
