// An MCP client on the TypeScript SDK (@modelcontextprotocol/sdk), for bench/large.py: it starts
// `webmcp-sidecar mcp` the SDK's default way (StdioClientTransport, the SDK's default environment:
// HOME, PATH, ... of this process) and runs the calls the driver asks for, one JSON line each on
// stdin, answering one JSON line each on stdout: {ms, ok, len}. Timed: from before callTool to its
// resolved result (the SDK has parsed and validated the whole answer); the check of the text
// against the expected one comes after, untimed.
//
//   node bench/ts_client.mjs '<command JSON array>'
//   stdin:  {"site": "127.0.0.1:8000", "tool": "blob", "args": {"n": 5242880}, "pattern": "abc..."}
//   stdout: {"ready": true, "version": "1.32.2"} first, then {"ms": 123.4, "ok": true, "len": 5242880}

import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = JSON.parse(process.argv[2]);
const sdkVersion = JSON.parse(
  readFileSync(new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const client = new Client({ name: 'bench-ts', version: '1' });
await client.connect(new StdioClientTransport({ command, args: [...args, 'mcp'], stderr: 'ignore' }));
const names = new Map(); // "site tool" -> MCP name

async function nameOf(site, tool) {
  const key = `${site} ${tool}`;
  for (let i = 0; !names.has(key) && i < 300; i++) {
    for (const t of (await client.listTools()).tools) {
      const meta = t._meta ?? {};
      names.set(`${meta['io.webmcp.sidecar/site']} ${meta['io.webmcp.sidecar/tool']}`, t.name);
    }
    if (!names.has(key)) await new Promise((r) => setTimeout(r, 100));
  }
  if (!names.has(key)) throw new Error(`${tool} of ${site} never showed up`);
  return names.get(key);
}

const out = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
out({ ready: true, version: sdkVersion });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  const name = await nameOf(req.site, req.tool);
  const t = performance.now();
  const r = await client.callTool({ name, arguments: req.args }, undefined, { timeout: 120_000 });
  const ms = performance.now() - t;
  const text = r.content?.[0]?.text ?? '';
  const n = req.args.n;
  const ok = !r.isError && text.length === n && (!req.pattern || text === req.pattern.repeat(n / req.pattern.length));
  out({ ms, ok, len: text.length });
}
await client.close();
