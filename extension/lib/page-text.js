// A page's readable text, tidied and cut into pages an agent can read one at a time. Pure: the
// page agent hands over the text of the page's main content (innerText of <main>/<article>, else
// the body).

export const DEFAULT_PAGE_CHARS = 10_000;
export const MAX_PAGE_CHARS = 100_000;

/**
 * Collapses runs of spaces, trims lines, keeps at most one blank line between paragraphs.
 * @param {string} raw
 */
export function cleanText(raw) {
  return String(raw ?? '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Page boundaries: each page at most `size` characters, ending at a paragraph, line or word
 * break in its last fifth when there is one, so no page starts mid-word.
 * @param {string} text
 * @param {number} size
 * @returns {[number, number][]}
 */
export function pageBounds(text, size) {
  const out = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const floor = start + Math.floor(size * 0.8);
      const window = text.slice(floor, end);
      for (const sep of ['\n\n', '\n', ' ']) {
        const at = window.lastIndexOf(sep);
        if (at >= 0) {
          end = floor + at + sep.length;
          break;
        }
      }
    }
    out.push([start, end]);
    start = end;
  }
  return out.length ? out : [[0, 0]];
}

/**
 * One page of the text, with where it is in the whole.
 * @param {string} text cleaned text
 * @param {number} page 1-based
 * @param {number} size characters per page
 * @returns {{text: string, page: number, pages: number, start: number, end: number, total: number}|{error: string}}
 */
export function textPage(text, page, size) {
  const bounds = pageBounds(text, size);
  if (page > bounds.length) {
    return { error: `The text has ${bounds.length} page${bounds.length === 1 ? '' : 's'} of up to ${size} characters; there is no page ${page}.` };
  }
  const [start, end] = bounds[page - 1];
  return { text: text.slice(start, end).trim(), page, pages: bounds.length, start, end, total: text.length };
}
