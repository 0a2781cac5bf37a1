// The operation log: callers, results, caps, filters, export; and the chat/target reducers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  callerOf, exportJson, filterEntries, HIDDEN, MAX_ARGS_CHARS, MAX_ENTRIES, MAX_LOGGED_CHARS, OpLog,
} from '../../extension/lib/oplog.js';
import { applyEvent, loadConversation, newChat } from '../../extension/lib/chat-events.js';
import { pickTarget } from '../../extension/lib/target-tab.js';

test('callers come from the call id', () => {
  const sessions = new Map([['c3', 'Claude Desktop']]);
  assert.deepEqual(callerOf('h.12', sessions), { kind: 'agent', label: 'Side panel agent' });
  assert.deepEqual(callerOf('p.1', sessions), { kind: 'inspector', label: 'Inspector' });
  assert.deepEqual(callerOf('c3.7', sessions), { kind: 'mcp', label: 'MCP: Claude Desktop' });
  assert.deepEqual(callerOf('c9.1', sessions), { kind: 'mcp', label: 'MCP client' });
});

test('start and finish record outcome and duration; unknown results are ignored', () => {
  const log = new OpLog();
  const a = log.start('h.1', callerOf('h.1', new Map()), 'demo.test', 'searchFlights', { from: 'PEK' }, 1000, 50);
  log.start('c1.1', callerOf('c1.1', new Map()), 'demo.test', 'bookFlight', {}, 1001, 60);
  assert.equal(a.state, 'running');
  assert.equal(log.finish('h.1', { ok: true, value: '{"count":2}' }, 62.34).ms, 12.3);
  const b = log.finish('c1.1', { ok: false, error: { code: 'page_error', message: 'No flight X' } }, 70);
  assert.deepEqual([b.state, b.error], ['error', { code: 'page_error', message: 'No flight X' }]);
  assert.equal(log.finish('zzz', { ok: true, value: '1' }, 1), null);
  assert.equal(log.finish('h.1', { ok: true, value: 'again' }, 99), null); // one result per call
  assert.equal(log.list.length, 2);
});

test('the log keeps the newest entries and caps huge results', () => {
  const log = new OpLog({ max: 3 });
  for (let i = 0; i < 5; i++) log.start(`h.${i}`, callerOf('h.x', new Map()), 's', 't', {}, i, i);
  assert.deepEqual(log.list.map((e) => e.id), ['h.2', 'h.3', 'h.4']);
  assert.equal(log.finish('h.0', { ok: true, value: 'x' }, 9), null); // dropped with its entry
  const e = log.finish('h.4', { ok: true, value: 'y'.repeat(MAX_LOGGED_CHARS + 10) }, 9);
  assert.ok(e.value.length < MAX_LOGGED_CHARS + 100 && e.value.endsWith('(10 more characters)'));
});

test('what browser_type typed and password-like fields never reach the log or its export', () => {
  const log = new OpLog();
  const mcp = callerOf('c1.1', new Map());
  log.start('c1.1', mcp, 'browser', 'type', { ref: 'e4', text: 'hunter2-secret', submit: true }, 0, 0);
  const echo = JSON.stringify('Typed into e4 (textbox "Password"). Its value is now "hunter2-secret". The page navigated.');
  const typed = log.finish('c1.1', { ok: true, value: echo }, 1);
  assert.deepEqual(typed.args, { ref: 'e4', text: HIDDEN, submit: true });
  assert.equal(JSON.parse(typed.value), `Typed into e4 (textbox "Password"). Its value is now ${HIDDEN}. The page navigated.`);
  const login = { user: 'ada', password: 'pw1', nested: [{ apiKey: 'sk-1', note: 'kept' }], card: { cvv: '123' } };
  log.start('c1.2', mcp, 'shop.test', 'login', login, 0, 0);
  log.start('p.1', callerOf('p.1', new Map()), 'shop.test', 'setPin', { pin: '0000', newPassword: 'x', pinned: true }, 0, 0);
  const out = exportJson(log.list);
  for (const secret of ['hunter2-secret', 'pw1', 'sk-1', '"123"', '0000', '"x"']) assert.ok(!out.includes(secret), secret);
  assert.deepEqual(JSON.parse(out).calls[1].args, { user: 'ada', password: HIDDEN,
    nested: [{ apiKey: HIDDEN, note: 'kept' }], card: { cvv: HIDDEN } });
  assert.equal(JSON.parse(out).calls[2].args.pinned, true);
  // Entries kept whole by an older worker are masked on export too.
  const old = [{ id: 'c1.9', time: 0, who: mcp, site: 'browser', tool: 'type', args: { ref: 'e1', text: 'pw9' }, state: 'running' }];
  assert.ok(!exportJson(old).includes('pw9'));
});

test('arguments, results and the whole log are capped', () => {
  const log = new OpLog();
  const who = callerOf('h.1', new Map());
  const big = log.start('h.1', who, 's', 't', { blob: 'x'.repeat(50_000) }, 0, 0);
  assert.equal(typeof big.args, 'string');
  assert.ok(big.args.length < MAX_ARGS_CHARS + 50 && big.args.endsWith('more characters)'));
  assert.equal(JSON.parse(exportJson(log.list)).calls[0].args, big.args); // not cut twice
  const deep = log.start('h.2', who, 's', 't', JSON.parse('{"a":'.repeat(50) + '1' + '}'.repeat(50)), 0, 0);
  assert.ok(JSON.stringify(deep.args).includes('[…]'));
  const huge = log.finish('h.2', { ok: false, error: { code: 'x'.repeat(500), message: 'm'.repeat(90_000) } }, 1);
  assert.ok(huge.error.code.length <= 100 && huge.error.message.length < MAX_LOGGED_CHARS + 50);
  assert.ok(MAX_ENTRIES <= 500);
  // A character budget over all entries: the oldest go first, the newest always stays.
  const small = new OpLog({ maxChars: 30_000 });
  for (let i = 0; i < 10; i++) {
    small.start(`h.${i}`, who, 's', 't', {}, i, i);
    small.finish(`h.${i}`, { ok: true, value: 'v'.repeat(MAX_LOGGED_CHARS + 1) }, i);
  }
  assert.deepEqual(small.list.map((e) => e.id), ['h.7', 'h.8', 'h.9']);
  assert.ok(small.chars <= 30_000);
  small.clear();
  assert.equal(small.chars, 0);
});

