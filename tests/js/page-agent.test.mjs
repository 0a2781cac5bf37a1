// The page agent's loading (background/page-calls.js inPage): its files go into a document once,
// then each op is a small func. A fake chrome.scripting runs the func and the real files in a vm
// context per document, the way Chrome runs them in the isolated world: the func as its source
// text (so it must name nothing outside itself), the files as classic scripts, in order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import vm from 'node:vm';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');

/** One tab whose top document can be replaced; records every injection. */
function fakeChrome(version = '1.0.0') {
  const chrome = {
    version,
    log: [],
    doc: null,
    navigate(url) {
      const manifest = () => ({ version: chrome.version });
      chrome.doc = vm.createContext({
        chrome: { runtime: { getManifest: manifest } },
        location: { href: url },
        document: { title: `Page at ${url}`, readyState: 'complete' },
      });
    },
    runtime: { getManifest: () => ({ version: chrome.version }) },
    tabs: { get: async (id) => ({ id, url: 'https://a.test/' }) },
    scripting: {
      async executeScript({ target, world, func, args, files }) {
        assert.deepEqual(target.frameIds, [0]);
        assert.equal(world, 'ISOLATED');
        if (files) {
          chrome.log.push('files');
          for (const f of files) vm.runInContext(readFileSync(path.join(EXT, f), 'utf8'), chrome.doc, { filename: f });
          return [{ frameId: 0 }];
        }
        chrome.log.push(`func ${args[0]}`);
        const call = `(${func.toString()})(...${JSON.stringify(args)})`;
        return [{ frameId: 0, result: JSON.parse(JSON.stringify(vm.runInContext(call, chrome.doc))) }];
      },
    },
  };
  chrome.navigate('https://a.test/one');
  return chrome;
}

const { inPage, AGENT_FILES, ToolError } = await import('../../extension/background/page-calls.js');

test('the agent files exist and are listed in order: roles.js first, run.js last', () => {
  assert.equal(AGENT_FILES[0], 'page/agent/roles.js');
  assert.equal(AGENT_FILES.at(-1), 'page/agent/run.js');
  for (const f of AGENT_FILES) readFileSync(path.join(EXT, f), 'utf8');
});

test('the files go in once per document, then each op is one small call', async () => {
  const chrome = fakeChrome();
  globalThis.chrome = /** @type {any} */ (chrome);
  try {
    const info = await inPage(1, 'info');
    assert.deepEqual(info, { url: 'https://a.test/one', title: 'Page at https://a.test/one', readyState: 'complete' });
    assert.deepEqual(chrome.log, ['func info', 'files', 'func info']);

    chrome.log = [];
    await inPage(1, 'info');
    await inPage(1, 'info');
    assert.deepEqual(chrome.log, ['func info', 'func info']);
    // While loading, the files shared a scratch object; only the agent stays.
    assert.equal(vm.runInContext('typeof webmcpSidecar.agentParts', chrome.doc), 'undefined');

    chrome.log = [];
    chrome.navigate('https://a.test/two'); // a new document has no agent
    assert.equal((await inPage(1, 'info')).url, 'https://a.test/two');
    assert.deepEqual(chrome.log, ['func info', 'files', 'func info']);

    chrome.log = [];
    chrome.version = '1.0.1'; // an updated extension replaces the agent of an open page
    await inPage(1, 'info');
    assert.deepEqual(chrome.log, ['func info', 'files', 'func info']);
  } finally {
    delete globalThis.chrome;
  }
});

test("an op's {error} becomes a ToolError with its code", async () => {
  globalThis.chrome = /** @type {any} */ (fakeChrome());
  try {
    await assert.rejects(inPage(1, 'no_such_op'), (e) => e instanceof ToolError && e.code === 'internal' && /unknown page op/.test(e.message));
  } finally {
    delete globalThis.chrome;
  }
});
