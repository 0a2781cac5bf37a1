// Message shapes and constants shared by the service worker and the content scripts.
// The authoritative models are host/webmcp_sidecar/wire/messages.py (pydantic):
// whatever the extension sends must validate against them.

// The constants are written once, in host/webmcp_sidecar/wire/constants.py, and generated into
// lib/generated/protocol.js (`python -m webmcp_sidecar.gen_js`); this module re-exports them
// under the names the extension uses, with the message shapes below.
export {
  PROTOCOL_VERSION, HOST_NAME, PAGE_PORT_NAME, PANEL_PORT_NAME, PANEL_SESSION, DEFAULT_TIMEOUT_MS,
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
 *   annotations?: ToolAnnotations, source: ToolSource}} Tool
 * @typedef {{code: ErrorCode, message: string}} CallError
 *
 * --- extension -> host (native) ---
 * @typedef {{type: 'hello', extension_version: string, browser: string, protocol: number, origin?: string}} HelloMsg
 * @typedef {{type: 'registry', sites: Record<string, Tool[]>, notices?: Record<string, string>}} RegistryMsg
 * @typedef {{type: 'site_tools', site: string, tools: Tool[], notice?: string}} SiteToolsMsg  tools [] = site gone; notice: what was cut or ignored
 * @typedef {{type: 'result', id: string, ok: boolean, value?: string|null, error?: CallError|null,
 *   tab_id?: number|null}} ResultMsg  value = the page's result as JSON text
 * @typedef {{type: 'log', level: 'debug'|'info'|'warning'|'error', message: string}} LogMsg
 * @typedef {{type: 'session_tabs', session: string, tabs: number[], current: number|null}} SessionTabsMsg
 *
 * --- host -> extension (native) ---
 * @typedef {{type: 'call', id: string, site: string, tool: string, args: object,
 *   timeout_ms: number, max_bytes: number}} CallMsg
 * @typedef {{type: 'cancel', id: string}} CancelMsg
 * @typedef {{type: 'open_url', id: string, url: string}} OpenUrlMsg
 * @typedef {{type: 'browser_call', id: string, session: string, tool: string, args: object,
 *   timeout_ms: number, tab_id?: number}} BrowserCallMsg  session 'panel' = the tab in view
 * @typedef {{type: 'session'|'session_end', session: string, client?: string}} SessionMsg
 * @typedef {{type: 'host_hello', protocol: number, host_version?: string}} HostHelloMsg
 *
 * --- both ways ---
 * @typedef {{type: 'chunk', cid: string, seq: number, last: boolean, data: string}} ChunkMsg
 *   the `data` of a cid's chunks, joined in seq order, is one message's JSON text
 * @typedef {{type: 'ping'|'pong', id: string}} PingMsg
 *
 * --- content script <-> service worker (port `webmcp-page`, one per frame) ---
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
