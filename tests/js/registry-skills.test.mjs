// The registry's skill layer: a tab's matching skills' tools join its site's tools after the
// pages' own (a page's tool of the same name wins and the skill's is listed as hidden), route
// to the skill runner, and go when the tab leaves the site.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../extension/lib/registry.js';

const skillTool = (name) => ({ name, skill: 'demo', description: `skill ${name}`, inputSchema: { type: 'object', properties: {} }, source: 'skill' });

test('skill tools join the site, route to the skill runner, and a page tool of the same name wins', () => {
  const r = new Registry();
  r.reportFrame(1, 0, 10, 'http://shop.test/', [], false);
  r.takeChanges();
  assert.equal(r.setSkillTools(1, 'http://shop.test/', [skillTool('search'), skillTool('cart')], 10), true);
  assert.equal(r.setSkillTools(1, 'http://shop.test/', [skillTool('search'), skillTool('cart')], 10), false, 'same tools: no change');
  const [change] = r.takeChanges();
  assert.deepEqual(change.tools.map((t) => [t.name, t.source, t.skill]), [['cart', 'skill', 'demo'], ['search', 'skill', 'demo']]);
  assert.deepEqual(r.route('shop.test', 'search'), { tabId: 1, frameId: 0, windowId: 10, skill: true });

  // The page registers its own `search`: the page's wins, the skill's is hidden.
  r.reportFrame(1, 0, 10, 'http://shop.test/', [{ name: 'search', description: 'own' }], false);
  const tools = r.siteTools('shop.test');
  assert.equal(tools.find((t) => t.name === 'search')?.description, 'own');
  assert.deepEqual(r.hiddenSkillTools('shop.test'), ['search']);
  assert.deepEqual(r.route('shop.test', 'search'), { tabId: 1, frameId: 0, windowId: 10 });
  assert.equal(r.route('shop.test', 'cart').skill, true);

  // Leaving the site drops the skill tools with the frames.
  r.tabNavigated(1, 'http://other.test/', 10);
  assert.deepEqual(r.siteTools('shop.test'), []);
  assert.equal(r.setSkillTools(1, 'http://shop.test/', [skillTool('late')], 10), false, 'a late look at the old site is ignored');
});

test('a page cannot claim to be a skill', () => {
  const r = new Registry();
  r.reportFrame(1, 0, 10, 'http://shop.test/', [{ name: 'x', source: 'skill' }, { name: 'y', source: 'browser' }], false);
  assert.deepEqual(r.siteTools('shop.test').map((t) => t.source), ['polyfill', 'polyfill']);
});
