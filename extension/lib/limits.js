// What a page may put into the chain. The numbers are written once, in
// host/webmcp_sidecar/wire/constants.py, and generated into lib/generated/protocol.js (for the
// worker, lib/tools.js, lib/registry.js) and page/isolated/generated-limits.js (for the content
// scripts, which cannot import modules). The host applies the same numbers again.

export {
  /** Nesting of objects/arrays in one tool's inputSchema or annotations; the value itself is level 1. */
  MAX_SCHEMA_DEPTH,
  /** Compact JSON (UTF-8) of one tool's inputSchema, and separately of its annotations. */
  MAX_SCHEMA_BYTES,
  /** Tools one frame may report; the rest are dropped. */
  MAX_TOOLS_PER_FRAME,
  /** Tools one site offers; the rest are cut, and the site says so. */
  MAX_TOOLS_PER_SITE,
  /** Compact JSON (UTF-8) of all of one site's tool definitions together. */
  MAX_SITE_BYTES,
  /** A tool's description and title are cut to these many characters. */
  MAX_DESCRIPTION,
  MAX_TITLE,
  /** `site_tools` per site: a bucket of tokens, one back per interval; an update costs one per started TOKEN_CHARS. */
  SITE_UPDATE_BURST,
  SITE_UPDATE_INTERVAL_MS,
  SITE_UPDATE_TOKEN_CHARS,
} from './generated/protocol.js';
