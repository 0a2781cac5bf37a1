// The results page of the book search: a new document per search, rendered a little late (as
// pages that fetch their results are), so a skill must wait for it.
'use strict';
const BOOKS = [
  { id: 1, title: 'The Hobbit', author: 'J. R. R. Tolkien', lang: 'en' },
  { id: 2, title: 'The Lord of the Rings', author: 'J. R. R. Tolkien', lang: 'en' },
  { id: 3, title: 'Le Petit Prince', author: 'Antoine de Saint-Exupéry', lang: 'fr' },
  { id: 4, title: 'Les Misérables', author: 'Victor Hugo', lang: 'fr' },
  { id: 5, title: 'The Little Prince', author: 'Antoine de Saint-Exupéry', lang: 'en' },
];
const params = new URLSearchParams(location.search);
const q = (params.get('q') || '').toLowerCase();
const lang = params.get('lang') || 'any';
document.getElementById('q').value = params.get('q') || '';
document.getElementById('lang').value = lang;
setTimeout(() => {
  const found = BOOKS.filter((b) => (b.title + ' ' + b.author).toLowerCase().includes(q) && (lang === 'any' || b.lang === lang));
  document.getElementById('heading').textContent = `${found.length} result(s) for "${params.get('q') || ''}"`;
  const list = document.getElementById('results');
  for (const b of found) {
    const li = document.createElement('li');
    li.className = 'result';
    const a = document.createElement('a');
    a.href = `book.html?id=${b.id}`;
    const t = document.createElement('span');
    t.className = 'title';
    t.textContent = b.title;
    a.append(t);
    const au = document.createElement('span');
    au.className = 'author';
    au.textContent = b.author;
    li.append(a, ' by ', au);
    list.append(li);
  }
  document.getElementById('none').hidden = found.length > 0;
}, 150);
