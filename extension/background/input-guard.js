// Trusted input lands on the element it was aimed at, or not at all. The page agent aims (a
// point, or the focus) and marks the element with a fresh nonce (page/agent/act.js markAim); the
// worker then sends real input to the *tab*, and in between the page may slide another site's
// frame under the point or focus one. So right before each press or insert the worker asks the
// browser, through the same debugger session, what is at the point (DOM.getNodeForLocation) or
// has the focus, and refuses unless it is the marked element (or inside it) in the top frame.
// The question runs in an isolated world of our own (Page.createIsolatedWorld), where the page's
// changes to prototypes do not reach. A page can still race the last milliseconds between the
// check and the press; typing is therefore checked after too (the value changed), and reported.

/** The attribute page/agent/act.js marks the aimed element with. */
export const AIM_ATTR = 'data-webmcp-sidecar-aim';
const WORLD = 'webmcp-sidecar-input-guard';

/** @typedef {(method: string, params?: object) => Promise<any>} Send */

// Runs in our world on the node the browser found at the point: is it the aimed element?
const AT_POINT = `function (attr, nonce) {
  const owner = (n) => n.nodeType === 1 && /^(iframe|frame|object|embed|fencedframe|portal)$/.test(n.localName);
  const name = (n) => n.nodeType === 1 ? '<' + n.localName + (n.id ? '#' + String(n.id).slice(0, 40) : '') + '>' : 'text';
  if (owner(this)) return { ok: false, what: 'a frame ' + name(this) + ' showing ' + String(this.src || this.data || 'another document').slice(0, 200) };
  for (let n = this; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) {
    if (n.nodeType === 1 && n.getAttribute(attr) === nonce) return { ok: true };
    if (n.localName === 'label' && n.control && n.control.getAttribute(attr) === nonce) return { ok: true };
  }
  return { ok: false, what: name(this) };
}`;

// Runs in our world: does the aimed element (or something inside it) have the keyboard focus?
// With no nonce: only that the focus is in this document, not in a frame inside it.
const FOCUSED = `function (attr, nonce) {
  const owner = (n) => n.nodeType === 1 && /^(iframe|frame|object|embed|fencedframe|portal)$/.test(n.localName);
  let a = document.activeElement;
  for (let i = 0; a && a.shadowRoot && a.shadowRoot.activeElement && i < 64; i++) a = a.shadowRoot.activeElement;
  if (!a) return { ok: false, what: 'nothing' };
  const name = '<' + a.localName + (a.id ? '#' + String(a.id).slice(0, 40) : '') + '>';
  if (owner(a)) return { ok: false, what: 'a frame ' + name + ' showing ' + String(a.src || a.data || 'another document').slice(0, 200) };
  if (!nonce) return { ok: true };
  // A closed shadow root hides what is focused inside it: its host carries host:nonce.
  if (a.getAttribute(attr) === 'host:' + nonce && !a.shadowRoot) return { ok: true };
  for (let n = a; n; n = n.parentNode || (n instanceof ShadowRoot ? n.host : null)) {
    if (n.nodeType === 1 && n.getAttribute(attr) === nonce) return { ok: true };
  }
  return { ok: false, what: name };
}`;

/** Our isolated world in the tab's top frame: its frame id and context id. @param {Send} send */
async function ourWorld(send) {
  const tree = await send('Page.getFrameTree');
  const frameId = tree?.frameTree?.frame?.id;
  const { executionContextId } = await send('Page.createIsolatedWorld', { frameId, worldName: WORLD, grantUniveralAccess: false });
  return { frameId, contextId: executionContextId, tree: tree?.frameTree };
}

/** The URL a frame (of the same process; others are their owner element here) shows. */
function frameUrl(node, id, depth = 0) {
  if (!node || depth > 32) return '';
  if (node.frame?.id === id) return String(node.frame.url ?? '');
  for (const child of node.childFrames ?? []) {
    const url = frameUrl(child, id, depth + 1);
    if (url) return url;
  }
  return '';
}

/**
 * What the press at (x, y) would hit, when it is not the aimed element: null when it is.
 * @param {Send} send @param {{x: number, y: number, nonce: string}} aim
 * @returns {Promise<string|null>}
 */
export async function pointProblem(send, { x, y, nonce }) {
  const { frameId, contextId, tree } = await ourWorld(send);
  let hit;
  try {
    // Input takes viewport pixels; the hit test, the document's (scrolled) ones.
    const m = await send('Page.getLayoutMetrics');
    const dx = Math.round(m?.cssLayoutViewport?.pageX ?? 0), dy = Math.round(m?.cssLayoutViewport?.pageY ?? 0);
    hit = await send('DOM.getNodeForLocation', { x: x + dx, y: y + dy, includeUserAgentShadowDOM: false, ignorePointerEventsNone: false });
  } catch {
    return 'nothing is at that point now';
  }
  if (hit?.frameId && hit.frameId !== frameId) return `a frame showing ${frameUrl(tree, hit.frameId).slice(0, 200) || 'another document'} is at that point now`;
  const resolved = await send('DOM.resolveNode', { backendNodeId: hit?.backendNodeId, executionContextId: contextId }).catch(() => null);
  const objectId = resolved?.object?.objectId;
  if (!objectId) return 'the browser could not say what is at that point';
  try {
    const { result } = await send('Runtime.callFunctionOn', {
      objectId, functionDeclaration: AT_POINT, arguments: [{ value: AIM_ATTR }, { value: nonce }], returnByValue: true,
    });
    const v = result?.value;
    return v?.ok === true ? null : `${String(v?.what ?? 'something else').slice(0, 300)} is at that point now`;
  } finally {
    await send('Runtime.releaseObject', { objectId }).catch(() => {});
  }
}

/**
 * Where the keyboard focus is, when not on the aimed element (or, with no nonce, when it is in
 * a frame inside the page): null when typing or keys would go where they should.
 * @param {Send} send @param {string|null} nonce
 * @returns {Promise<string|null>}
 */
export async function focusProblem(send, nonce) {
  const { contextId } = await ourWorld(send);
  const { result } = await send('Runtime.callFunctionOn', {
    executionContextId: contextId, functionDeclaration: FOCUSED,
    arguments: [{ value: AIM_ATTR }, { value: nonce ?? '' }], returnByValue: true,
  });
  const v = result?.value;
  return v?.ok === true ? null : `the keyboard focus is on ${String(v?.what ?? 'something else').slice(0, 300)} now`;
}

/**
 * Whether typed text reached the field: its value changed, or it shows the text (typing what
 * was there already). `after` null: the field could not be read (gone with the page).
 * @param {string} text @param {string|undefined} before @param {string|null} after
 */
export function typingLanded(text, before, after) {
  if (!text || after === null) return true;
  return after !== before || after.includes(text);
}
