// Message shapes and constants shared by the service worker and the content scripts.
// The authoritative models are host/webmcp_sidecar/wire/messages.py (pydantic):
// whatever the extension sends must validate against them.

// The constants are written once, in host/webmcp_sidecar/wire/constants.py, and generated into
// lib/generated/protocol.js (`python -m webmcp_sidecar.gen_js`); this module re-exports them
// under the names the extension uses, with the message shapes below.
export {
  PROTOCOL_VERSION, HOST_NAME, PAGE_PORT_NAME, PANEL_PORT_NAME, CHAT_PORT_NAME, PANEL_SESSION, DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS, MAX_BROWSER_TIMEOUT_MS, DEFAULT_MAX_BYTES, TOOL_NAME_RE, TOOL_SOURCES, ERROR_CODES,
  ERROR_TEXTS, PANEL_TYPES, AGENT_TYPES, BROWSER_TOOLS, SETTINGS_RANGES, BROWSER_TO_HOST_SPLIT,
  RESULT_PART_CHARS, timeoutText,
  /** Chrome kills the native port on a larger host->browser frame; the host splits. */
  MAX_TO_BROWSER as HOST_TO_BROWSER_MAX_FRAME,
  /** Largest message we are willing to reassemble from chunks. */
  MAX_REASSEMBLED as REASSEMBLY_MAX,
} from './generated/protocol.js';
import { VERSION_MISMATCH } from './generated/protocol.js';

/** Extra time the service worker gives the content script before answering `timeout` itself. */
export const TIMEOUT_GRACE_MS = 1_000;

/**
 * What the panel shows (and calls are answered with) when extension and host speak different
 * protocols.
 * @param {unknown} extension @param {unknown} host
 */
export function versionMismatch(extension, host) {
  return VERSION_MISMATCH.replace('{extension}', String(extension)).replace('{host}', String(host));
}

/**
 * @typedef {import('./generated/protocol.js').ToolSource} ToolSource
 * @typedef {import('./generated/protocol.js').ErrorCode} ErrorCode
 *
 * @typedef {{readOnlyHint?: boolean, destructiveHint?: boolean, idempotentHint?: boolean,
 *   openWorldHint?: boolean, untrustedContentHint?: boolean, [k: string]: unknown}} ToolAnnotations
 * @typedef {{name: string, title?: string, description: string, inputSchema?: object,
 *   annotations?: ToolAnnotations, source: ToolSource}} Tool  as the content script reports it
 * @typedef {{code: ErrorCode, message: string}} CallError
 *
 * The native port's messages: typedefs generated from the models (wire/messages.py) into
 * lib/generated/message-types.js, named here as the extension uses them.
 * @typedef {import('./generated/message-types.js').Hello} HelloMsg
 * @typedef {import('./generated/message-types.js').Registry} RegistryMsg
 * @typedef {import('./generated/message-types.js').SiteTools} SiteToolsMsg  tools [] = site gone
 * @typedef {import('./generated/message-types.js').Result} ResultMsg  value = the page's result as JSON text
 * @typedef {import('./generated/message-types.js').Log} LogMsg
 * @typedef {import('./generated/message-types.js').SessionTabs} SessionTabsMsg
 * @typedef {Required<import('./generated/message-types.js').Call>} CallMsg  as checked: defaults filled in
 * @typedef {import('./generated/message-types.js').Cancel} CancelMsg
 * @typedef {import('./generated/message-types.js').OpenUrl} OpenUrlMsg
 * @typedef {import('./generated/message-types.js').BrowserCall} BrowserCallMsg  session 'panel' = the tab in view
 * @typedef {import('./generated/message-types.js').Session | import('./generated/message-types.js').SessionEnd} SessionMsg
 * @typedef {import('./generated/message-types.js').HostHello} HostHelloMsg
 * @typedef {import('./generated/message-types.js').Chunk} ChunkMsg
 *   the `data` of a cid's chunks, joined in seq order, is one message's JSON text
 * @typedef {import('./generated/message-types.js').Ping | import('./generated/message-types.js').Pong} PingMsg
 *
 * --- content script <-> service worker (port `webmcp-page`, one per frame; no Python model) ---
 * @typedef {{type: 'tools', url: string, native: boolean, tools: Tool[],
 *   dropped?: import('./tools.js').Dropped}} FrameToolsMsg
 * @typedef {{type: 'result', id: string, ok: boolean, value?: string, error?: CallError,
 *   navigating?: boolean, parts?: number}} FrameResultMsg
 *   parts: how many `result_part`s came first; `value` is then the rest of the result
 * @typedef {{type: 'result_part', id: string, seq: number, data: string}} FrameResultPartMsg
 *   a piece of a long result (page/isolated/relay.js), in seq order from 0, before its `result`
 * @typedef {{type: 'call', id: string, tool: string, args: object, timeout_ms: number,
 *   max_bytes: number}} FrameCallMsg
 * @typedef {{type: 'cancel', id: string}} FrameCancelMsg
 * @typedef {{type: 'sync'}} FrameSyncMsg  send your whole list again (the worker dropped it)
 */