test('filter by text, caller and outcome; export as JSON', () => {
  const log = new OpLog();
  const none = new Map();
  log.start('h.1', callerOf('h.1', none), 'demo.test', 'searchFlights', { from: 'PEK' }, Date.UTC(2026, 10, 21, 12), 0);
  log.finish('h.1', { ok: true, value: '{"route":"PEK-SHA"}' }, 5);
  log.start('p.1', callerOf('p.1', none), 'demo.test', 'bookFlight', { flightId: 'CA1' }, Date.UTC(2026, 10, 21, 12, 1), 0);
  log.finish('p.1', { ok: false, error: { code: 'page_error', message: 'Sold out' } }, 7);
  log.start('c1.1', callerOf('c1.1', none), 'other.test', 'listFlights', {}, Date.UTC(2026, 10, 21, 12, 2), 0);
  const ids = (f) => filterEntries(log.list, f).map((e) => e.id);
  assert.deepEqual(ids({}), ['h.1', 'p.1', 'c1.1']);
  assert.deepEqual(ids({ text: 'pek' }), ['h.1']);
  assert.deepEqual(ids({ text: 'sold OUT' }), ['p.1']);
  assert.deepEqual(ids({ text: 'other.test' }), ['c1.1']);
  assert.deepEqual(ids({ who: 'inspector' }), ['p.1']);
  assert.deepEqual(ids({ state: 'running' }), ['c1.1']);
  assert.deepEqual(ids({ who: 'agent', state: 'error' }), []);
  const doc = JSON.parse(exportJson(log.list));
  assert.deepEqual(doc.calls[0], {
    time: '2026-11-21T12:00:00.000Z', caller: 'Side panel agent', callerKind: 'agent', site: 'demo.test',
    tool: 'searchFlights', args: { from: 'PEK' }, status: 'ok', durationMs: 5, result: { route: 'PEK-SHA' },
  });
  assert.deepEqual(doc.calls[1].error, { code: 'page_error', message: 'Sold out' });
  assert.equal(doc.calls[2].status, 'running');
  assert.ok(!('_t0' in doc.calls[0]));
});

test('chat events: streaming text, cards, confirm, results, stop', () => {
  const st = newChat();
  const ev = (event, turn = 't1') => applyEvent(st, { conversation_id: 'c1', turn_id: turn, event });
  ev({ kind: 'turn_start', text: 'book it' });
  assert.equal(st.running, 't1');
  ev({ kind: 'text', text: 'Let me ' });
  const [a] = ev({ kind: 'text', text: 'check.' });
  assert.equal(a.text, 'Let me check.');
  ev({ kind: 'tool_call', call_id: 'x1', tool: 'bookFlight', site: 'demo.test', args: { id: 1 }, read_only: false });
  const [c] = ev({ kind: 'confirm', call_id: 'x1', reason: 'other.test data is in this conversation' });
  assert.equal(c.state, 'confirm');
  assert.equal(c.reason, 'other.test data is in this conversation'); // shown on the card
  ev({ kind: 'tool_result', call_id: 'x1', ok: false, denied: true, error: 'The user denied this call' });
  ev({ kind: 'text', text: 'Not booked.' }); // a new bubble after the card
  ev({ kind: 'tool_call', call_id: 'x2', tool: 'never', args: {} });
  const changed = ev({ kind: 'turn_end', reason: 'stopped', stats: { overhead_ms: [0.4] } });
  assert.deepEqual(st.items.map((i) => `${i.kind}:${i.state ?? i.text}`), [
    'user:book it', 'assistant:Let me check.', 'tool:denied', 'assistant:Not booked.', 'tool:error', 'notice:Stopped.',
  ]);
  assert.equal(changed.length, 2);
  assert.equal(st.running, null);
  assert.deepEqual(st.stats, { overhead_ms: [0.4] });
  // Another conversation's events are not ours.
  assert.equal(applyEvent(st, { conversation_id: 'c2', turn_id: 't9', event: { kind: 'text', text: 'x' } }), null);
  const reopened = loadConversation({ id: 'c1', items: [{ kind: 'user', text: 'hi' }, { kind: 'assistant', text: 'yo' }] });
  assert.deepEqual(reopened.items.map((i) => i.key), ['k1', 'k2']);
});

test('the target tab: pinned, else the most recently used web page', () => {
  const tabs = [
    { id: 1, url: 'https://a.test/', lastAccessed: 10 },
    { id: 2, url: 'chrome-extension://id/sidepanel/index.html', lastAccessed: 30 },
    { id: 3, url: 'http://127.0.0.1:8000/', lastAccessed: 20 },
    { id: 4, url: 'chrome://settings', lastAccessed: 40 },
  ];
  assert.equal(pickTarget(tabs).id, 3);
  assert.equal(pickTarget(tabs, 1).id, 1);
  assert.equal(pickTarget(tabs, 99).id, 3); // a pinned tab that closed
  assert.equal(pickTarget([{ id: 2, url: 'about:blank' }]), null);
});
