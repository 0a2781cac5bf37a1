// The chat-site helpers for ES modules (the worker, the node tests): the classic scripts below
// are also loaded into chat pages' isolated world (background/chat-sites.js), where each adds
// itself to `webmcpSidecar.chat`; here they run once for that side effect and are re-exported.

import './json-path.js';
import './streams.js';
import './tool-calls.js';

const chat = /** @type {any} */ (globalThis).webmcpSidecar.chat;

/** @type {{parsePath: (p: string) => any[]|null, getPath: (v: any, steps: any[]) => any, getAll: (v: any, steps: any[]) => any[], updatePath: (v: any, steps: any[], fn: (old: any) => any) => any, single: (steps: any[]) => boolean, JSON_STEP: object, ALL_STEP: object}} */
export const path = chat.path;
/** @type {{sseParser: () => any, lineParser: () => any, connectParser: () => any, patchDocument: (spec: any) => any, answerReader: (spec: any) => any,
 *   rewriteConnect: (bytes: Uint8Array, fn: (m: any) => any) => Uint8Array|null, bytesOf: (s: string) => Uint8Array, binaryOf: (b: Uint8Array) => string, MAX_TEXT: number}} */
export const streams = chat.streams;
/** @type {any} */
export const calls = chat.calls;
/** The files a chat page's isolated world gets, in order (with page/chat/*.js after them). */
export const CHAT_LIB_FILES = ['lib/chat/json-path.js', 'lib/chat/streams.js', 'lib/chat/tool-calls.js'];
