// The side panel's Skills view, as data (no DOM, no chrome.*): the installed skills (the host's
// `doc_answer` list) joined with what the worker says about the current tab (`skills_status`),
// the host's validation problems split into line, column and field, and a draft's tools for
// "Test on this tab".

/**
 * @typedef {{skill: string, matched: boolean, healthy: boolean, reason?: string, tools: string[]}} SkillStatus
 * @typedef {'live'|'hidden'|'taken'|'off'|'unhealthy'|'idle'} ToolState
 *   live: offered on this tab; hidden: a page's own tool of that name wins; taken: another skill's
 *   tool of that name wins; off: disabled (or its skill is); unhealthy: its skill failed the health
 *   check here; idle: its skill does not match this tab
 * @typedef {{name: string, enabled: boolean, state: ToolState}} ToolRow
 * @typedef {{name: string, version: string, description: string, match: string[], enabled: boolean,
 *   error: string|null, tools: ToolRow[], here: {healthy: boolean, reason?: string}|null}} SkillRow
 * @typedef {{line: number|null, column: number|null, field: string|null, message: string}} Problem
 */

/** What each tool state means, for the view's badges and their titles. */
export const TOOL_STATES = Object.freeze({
  live: ['on this tab', 'Offered to agents and MCP clients on this tab'],
  hidden: ['hidden', "The page has its own tool of this name, which wins"],
  taken: ['taken', "Another skill's tool of this name (higher priority) is used here"],
  off: ['off', 'Disabled'],
  unhealthy: ['', ''],
  idle: ['', ''],
});

const str = (v, max = 8192) => (typeof v === 'string' ? v.slice(0, max) : '');
const strings = (v, max = 256) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string').slice(0, max) : []);

/**
 * The rows of the Skills view.
 * @param {unknown} skills the host's list (SkillInfo dicts)
 * @param {{status?: unknown, hidden?: unknown}|null} [here] the worker's answer for the current tab
 * @returns {SkillRow[]}
 */
export function skillRows(skills, here) {
  /** @type {Map<string, SkillStatus>} */
  const status = new Map();
  for (const s of Array.isArray(here?.status) ? here.status : []) {
    if (s && typeof s.skill === 'string') status.set(s.skill, { ...s, tools: strings(s.tools) });
  }
  const hidden = new Set(strings(here?.hidden));
  const list = Array.isArray(skills) ? skills : [];
  return list.filter((s) => s && typeof s === 'object' && typeof s.name === 'string').map((s) => {
    const enabled = s.enabled !== false;
    const off = new Set(strings(s.disabled_tools));
    const st = enabled ? status.get(s.name) : undefined;
    const tools = strings(s.tools).map((name) => {
      /** @type {ToolState} */
      let state;
      if (!enabled || off.has(name)) state = 'off';
      else if (!st) state = 'idle';
      else if (!st.healthy) state = 'unhealthy';
      else if (!st.tools.includes(name)) state = 'taken';
      else state = hidden.has(name) ? 'hidden' : 'live';
      return { name, enabled: !off.has(name), state };
    });
    return {
      name: s.name,
      version: str(s.version, 64),
      description: str(s.description),
      match: strings(s.match, 32),
      enabled,
      error: typeof s.error === 'string' && s.error ? s.error : null,
      tools,
      here: st ? { healthy: !!st.healthy, ...(st.reason ? { reason: String(st.reason) } : {}) } : null,
    };
  });
}

const PROBLEM = /^.*?:(\d+):(\d+): (.*)$/s;
// A field path as the host writes it: tools[1].steps[0].selector, health.text, (root)...
const FIELD = /^([\w$.\-[\]()]+): (.*)$/s;

/**
 * One of the host's problem lines (`skill.json:20:7: tools[1].name: String should match...`).
 * @param {string} text
 * @returns {Problem}
 */
export function parseProblem(text) {
  const s = String(text);
  const m = PROBLEM.exec(s);
  if (!m) return { line: null, column: null, field: null, message: s };
  const rest = m[3];
  const f = FIELD.exec(rest);
  return { line: Number(m[1]), column: Number(m[2]), field: f ? f[1] : null, message: f ? f[2] : rest };
}

/** A problem as one line of the view: "line 20, column 7 · tools[1].name: String should…". */
export function problemText(/** @type {Problem} */ p) {
  const where = p.line !== null ? `line ${p.line}, column ${p.column}` : '';
  const what = p.field ? `${p.field}: ${p.message}` : p.message;
  return where ? `${where} · ${what}` : what;
}

/**
 * The offset of a 1-based line and column in a text (to put the editor's cursor on a problem).
 * @param {string} text @param {number} line @param {number} column
 */
export function offsetOf(text, line, column) {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  const end = text.indexOf('\n', offset);
  const lineEnd = end < 0 ? text.length : end;
  return Math.min(offset + Math.max(0, column - 1), lineEnd);
}

/**
 * What "Test on this tab" needs of the editor's text: the skill's name and its tools' names and
 * input schemas. Not a validation (the host's `validate` is): only enough to build the form.
 * @param {string} text
 * @returns {{ok: true, name: string, tools: {name: string, inputSchema: any}[]} | {ok: false, error: string}}
 */
export function draftTools(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not valid JSON: ${e.message}` };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { ok: false, error: 'a skill is a JSON object' };
  const tools = (Array.isArray(doc.tools) ? doc.tools : [])
    .filter((t) => t && typeof t === 'object' && typeof t.name === 'string')
    .slice(0, 64)
    .map((t) => ({
      name: t.name,
      inputSchema: t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : { type: 'object', properties: {} },
    }));
  return { ok: true, name: str(doc.name, 64), tools };
}

/** The file name an exported skill gets. @param {string} name */
export function exportFileName(name) {
  const safe = String(name).replace(/[^a-z0-9_-]/gi, '_').slice(0, 64) || 'skill';
  return `${safe}.skill.json`;
}

/** A new skill's starting text in the editor, for the tab's site. @param {string|null} url */
export function newSkillText(url) {
  let match = 'https://example.com/*';
  try {
    const u = new URL(String(url));
    if (u.protocol === 'http:' || u.protocol === 'https:') match = `${u.protocol}//${u.hostname}/*`;
  } catch {
    // no page: the example pattern
  }
  return `${JSON.stringify({
    name: 'my-skill',
    version: '0.1.0',
    description: 'What these tools do on this site',
    match: [match],
    tools: [{
      name: 'read_title',
      description: "The page's main heading",
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      steps: [{ action: 'extract', as: 'title', selector: 'h1' }, { action: 'return', value: '{{title}}' }],
    }],
  }, null, 2)}\n`;
}
