// The Tool Inspector: every site's tools, their schema, a form built from the schema to call
// one by hand (through the worker straight to the page), and the result as a person reads it
// (result-render.js), its raw JSON a click away. The user's local
// MCP servers' tools come after the sites' (section `mcp:<server>`, badge `mcp: <server>`),
// called through the host (servers-view.js `call`).

import { formModel, initialRaw, toArgs } from '../lib/schema-form.js';
import { fmtMs, h, pretty } from './dom.js';
import { renderResult } from './result-render.js';

export class InspectorView {
  /** @param {HTMLElement} root @param {any} app */
  constructor(root, app) {
    this.app = app;
    this.root = root;
    /** site -> the JSON its section was built from (rebuilt only when it changes) */
    this.built = new Map();
    /** site -> its section element */
    this.sections = new Map();
    /** request number -> the tool block waiting for it */
    this.waiting = new Map();
    this.seq = 0;
    this.filter = h('input', {
      type: 'search', class: 'filter', placeholder: 'Filter tools', 'aria-label': 'Filter tools',
      on: { input: () => this.applyFilter() },
    });
    this.list = h('div', { class: 'sites' });
    root.append(h('div', { class: 'toolbar' }, this.filter), this.list);
    this.update();
  }

  update() {
    const tools = this.app.status?.sites ?? {};
    /** @type {Record<string, {scheme: string, notices: string[]}>} */
    const info = this.app.status?.siteInfo ?? {};
    // Sites with tools, and sites whose every tool was left out (their notice says why).
    const sites = { ...tools };
    for (const [site, i] of Object.entries(info)) if (i.notices?.length && !(site in sites)) sites[site] = [];
    // Local servers, keyed `mcp:<server>` (no site name has a colon before a non-port): each
    // enabled one, with its tools, or the ones it had when last listed and a Start button.
    /** @type {Map<string, any>} */
    const servers = new Map();
    for (const row of this.app.servers?.inspectorServers() ?? []) {
      sites[`${SERVER}${row.name}`] = row.tools;
      servers.set(`${SERVER}${row.name}`, row);
    }
    const target = this.app.targetSite();
    const rank = (s) => (s === target ? 0 : s.startsWith(SERVER) ? 2 : 1);
    const names = Object.keys(sites).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    for (const [site, section] of this.sections) {
      if (!(site in sites)) {
        section.remove();
        this.sections.delete(site);
        this.built.delete(site);
      }
    }
    for (const site of names) {
      const server = servers.get(site);
      const json = JSON.stringify([sites[site], info[site] ?? null, server ? [server.running, server.words] : null]);
      if (this.built.get(site) !== json) {
        const section = server ? this.server(server) : this.site(site, sites[site], info[site]);
        this.sections.get(site)?.replaceWith(section);
        this.sections.set(site, section);
        this.built.set(site, json);
      }
    }
    // Keep the order: the target site first.
    const ordered = names.map((s) => this.sections.get(s));
    if (ordered.some((el, i) => this.list.children[i] !== el)) this.list.replaceChildren(...ordered);
    for (const [site, section] of this.sections) section.classList.toggle('current', site === target);
    if (!names.length) {
      this.list.replaceChildren(h('div', { class: 'empty' },
        h('p', { class: 'empty-title', text: 'No tools yet' }),
        h('p', { class: 'muted', text: 'Open a page that registers WebMCP tools (document.modelContext.registerTool, ' +
          'or a <form toolname>); its tools show up here.' })));
    }
    this.applyFilter();
  }

  applyFilter() {
    const q = this.filter.value.trim().toLowerCase();
    for (const block of /** @type {NodeListOf<HTMLElement>} */ (this.list.querySelectorAll('.tool-block'))) {
      block.hidden = !!q && !(block.dataset.search ?? '').includes(q);
    }
  }

  /**
   * A local MCP server's section: its tools when it runs; else its state, the tools it had when
   * last listed (callable: a call starts it), and a Start button (it starts only when asked).
   * @param {{name: string, running: boolean, words: string, tools: any[], stale: boolean}} row
   */
  server(row) {
    const site = `${SERVER}${row.name}`;
    const { tools } = row;
    const start = h('button', { type: 'button', class: 'small', on: { click: () => {
      start.disabled = true;
      start.textContent = 'Starting…';
      void this.app.servers?.start(row.name).then((r) => {
        start.disabled = false;
        start.textContent = 'Start';
        if (!r?.ok) note.textContent = r?.error ?? 'It did not start.';
      });
    } } }, 'Start');
    const words = row.words.charAt(0).toUpperCase() + row.words.slice(1);
    const note = h('span', { class: 'muted small', text: row.stale
      ? `${words}. These are its tools when it last ran; calling one starts it.`
      : `${words}. Start it to see its tools.` });
    const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
    return h('section', { class: 'site server-tools', 'data-site': site, 'data-server': row.name, 'data-running': String(row.running) },
      h('h3', {}, h('span', {}, h('span', { class: 'muted scheme', text: 'local MCP server ' }), row.name),
        row.running || row.stale ? h('span', { class: 'muted count', text: row.running ? count : `${count} (last seen)` }) : null),
      row.running ? null : h('p', { class: 'server-start' }, note, start),
      tools.map((t) => this.tool(site, t, row.name)));
  }

