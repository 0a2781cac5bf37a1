// The service worker's routes table (extension/background/routes.js) against what the host can
// send and against docs/PROTOCOL.md, whose table is made from it:
//   WEBMCP_WRITE_DOCS=1 node --test tests/js/service-worker-routes.test.mjs   rewrites that table.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { findPython, startWorker } from './fake-chrome.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = path.join(REPO, 'docs/PROTOCOL.md');
const BEGIN = '<!-- routes: made from extension/background/routes.js by tests/js/service-worker-routes.test.mjs -->';
const END = '<!-- routes: end -->';

const FROM = {
  host: 'host (native port)',
  page: 'content script (port `webmcp-page`)',
  panel: 'side panel (port `webmcp-panel`)',
  ports: '`runtime.onConnect`, by port name',
  runtime: '`runtime.onMessage` (extension pages, page stubs)',
};

/** The markdown table: one row per source and handling module, types in table order. */
function render(described) {
  const rows = ['| from | message | handled by |', '|---|---|---|'];
  for (const [from, types] of Object.entries(described)) {
    const groups = new Map();
    for (const [type, by] of Object.entries(types)) groups.set(by, [...(groups.get(by) ?? []), type]);
    for (const [by, list] of groups) {
      rows.push(`| ${FROM[from]} | ${list.map((t) => `\`${t}\``).join(', ')} | ${by.replace(/[\w-]+\.js/g, (m) => `\`${m}\``)} |`);
    }
  }
  return rows.join('\n');
}

test('docs/PROTOCOL.md shows the routes table as routes.js has it', (t) => {
  const { worker } = startWorker(t);
  const table = render(worker.routes.describe());
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  assert.ok(start >= 0 && end > start, `docs/PROTOCOL.md has no ${BEGIN} ... ${END} section`);
  const current = doc.slice(start + BEGIN.length, end).trim();
  if (process.env.WEBMCP_WRITE_DOCS === '1' && current !== table) {
    writeFileSync(DOC, `${doc.slice(0, start + BEGIN.length)}\n${table}\n${doc.slice(end)}`);
    return;
  }
  assert.equal(current, table, 'the routes table is stale: run WEBMCP_WRITE_DOCS=1 node --test tests/js/service-worker-routes.test.mjs');
});

test('every message type the host sends the extension has a route, and no route is for a type it never sends',
  { skip: !findPython() && 'no Python with pydantic' }, (t) => {
    const script = [
      'import json, sys, typing',
      `sys.path.insert(0, ${JSON.stringify(path.join(REPO, 'host'))})`,
      'from webmcp_sidecar.wire.messages import HostToExtension',
      'from webmcp_sidecar.agent.panel_messages import AGENT_TYPES',
      'union = typing.get_args(HostToExtension)[0]',
      'types = [typing.get_args(m.model_fields["type"].annotation)[0] for m in typing.get_args(union)]',
      'print(json.dumps(sorted(types + list(AGENT_TYPES))))',
    ].join('\n');
    const out = spawnSync(findPython(), ['-c', script], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const { worker } = startWorker(t);
    assert.deepEqual(Object.keys(worker.routes.describe().host).sort(), JSON.parse(out.stdout));
  });

test('a host message of a type no route knows is logged back, not dropped silently', (t) => {
  const { host, fromHost } = startWorker(t);
  host({ type: 'constructor' });
  host({ type: '__proto__', id: 'x' });
  assert.deepEqual(fromHost().map((m) => [m.type, m.level, m.message]), [
    ['log', 'warning', 'ignored a host message: unknown message type "constructor"'],
    ['log', 'warning', 'ignored a host message: unknown message type "__proto__"'],
  ]);
});

test("the side panel's Sessions requests go through the routes table to browser-tools.js, from extension pages only", async (t) => {
  const { chrome, calls } = startWorker(t);
  assert.equal(chrome.runtime.onMessage.listeners.length, 1, 'one runtime.onMessage listener: the routes table');
  const ask = (msg, sender) => new Promise((resolve) => {
    const [willAnswer] = chrome.runtime.onMessage.fire(msg, sender, resolve);
    if (!willAnswer) resolve('no answer');
  });
  const panelPage = { id: chrome.runtime.id, url: chrome.runtime.getURL('sidepanel/panel.html') };
  assert.deepEqual(await ask({ type: 'session_focus', tabId: 3 }, panelPage), { ok: true });
  assert.deepEqual(calls.tabsUpdate, [[3, { active: true }]]);
  const page = { id: chrome.runtime.id, url: 'https://a.test/', tab: { id: 1 } };
  assert.equal(await ask({ type: 'session_focus', tabId: 2 }, page), 'no answer');
  assert.equal(await ask({ type: 'session_close_tabs', session: 'c1' }, page), 'no answer');
  assert.deepEqual(calls.tabsUpdate, [[3, { active: true }]], "a page's request changed nothing");
});

test("a page_install goes through the routes table to page-install.js from our content scripts' frames only", async (t) => {
  const { chrome } = startWorker(t);
  const injected = [];
  chrome.scripting = { executeScript: async (d) => { injected.push(d.target); return []; } };
  const ask = (sender) => new Promise((resolve) => {
    const [willAnswer] = chrome.runtime.onMessage.fire({ type: 'page_install' }, sender, resolve);
    if (!willAnswer) resolve('no answer');
  });
  const frame = { id: chrome.runtime.id, tab: { id: 4 }, frameId: 2, documentId: 'D', origin: 'https://a.test', url: 'https://a.test/' };
  assert.equal(await ask({ ...frame, id: 'another-extension', documentId: 'X1' }), 'no answer');
  assert.equal(await ask({ ...frame, tab: undefined, documentId: 'X2' }), 'no answer');
  assert.equal(await ask({ ...frame, frameId: undefined, documentId: 'X3' }), 'no answer');
  assert.deepEqual(injected, []);
  assert.deepEqual(await ask(frame), { ok: true });
  assert.deepEqual(injected, [{ tabId: 4, documentIds: ['D'] }]);
});
