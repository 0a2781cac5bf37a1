// Message shapes and constants shared by the service worker and the content scripts.
// The authoritative models are host/webmcp_sidecar/wire/messages.py (pydantic):
// whatever the extension sends must validate against them.

/** Native messaging host name (the manifest the installer writes). */
export const HOST_NAME = 'io.webmcp.sidecar';
/** Name of the content script <-> service worker port (one per frame). */
export const PAGE_PORT_NAME = 'webmcp-page';
export const PROTOCOL_VERSION = 1;

const MiB = 1024 * 1024;
/** Chrome kills the native port on a larger host->browser frame; the host splits. */
export const HOST_TO_BROWSER_MAX_FRAME = 1 * MiB;
/** Browser->host frames may be 64 MiB; we split above half of that to stay clear of it. */
export const BROWSER_TO_HOST_SPLIT = 32 * MiB;
/** Largest message we are willing to reassemble from chunks. */
export const REASSEMBLY_MAX = 256 * MiB;

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_BYTES = 16 * MiB;
/** Extra time the service worker gives the content script before answering `timeout` itself. */
export const TIMEOUT_GRACE_MS = 1_000;

/** WebMCP's own rule for tool names. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
export const TOOL_SOURCES = Object.freeze(['native', 'polyfill', 'legacy', 'declarative', 'skill', 'browser']);
export const ERROR_CODES = Object.freeze([
  'no_extension', 'no_tab', 'not_found', 'invalid_args', 'page_error', 'timeout',
  'cancelled', 'too_large', 'tab_closed', 'bad_request', 'internal',
]);

/**
 * @typedef {'native'|'polyfill'|'legacy'|'declarative'|'skill'|'browser'} ToolSource
 * @typedef {'no_extension'|'no_tab'|'not_found'|'invalid_args'|'page_error'|'timeout'|
 *   'cancelled'|'too_large'|'tab_closed'|'bad_request'|'internal'} ErrorCode
 *
 * @typedef {{readOnlyHint?: boolean, destructiveHint?: boolean, idempotentHint?: boolean,
 *   openWorldHint?: boolean, untrustedContentHint?: boolean, [k: string]: unknown}} ToolAnnotations
 * @typedef {{name: string, title?: string, description: string, inputSchema?: object,
 *   annotations?: ToolAnnotations, source: ToolSource}} Tool
 * @typedef {{code: ErrorCode, message: string}} CallError
 *
 * --- extension -> host (native) ---
 * @typedef {{type: 'hello', extension_version: string, browser: string, protocol: number}} HelloMsg
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
 *
 * --- both ways ---
 * @typedef {{type: 'chunk', cid: string, seq: number, last: boolean, data: string}} ChunkMsg
 *   the `data` of a cid's chunks, joined in seq order, is one message's JSON text
 * @typedef {{type: 'ping'|'pong', id: string}} PingMsg
 *
 * --- content script <-> service worker (port `webmcp-page`, one per frame) ---
 * @typedef {{type: 'tools', url: string, native: boolean, tools: Tool[],
 *   dropped?: import('./tools.js').Dropped}} FrameToolsMsg
 * @typedef {{type: 'result', id: string, ok: boolean, value?: string, error?: CallError}} FrameResultMsg
 * @typedef {{type: 'call', id: string, tool: string, args: object, timeout_ms: number,
 *   max_bytes: number}} FrameCallMsg
 * @typedef {{type: 'cancel', id: string}} FrameCancelMsg
 * @typedef {{type: 'sync'}} FrameSyncMsg  send your whole list again (the worker dropped it)
 */