  /** @param {string} site @param {any[]} tools @param {{scheme: string, notices: string[]}} [info] */
  site(site, tools, info) {
    // Sites are named host[:port]; the scheme says whether its tools come from https pages.
    const scheme = info?.scheme === 'https' ? 'https' : info ? 'http' : '';
    return h('section', { class: 'site', 'data-site': site, 'data-scheme': scheme },
      h('h3', {},
        h('span', {},
          scheme ? h('span', {
            class: 'muted scheme', text: `${scheme}://`,
            title: scheme === 'https' ? 'Tools from https pages of this site (http tabs of it are ignored)'
              : 'Tools from plain-http pages: anyone on the network could change them',
          }) : null,
          site),
        h('span', { class: 'muted count', text: `${tools.length} tool${tools.length === 1 ? '' : 's'}` })),
      (info?.notices ?? []).map((text) => h('p', { class: 'notice error site-notice', role: 'status', text })),
      tools.map((t) => this.tool(site, t)));
  }

  /** @param {string} site @param {any} tool @param {string|null} [server] a local MCP server's tool */
  tool(site, tool, server = null) {
    const model = formModel(tool.inputSchema ?? { type: 'object', properties: {} });
    const raw = { value: initialRaw(model) };
    const readOnly = tool.annotations?.readOnlyHint === true;
    const result = h('div', { class: 'inspect-result', 'aria-live': 'polite' });
    const rawJson = h('textarea', { class: 'raw-json', rows: 5, spellcheck: 'false', 'aria-label': 'Arguments as JSON', hidden: true });
    const form = h('div', { class: 'form' }, this.field(model, raw, 'value', '', true));
    const useRaw = h('input', {
      type: 'checkbox', on: {
        change: () => {
          rawJson.hidden = !useRaw.checked;
          form.hidden = useRaw.checked;
          if (useRaw.checked) {
            const r = toArgs(model, raw.value);
            rawJson.value = JSON.stringify(r.ok ? r.value : {}, null, 2);
          }
        },
      },
    });
    const callBtn = h('button', { type: 'button', class: 'primary', on: { click: () => call() } }, 'Call');
    const call = () => {
      let args;
      if (useRaw.checked) {
        try {
          args = JSON.parse(rawJson.value || '{}');
        } catch (e) {
          return void result.replaceChildren(h('div', { class: 'card-error', text: `The arguments are not valid JSON: ${e.message}` }));
        }
        if (!args || typeof args !== 'object' || Array.isArray(args)) {
          return void result.replaceChildren(h('div', { class: 'card-error', text: 'The arguments must be a JSON object.' }));
        }
      } else {
        const r = toArgs(model, raw.value);
        if (!r.ok) {
          return void result.replaceChildren(h('ul', { class: 'card-error' },
            r.errors.map((e) => h('li', { text: `${e.path} ${e.message}` }))));
        }
        args = r.value;
      }
      const req = ++this.seq;
      this.waiting.set(req, { result, callBtn });
      callBtn.disabled = true;
      result.replaceChildren(h('div', { class: 'muted', text: 'Calling…' }));
      if (server) {
        void this.app.servers?.call(server, tool.name, args).then((r) => this.onResult({ req, ...r }));
      } else this.app.send({ type: 'inspect_call', req, site, tool: tool.name, args });
    };
    const search = `${site} ${tool.name} ${tool.title ?? ''} ${tool.description ?? ''}`.toLowerCase();
    return h('details', { class: 'tool-block', 'data-tool': tool.name, 'data-search': search },
      h('summary', {},
        h('span', { class: 'tool-name', text: tool.name }),
        server ? h('span', { class: 'badge src-mcp', title: `a tool of your local MCP server ${server}, run by the host`, text: `mcp: ${server}` })
          : h('span', { class: `badge src-${tool.source}`, title: SOURCE_HELP[tool.source] ?? '', text: tool.source }),
        h('span', { class: `badge ${readOnly ? 'ro' : 'rw'}`, text: readOnly ? 'read-only' : 'changes things' })),
      h('div', { class: 'tool-body' },
        tool.title && tool.title !== tool.name ? h('p', { class: 'tool-title', text: tool.title }) : null,
        tool.description ? h('p', { class: 'muted', text: tool.description }) : null,
        h('details', { class: 'section' }, h('summary', {}, 'Input schema'), h('pre', { text: pretty(tool.inputSchema ?? {}) })),
        tool.annotations ? h('details', { class: 'section' }, h('summary', {}, 'Annotations'), h('pre', { text: pretty(tool.annotations) })) : null,
        form, rawJson,
        h('div', { class: 'form-actions' },
          h('label', { class: 'check' }, useRaw, ' Raw JSON'), h('span', { class: 'spacer' }), callBtn),
        result));
  }

