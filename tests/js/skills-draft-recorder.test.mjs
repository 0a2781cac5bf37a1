// "Save as skill", what feeds the draft: the worker's per-session record of browser calls
// (background/skill-recorder.js), the record handed to the operation log with a result
// (lib/oplog.js keeps it capped), and a draft built from log entries (lib/skills/draft.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SkillRecorder, takeRecord, withRecord } from '../../extension/background/skill-recorder.js';
import { exportJson, OpLog } from '../../extension/lib/oplog.js';
import { buildDraft, callsFromLog } from '../../extension/lib/skills/draft.js';

const SHOP = 'http://127.0.0.1:8123/skills/shop.html';
const qty = { selector: 'input[name="qty-green"]', desc: 'spinbutton "Quantity"', role: 'spinbutton' };

test('calls are numbered per session, the newest 200 kept; the panel sees typed text masked', () => {
  const r = new SkillRecorder();
  const rec = { tabId: 4, url: SHOP, urlAfter: SHOP, target: qty, selectorMs: 3.2 };
  const first = r.add('c1', 'type', { ref: 'e1', text: 'secret', huge: { nested: true } }, true, rec);
  assert.deepEqual(first, { n: 1, tool: 'type', args: { ref: 'e1', text: 'secret' }, ok: true, tabId: 4, url: SHOP, urlAfter: SHOP, target: qty, selectorMs: 3.2 });
  assert.equal(r.add('panel', 'snapshot', {}, true, { tabId: 4, url: SHOP }).n, 1); // each session counts its own
  for (let i = 0; i < 250; i++) r.add('c1', 'click', { ref: 'e2' }, i % 2 === 0, { tabId: 4, url: SHOP });
  const calls = r.calls('c1');
  assert.equal(calls.length, 200);
  assert.equal(calls[0].n, 52);
  assert.equal(calls.at(-1).n, 251);
  r.add('c1', 'type', { ref: 'e1', text: 'x'.repeat(5000) }, true, rec);
  assert.equal(r.calls('c1').at(-1).args.text.length, 2000);
  assert.equal(r.shown('c1').at(-1).args.text, '[hidden]');
  assert.equal(r.calls('c1').at(-1).args.text.length, 2000); // the worker's own copy is untouched
  assert.deepEqual(r.calls('nobody'), []);
});

test('the record travels with the result only while it is sent', () => {
  const seen = [];
  const out = withRecord('c1.5', { tabId: 1 }, () => {
    seen.push(takeRecord('c1.5'), takeRecord('c1.6'));
    return true;
  });
  assert.equal(out, true);
  assert.deepEqual(seen, [{ tabId: 1 }, null]);
  assert.equal(takeRecord('c1.5'), null);
  assert.throws(() => withRecord('c1.7', {}, () => { throw new Error('send failed'); }), /send failed/);
  assert.equal(takeRecord('c1.7'), null);
});

test('the log keeps a browser call\'s record, capped, and only known fields; site calls get none', () => {
  const log = new OpLog();
  const who = { kind: 'mcp', label: 'MCP: tests' };
  log.start('c1.1', who, 'browser', 'type', { ref: 'e1', text: '2' }, 0, 0);
  const e = log.finish('c1.1', { ok: true, value: '"typed"' }, 5, {
    tabId: 4, url: SHOP, urlAfter: SHOP, evil: 'x', target: { ...qty, selector: 's'.repeat(3000), checked: true, extra: 1 },
  });
  assert.equal(e?.args.text, '[hidden]');
  assert.deepEqual(Object.keys(e?.rec ?? {}), ['tabId', 'url', 'urlAfter', 'target']);
  assert.equal(e?.rec?.target?.selector.length, 1024);
  assert.equal(e?.rec?.target?.checked, true);
  assert.equal('extra' in (e?.rec?.target ?? {}), false);
  log.start('c1.2', who, 'shop', 'buy', {}, 0, 0);
  assert.equal(log.finish('c1.2', { ok: true, value: '1' }, 1, { tabId: 4, url: SHOP })?.rec, undefined);
  const exported = JSON.parse(exportJson(log.list));
  assert.equal(exported.calls[0].recorded.url, SHOP);
  assert.equal('recorded' in exported.calls[1], false);
});

test('a draft from log entries: browser calls with records only; the hidden typed text becomes a named parameter', () => {
  const log = new OpLog();
  const who = { kind: 'agent', label: 'Side panel agent' };
  const calls = [
    ['navigate', { url: SHOP }, { tabId: 4, url: 'about:blank', urlAfter: SHOP }],
    ['type', { ref: 'e1', text: '2' }, { tabId: 4, url: SHOP, urlAfter: SHOP, target: qty }],
    ['click', { ref: 'e2' }, { tabId: 4, url: SHOP, urlAfter: SHOP, target: { selector: '[data-testid="add-green"]', desc: 'button', role: 'button' } }],
  ];
  calls.forEach(([tool, args, rec], i) => {
    log.start(`h.${i}`, who, 'browser', tool, args, 0, 0);
    log.finish(`h.${i}`, { ok: true, value: '"ok"' }, 1, rec);
  });
  log.start('h.9', who, 'shop', 'buy', {}, 0, 0); // a site tool: not a browser call
  log.finish('h.9', { ok: true, value: '1' }, 1, null);
  const recorded = callsFromLog(log.list);
  assert.equal(recorded.length, 3);
  assert.equal(recorded[1].args?.text, '[hidden]');
  const d = buildDraft(recorded, { name: 'shop', toolName: 'add' });
  assert.deepEqual(d.skill.tools[0].steps, [
    { action: 'fill', selector: 'input[name="qty-green"]', value: '{{quantity}}' },
    { action: 'click', selector: '[data-testid="add-green"]' },
  ]);
  assert.deepEqual(d.skill.tools[0].inputSchema.required, ['quantity']);
});
