import { test } from 'node:test';
import assert from 'node:assert/strict';

import { browserName, buildNote, DEBUGGER_TOOLS, noDebuggerText, toolUnavailable } from '../../extension/lib/browser-support.js';
import { TOOLS } from '../../extension/background/browser-tools.js';

test('without chrome.debugger the tools that need it say so plainly, and the others run', () => {
  for (const tool of DEBUGGER_TOOLS) {
    assert.ok(tool in TOOLS, tool);
    assert.equal(toolUnavailable(tool, true, 'Firefox'), null);
    const text = toolUnavailable(tool, false, 'Firefox');
    assert.match(String(text), new RegExp(`^browser_${tool} is not available in Firefox: it needs chrome\\.debugger`));
  }
  for (const tool of ['snapshot', 'page_text', 'navigate', 'tabs', 'scroll', 'select_option', 'wait_for']) {
    assert.ok(tool in TOOLS, tool);
    assert.equal(toolUnavailable(tool, false, 'Firefox'), null);
  }
});

test('the browser is named only when it is Firefox', () => {
  assert.equal(browserName('Firefox 153.0'), 'Firefox');
  assert.equal(browserName('Chromium 156.0.0.0'), 'this browser');
  assert.equal(browserName(''), 'this browser');
  assert.match(noDebuggerText('a trusted step', 'Firefox'), /^a trusted step is not available in Firefox:/);
});

test('in Chromium without the debugger permission (the store build) the answer says which build can', () => {
  const text = noDebuggerText('browser_click', browserName('Chromium 156.0.0.0'));
  assert.match(text, /^browser_click is not available in this build of WebMCP Sidecar: it needs the "debugger" permission/);
  assert.match(text, /Chrome Web Store build does not ask for/);
  assert.match(text, /load the full build instead/);
  assert.doesNotMatch(text, /Firefox/);
});

test("the side panel's agent hears the same plain answer, and the tab is not touched", async (t) => {
  const { startWorker } = await import('./fake-chrome.mjs');
  const w = startWorker(t); // its chrome.* has no debugger, as Firefox's
  w.fromHost();
  w.host({ type: 'browser_call', id: 'h.1', session: 'panel', tool: 'click', args: { ref: 'e1' } });
  w.host({ type: 'browser_call', id: 'h.2', session: 'panel', tool: 'screenshot', args: {} });
  await new Promise((r) => setTimeout(r, 0));
  const answers = w.fromHost().filter((m) => m.type === 'result');
  assert.deepEqual(answers.map((m) => [m.id, m.ok, m.error?.code]), [['h.1', false, 'bad_request'], ['h.2', false, 'bad_request']]);
  assert.equal(answers[0].error.message, noDebuggerText('browser_click', 'this browser'));
  assert.equal(answers[1].error.message, noDebuggerText('browser_screenshot', 'this browser'));
});

test("the side panel's note on a build without the debugger names what it leaves out, and where the full build is", () => {
  assert.equal(buildNote(true, 'this browser'), null);
  const store = String(buildNote(false, 'this browser'));
  assert.match(store, /^This is the Chrome Web Store build/);
  for (const tool of DEBUGGER_TOOLS) assert.ok(store.includes(`browser_${tool}`), tool);
  assert.match(store, /load the full build from the release download/);
  const firefox = String(buildNote(false, 'Firefox'));
  assert.match(firefox, /^Firefox gives extensions no debugger/);
  assert.doesNotMatch(firefox, /full build/);
});