  /**
   * An input for one field; `holder[key]` keeps its raw value.
   * @param {import('../lib/schema-form.js').Field} f
   */
  field(f, holder, key, label, required) {
    const id = `f${++this.seq}`;
    const help = f.description ? h('small', { class: 'muted help', text: f.description }) : null;
    const caption = label ? h('label', { for: id, class: 'field-label' }, label, required ? h('span', { class: 'req', title: 'required', text: ' *' }) : null) : null;
    const set = (v) => { holder[key] = v; };
    switch (f.kind) {
      case 'object': {
        const inner = holder[key] ?? (holder[key] = {});
        const fields = f.fields.map((x) => this.field(x.field, inner, x.name, x.name, x.required));
        if (!label) return h('div', { class: 'fields' }, fields.length ? fields : h('p', { class: 'muted', text: 'No arguments.' }));
        return h('fieldset', { class: 'nested' }, h('legend', {}, label), help, fields);
      }
      case 'boolean': {
        const box = h('input', { id, type: 'checkbox', checked: holder[key] === true, on: { change: (e) => set(e.target.checked) } });
        return h('div', { class: 'field check' }, h('label', { for: id }, box, ` ${label}`), help);
      }
      case 'enum': {
        const sel = h('select', { id, on: { change: (e) => set(e.target.value) } },
          h('option', { value: '' }, required ? '(choose)' : '(not set)'),
          f.options.map((o) => h('option', { value: JSON.stringify(o), selected: holder[key] === JSON.stringify(o) }, typeof o === 'string' ? o : JSON.stringify(o))));
        return h('div', { class: 'field' }, caption, sel, help);
      }
      case 'number':
      case 'integer': {
        const input = h('input', {
          id, type: 'text', inputmode: 'decimal', value: holder[key] ?? '',
          placeholder: [f.kind, f.min !== undefined ? `≥ ${f.min}` : '', f.max !== undefined ? `≤ ${f.max}` : '', f.nullable ? 'or null' : ''].filter(Boolean).join(' '),
          on: { input: (e) => set(e.target.value) },
        });
        return h('div', { class: 'field' }, caption, input, help);
      }
      case 'string': {
        const input = f.multiline
          ? h('textarea', { id, rows: 3, on: { input: (e) => set(e.target.value) } })
          : h('input', { id, type: 'text', value: holder[key] ?? '', placeholder: f.format ?? (f.pattern ? `pattern ${f.pattern}` : ''), on: { input: (e) => set(e.target.value) } });
        if (f.multiline) input.value = holder[key] ?? '';
        return h('div', { class: 'field' }, caption, input, help);
      }
      case 'array': {
        const items = holder[key] ?? (holder[key] = []);
        const box = h('div', { class: 'array-items' });
        const redraw = () => {
          box.replaceChildren(...items.map((_, i) => h('div', { class: 'array-item' },
            this.field(f.items, items, i, `${label || 'item'}[${i}]`, true),
            h('button', { type: 'button', class: 'ghost small', title: 'Remove', 'aria-label': `Remove item ${i}`, on: { click: () => { items.splice(i, 1); redraw(); } } }, '×'))));
        };
        redraw();
        return h('fieldset', { class: 'nested' }, h('legend', {}, label || 'items'), help, box,
          h('button', { type: 'button', class: 'ghost small', on: { click: () => { items.push(initialRaw(f.items)); redraw(); } } }, '+ Add item'));
      }
      default: {
        const area = h('textarea', { id, rows: 3, class: 'json', spellcheck: 'false', placeholder: 'JSON', on: { input: (e) => set(e.target.value) } });
        area.value = holder[key] ?? '';
        return h('div', { class: 'field' }, caption, area, help);
      }
    }
  }

  onResult(msg) {
    const w = this.waiting.get(msg.req);
    if (!w) return;
    this.waiting.delete(msg.req);
    w.callBtn.disabled = false;
    const r = msg.result;
    w.result.replaceChildren(
      h('div', { class: 'result-head' },
        h('span', { class: `pill ${r.ok ? 'done' : 'error'}`, text: r.ok ? 'ok' : r.error?.code ?? 'error' }),
        msg.ms != null ? h('span', { class: 'muted', text: fmtMs(msg.ms) }) : null),
      r.ok ? renderResult(r.value ?? 'undefined')
        : h('div', { class: 'card-error', text: r.error?.message ?? 'failed' }),
    );
  }
}

const SERVER = 'mcp:';

const SOURCE_HELP = {
  native: "the browser's own WebMCP (document.modelContext)",
  polyfill: "WebMCP Sidecar's polyfill of document.modelContext",
  legacy: 'the older navigator.modelContext API',
  declarative: 'a <form toolname> on the page',
  skill: 'a skill (tools for a site without WebMCP)',
  browser: 'a browser tool',
};
