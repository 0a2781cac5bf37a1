// A call's result in the side panel, drawn from lib/result-view.js's parts: text with its line
// breaks, pretty JSON, images, links; the raw JSON one click away ("Raw JSON").

import { resultView } from '../lib/result-view.js';
import { h } from './dom.js';

/**
 * @param {unknown} value the call's `value` (a page's result, or a local server's call result)
 * @returns {HTMLElement}
 */
export function renderResult(value) {
  const { parts, raw } = resultView(value);
  const shown = parts.map((p) => {
    switch (p.kind) {
      case 'text': return h('pre', { class: 'result result-text', text: p.text || '(empty text)' });
      case 'json': return h('pre', { class: 'result result-json', text: p.text });
      case 'image': return h('img', { class: 'result-image', src: `data:${p.mime};base64,${p.data}`, alt: `an image (${p.mime})` });
      case 'link': return h('p', { class: 'result-link' }, p.href
        ? h('a', { href: p.href, target: '_blank', rel: 'noopener noreferrer', title: p.href, text: p.label })
        : h('span', { title: p.text ?? '', text: p.label === p.text ? p.label : `${p.label} (${p.text})` }));
      default: return h('p', { class: 'muted result-note', text: p.text });
    }
  });
  return h('div', { class: 'result-view' }, shown,
    raw ? h('details', { class: 'section raw-result' }, h('summary', {}, 'Raw JSON'), h('pre', { class: 'raw', text: raw })) : null);
}
