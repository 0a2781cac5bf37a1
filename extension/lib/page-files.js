// The page code the worker injects into a frame on its first use of WebMCP (background/
// page-install.js; docs/PAGE_CODE.md, "What runs in a page"), and the MAIN world's stubs the
// worker registers per mode (background/page-stubs.js). The manifest's content_scripts hold only
// the isolated stub; these files come after the stubs, in this order (each later file uses what
// the earlier ones put on `webmcpSidecar`; relay.js last).

/** The MAIN world's full code, polyfill mode (the stub, page/main/surface.js, asks for it through
 * the ISOLATED stub; adopt.js last hands it to the stub). Native mode needs none. */
export const MAIN_FILES = Object.freeze([
  'page/main/json-safe.js',
  'page/main/interfaces.js',
  'page/main/frame-tree.js',
  'page/main/frame-rows.js',
  'page/main/frame-remote.js',
  'page/main/polyfill.js',
  'page/main/bridge.js',
  'page/main/form-schema.js',
  'page/main/declarative.js',
  'page/main/adopt.js',
]);

/** The isolated world's full code (the stub, page/isolated/stub.js, asks for it). */
export const ISOLATED_FILES = Object.freeze([
  'page/isolated/generated-limits.js',
  'page/isolated/tool-checks.js',
  'page/isolated/validate.js',
  'page/isolated/outcomes.js',
  'page/isolated/leaving.js',
  'page/isolated/frame-policy.js',
  'page/isolated/native-tools.js',
  'page/isolated/lane.js',
  'page/isolated/calls.js',
  'page/isolated/relay.js',
]);

/** The MAIN world's stub, per mode: what every http(s) frame runs at document_start. The worker
 * registers the one its browser needs (background/page-stubs.js): V8 compiles a stub in every
 * document, and its time there grows with its code (bench/README.md, "Page load"), so neither
 * mode carries the other's installer. `any`: both, only until the worker knows the mode (the
 * first start after an install). */
const STUB_COMMON = ['page/main/base.js', 'page/main/generated-constants.js', 'page/main/json.js',
  'page/main/tool-dict.js', 'page/main/legacy.js'];
export const STUB_FILES = Object.freeze({
  /** Chromium's own WebMCP: its registry stays; native.js watches it. */
  native: Object.freeze([...STUB_COMMON, 'page/main/native.js', 'page/main/start.js']),
  /** No WebMCP in the browser: the polyfill's surface (its full code comes on first use). */
  polyfill: Object.freeze([...STUB_COMMON, 'page/main/selectors.js', 'page/main/surface.js', 'page/main/start.js']),
  any: Object.freeze([...STUB_COMMON, 'page/main/native.js', 'page/main/selectors.js', 'page/main/surface.js',
    'page/main/start.js']),
});

/** A registered stub's id (chrome.scripting.registerContentScripts), one per file list: the
 * worker registers the next before it lets the last go, so no document loads between them.
 * @param {StubFiles} mode */
export const stubId = (mode) => `webmcp-main-stub-${mode}`;
/** Every stub id there is. */
export const STUB_IDS = Object.freeze(/** @type {StubFiles[]} */ (['native', 'polyfill', 'any']).map(stubId));

/** @typedef {'native'|'polyfill'} StubMode */
/** @typedef {StubMode|'any'} StubFiles */

/**
 * The MAIN stub as chrome.scripting registers it: every http(s) frame, also about:blank, srcdoc
 * and blob: frames of such pages (matchOriginAsFallback), at document_start, kept across browser
 * sessions (so a restored tab has it before the worker runs).
 * @param {StubFiles} mode
 */
export function stubScript(mode) {
  return {
    id: stubId(mode),
    js: [...STUB_FILES[mode]],
    matches: ['http://*/*', 'https://*/*'],
    runAt: /** @type {const} */ ('document_start'),
    allFrames: true,
    matchOriginAsFallback: true,
    world: /** @type {const} */ ('MAIN'),
    persistAcrossSessions: true,
  };
}

/** A file of a registered script as we name it: Chrome may give it back with a leading slash.
 * @param {unknown} f */
export const scriptPath = (f) => String(f).replace(/^\//, '');

/**
 * Whether a registered script (chrome.scripting.getRegisteredContentScripts) is this one.
 * @param {any} have @param {ReturnType<typeof stubScript>} want
 */
export function sameStub(have, want) {
  if (!have || typeof have !== 'object') return false;
  const files = (/** @type {unknown} */ v) => (Array.isArray(v) ? v.map(scriptPath).join('\n') : '');
  return files(have.js) === files(want.js) && files(have.matches) === files(want.matches)
    && have.world === want.world && have.runAt === want.runAt && have.allFrames === want.allFrames
    && have.matchOriginAsFallback === want.matchOriginAsFallback;
}
