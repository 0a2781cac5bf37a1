// The page's main repeated element (page/agent/rows.js, op `rows`), for "save as skill": a
// table's rows with its columns as fields, a list of results, nothing on a page without a list.
// Real agent files in jsdom.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentPage } from './skills-dom.mjs';

const TABLE = `
  <header><nav><a href="/">Home</a><a href="/db">db</a><a href="/db/repos">repos</a><a href="/about">About</a></nav></header>
  <form id="filter"><input name="_search"><button>Apply</button></form>
  <div class="table-wrapper"><table class="rows-and-columns">
    <thead><tr><th>name</th><th>Stars</th><th>Created at</th></tr></thead>
    <tbody>
      <tr><td><a href="/db/repos/1">datasette</a></td><td>9000</td><td>2017-10-23</td></tr>
      <tr><td><a href="/db/repos/2">sqlite-utils</a></td><td>1500</td><td>2018-07-14</td></tr>
      <tr><td><a href="/db/repos/3">llm</a></td><td>4000</td><td>2023-04-01</td></tr>
    </tbody>
  </table></div>
  <footer><p>Powered by Datasette</p></footer>
`;

test('a table: its body rows, each column a field named by its header', async () => {
  const p = agentPage(TABLE);
  const r = await p.run('rows');
  assert.equal(r.count, 3);
  assert.deepEqual(Object.keys(r.fields), ['name', 'stars', 'created_at']);
  // What an extract step with them gives, run by the agent itself.
  const ex = await p.run('skill_step', { step: { action: 'extract', as: 'rows', list: r.list, fields: r.fields }, index: 0 });
  assert.deepEqual(ex.value, [
    { name: 'datasette', stars: '9000', created_at: '2017-10-23' },
    { name: 'sqlite-utils', stars: '1500', created_at: '2018-07-14' },
    { name: 'llm', stars: '4000', created_at: '2023-04-01' },
  ]);
});

test('a list of results: the repeated items, no fields; a page without a list: none', async () => {
  const p = agentPage(`
    <h1>Results</h1>
    <ul id="results">
      <li class="result"><a href="/b/1">The Hobbit</a> by J. R. R. Tolkien</li>
      <li class="result"><a href="/b/2">The Lord of the Rings</a> by J. R. R. Tolkien</li>
      <li class="result"><a href="/b/3">Le Petit Prince</a> by Antoine de Saint-Exupéry</li>
    </ul>`);
  const r = await p.run('rows');
  assert.equal(r.list, '#results > li.result');
  assert.equal(r.fields, undefined);
  const ex = await p.run('skill_step', { step: { action: 'extract', as: 'rows', list: r.list }, index: 0 });
  assert.equal(ex.value.length, 3);
  assert.match(ex.value[0], /^The Hobbit by J\. R\. R\. Tolkien$/);

  const none = agentPage('<h1>About</h1><p>A page of prose, with no list in it at all, just words.</p>');
  assert.deepEqual(await none.run('rows'), { list: null });
});
