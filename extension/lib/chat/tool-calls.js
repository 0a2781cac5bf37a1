// Tool calls in a chat model's answer (docs/CHAT_SITES.md): the exact format the instruction
// block asks for, `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, caught as soon as
// its closing tag arrives; a call that is not that (bad JSON, no name, arguments not an object)
// is reported in plain words and nothing runs. Also the instruction block itself, the chat's
// names for the chosen tools, and a result as the text that goes back into the chat. Pure.
(() => {
  'use strict';

  const ns = /** @type {any} */ (globalThis).webmcpSidecar ??= {};
  const chat = ns.chat ??= {};

  const OPEN = '<tool_call>';
  const CLOSE = '</tool_call>';
  const MAX_CALL = 100_000;
  const MAX_CALLS = 16;
  const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

  /**
   * @typedef {{ok: true, name: string, arguments: Record<string, unknown>, raw: string}} GoodCall
   * @typedef {{ok: false, error: string, raw: string}} BadCall
   * @typedef {GoodCall|BadCall} FoundCall
   */

  /** What one `<tool_call>` block holds. @param {string} inner @returns {FoundCall} */
  function readCall(inner) {
    const raw = inner.slice(0, 2_000);
    // Models like to fence JSON; the fence is not part of the call.
    const body = inner.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
    if (inner.length > MAX_CALL) return { ok: false, error: `The tool call is too long (over ${MAX_CALL} characters).`, raw };
    let v;
    try {
      v = JSON.parse(body);
    } catch (e) {
      return { ok: false, error: `The tool call is not valid JSON (${String(e?.message ?? e).slice(0, 200)}), so nothing ran.`, raw };
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'The tool call must be a JSON object with "name" and "arguments", so nothing ran.', raw };
    if (typeof v.name !== 'string' || !NAME.test(v.name)) return { ok: false, error: 'The tool call has no valid "name", so nothing ran.', raw };
    const args = v.arguments === undefined ? {} : v.arguments;
    if (!args || typeof args !== 'object' || Array.isArray(args)) {
      return { ok: false, error: `The "arguments" of ${v.name} must be a JSON object, so nothing ran.`, raw };
    }
    return { ok: true, name: v.name, arguments: args, raw };
  }

  /**
   * Watches an answer's text as it grows: `scan(text)` returns the calls closed since the last
   * scan; `finish(text)` also those left open at the end (reported as unclosed).
   */
  function callScanner() {
    let from = 0; // just after the last closed call
    let tail = ''; // the text just before `from`, to notice a text that was replaced
    let seen = 0; // calls reported so far
    /** @param {string} text @param {boolean} atEnd @returns {FoundCall[]} */
    function scan(text, atEnd) {
      // A text that was replaced, not extended (full-text streams): look again from the start,
      // skipping the calls already reported.
      let index = seen;
      if (from > text.length || text.slice(from - tail.length, from) !== tail) { from = 0; index = 0; }
      const out = [];
      let at = from;
      for (;;) {
        const open = text.indexOf(OPEN, at);
        if (open < 0) break;
        const close = text.indexOf(CLOSE, open + OPEN.length);
        if (close < 0) {
          if (atEnd && index >= seen && index < MAX_CALLS) {
            out.push({ ok: false, error: 'The tool call was not closed with </tool_call>, so nothing ran.', raw: text.slice(open, open + 2_000) });
            seen = index + 1;
          }
          break;
        }
        if (index >= seen && index < MAX_CALLS) out.push(readCall(text.slice(open + OPEN.length, close)));
        index++;
        at = close + CLOSE.length;
      }
      seen = Math.max(seen, index);
      from = at;
      tail = text.slice(Math.max(0, at - 64), at);
      return out;
    }
    return { scan: (text) => scan(text, false), finish: (text) => scan(text, true) };
  }

  /** Every call in a whole answer (the fallbacks: the stream's end, the DOM, a pasted call). */
  const callsIn = (text) => callScanner().finish(String(text ?? ''));

  /**
   * The chat's names for the chosen tools: a tool's own name when no other chosen tool has it,
   * else `<where>__<name>` (where = the site or server, letters and digits only).
   * @param {{where: string, tool: string}[]} tools @returns {string[]}
   */
  function chatNames(tools) {
    const counts = new Map();
    for (const t of tools) counts.set(t.tool, (counts.get(t.tool) ?? 0) + 1);
    return tools.map((t) => (counts.get(t.tool) > 1
      ? `${t.where.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}__${t.tool}`.slice(0, 128) : t.tool));
  }

  const MAX_DESC = 400;
  const MAX_SCHEMA = 2_000;

  /**
   * The compact block put in front of the first message of a conversation.
   * @param {{name: string, description?: string, inputSchema?: any, readOnly?: boolean}[]} tools
   */
  function instructionBlock(tools) {
    const lines = [
      '[Tools from WebMCP Sidecar: you may call these tools for the user.]',
      'To call one, write exactly this and then stop and wait:',
      '<tool_call>{"name": "TOOL_NAME", "arguments": {...}}</tool_call>',
      'One call per message; the arguments follow the tool\'s JSON schema. The result comes back in the next message as [tool_result TOOL_NAME] ... [/tool_result]; then go on answering.',
      'Tools:',
    ];
    for (const t of tools) {
      let schema = JSON.stringify(t.inputSchema ?? { type: 'object', properties: {} });
      if (schema.length > MAX_SCHEMA) schema = `${schema.slice(0, MAX_SCHEMA)}…`;
      const desc = String(t.description ?? '').replace(/\s+/g, ' ').slice(0, MAX_DESC);
      lines.push(`- ${t.name}: ${desc}${t.readOnly ? ' (read-only)' : ''}`, `  arguments: ${schema}`);
    }
    lines.push('[End of tools. The user\'s message follows.]', '');
    return lines.join('\n');
  }

  /** Results put back into the chat are cut at this many characters, with a note. */
  const MAX_RESULT_CHARS = 8_000;

  /**
   * A tool's outcome as the text that goes back into the chat.
   * @param {string} name @param {{ok: boolean, value?: string|null, error?: {message?: string}|null}} outcome
   */
  function resultText(name, outcome, max = MAX_RESULT_CHARS) {
    if (!outcome.ok) {
      const msg = String(outcome.error?.message ?? 'The tool failed.').slice(0, 2_000);
      return `[tool_result ${name}]\nError: ${msg}\n[/tool_result]`;
    }
    let text = typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value ?? null);
    let note = '';
    if (text.length > max) {
      note = `\n(The result was cut: ${text.length - max} more characters were not sent.)`;
      text = text.slice(0, max);
    }
    return `[tool_result ${name}]\n${text}${note}\n[/tool_result]`;
  }

  chat.calls = Object.freeze({
    readCall, callScanner, callsIn, chatNames, instructionBlock, resultText, MAX_RESULT_CHARS, OPEN, CLOSE,
  });
})();
