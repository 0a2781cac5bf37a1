// Renders late.html's search form 300 ms after the page has loaded; a search loads the page
// again with ?q=, which shows what was searched for.
'use strict';
setTimeout(() => {
  const form = document.createElement('form');
  form.id = 'late';
  form.action = 'late.html';
  form.method = 'get';
  const input = document.createElement('input');
  input.name = 'q';
  input.type = 'search';
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = 'Search';
  form.append(input, button);
  const shown = document.createElement('p');
  shown.id = 'searched';
  shown.textContent = new URLSearchParams(location.search).get('q') || '';
  document.getElementById('app').append(form, shown);
}, 300);
