// Each local MCP server's tools as last listed, kept in the panel's localStorage, so the
// Inspector shows them before the server has started (servers-view.js inspectorServers).

/** Where they are kept. */
const KNOWN_TOOLS_KEY = 'webmcp.servers.lastTools';
/** What the last known tools may take in localStorage (a server's huge schemas are not kept). */
const MAX_KNOWN_CHARS = 512 * 1024;

/** Each server's tools as last listed (localStorage): shown before the server has started. */
export class KnownTools {
  /** @param {{getItem: (k: string) => string|null, setItem: (k: string, v: string) => void}|null} storage */
  constructor(storage) {
    this.storage = storage;
    /** @type {Record<string, any[]>} */
    this.tools = {};
    try {
      const raw = JSON.parse(storage?.getItem(KNOWN_TOOLS_KEY) ?? '{}');
      if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
        for (const [name, list] of Object.entries(raw)) if (Array.isArray(list)) this.tools[name] = list.filter((t) => t && typeof t.name === 'string');
      }
    } catch { /* a broken entry: none known */ }
  }

  /** @param {Record<string, any[]>} tools server -> its tools just listed */
  remember(tools) {
    const next = { ...this.tools, ...tools };
    const text = JSON.stringify(next);
    if (text.length > MAX_KNOWN_CHARS) return; // too big to keep: listed again when started
    this.tools = next;
    try {
      this.storage?.setItem(KNOWN_TOOLS_KEY, text);
    } catch { /* storage full or off */ }
  }

  /** Servers no longer configured are forgotten. @param {string[]} names */
  keepOnly(names) {
    const gone = Object.keys(this.tools).filter((n) => !names.includes(n));
    if (!gone.length) return;
    for (const n of gone) delete this.tools[n];
    try {
      this.storage?.setItem(KNOWN_TOOLS_KEY, JSON.stringify(this.tools));
    } catch { /* storage full or off */ }
  }
}
