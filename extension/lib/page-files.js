// The page code the worker injects into a frame on its first use of WebMCP (background/
// page-install.js; docs/PAGE_CODE.md, "What runs in a page"). The manifest's content_scripts
// hold only the stubs; these files come after them, in this order (each later file uses what the
// earlier ones put on `webmcpSidecar`; relay.js last).

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
