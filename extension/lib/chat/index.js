// The chat-site helpers for ES modules (the worker, the node tests): the classic scripts below
// are also loaded into chat pages' isolated world (background/chat-sites.js), where each adds
// itself to `webmcpSidecar.chat`; here they run once for that side effect and are re-exported.

import './json-path.js';
import './streams.js';
import './tool-calls.js';

const chat = /** @type {any} */ (globalThis).webmcpSidecar.chat;

/** @type {{parsePath: (p: string) => any[]|null, getPath: (v: any, steps: any[]) => any, updatePath: (v: any, steps: any[], fn: (old: any) => any) => any, JSON_STEP: object}} */
export const path = chat.path;
/** @type {{sseParser: () => any, lineParser: () => any, answerReader: (spec: any) => any, MAX_TEXT: number}} */
export const streams = chat.streams;
/** @type {any} */
export const calls = chat.calls;
/** The files a chat page's isolated world gets, in order (with page/chat/*.js after them). */
export const CHAT_LIB_FILES = ['lib/chat/json-path.js', 'lib/chat/streams.js', 'lib/chat/tool-calls.js'];
