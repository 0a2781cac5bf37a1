// WebMCP Sidecar, MAIN world: the input schema of a declarative `<form toolname>`, built from
// its named controls as Chromium builds it (types, enums with titles, ranges, patterns, labels
// and toolparamdescription). Pure reading of the DOM; declarative.js registers and runs the forms.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const { rApply, StringC, MapC, SetC, NumberC, numIsFinite, strToLower, formElementsGet, elGetAttribute, squash } = ns;

  const SKIP_INPUT = new SetC(['hidden', 'submit', 'reset', 'button', 'image', 'file']);
  /** Chromium's formats for the date/time inputs, as patterns (they are regexes). */
  /** @type {Record<string, string>} */
  const PATTERNS = {
    time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
    month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
    week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
    color: '^#[0-9a-zA-Z]{6}$',
  };

  /** @param {any} el @param {string} a */
  const attr = (el, a) => rApply(elGetAttribute, el, [a]);

  /** Text of a label without the controls inside it. @param {Node} node @returns {string} */
  const textOf = (node) => {
    if (node.nodeType === 3) return StringC(/** @type {Text} */ (node).data);
    if (node.nodeType !== 1) return '';
    const tag = /** @type {Element} */ (node).localName;
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'button') return '';
    let s = '';
    for (const c of node.childNodes) s += textOf(c);
    return s;
  };
  /** @param {any} el */
  const labelOf = (el) => {
    const labels = el.labels;
    if (!labels || !labels.length) return '';
    return squash(textOf(labels[0]));
  };

  /** The form's named controls, grouped by name (radio and checkbox groups). @param {HTMLFormElement} form */
  const controlsOf = (form) => {
    /** @type {Map<string, any[]>} */
    const groups = new MapC();
    const elements = formElementsGet ? rApply(formElementsGet, form, []) : form.elements;
    for (let i = 0; i < elements.length; i++) {
      const el = elements[i];
      const tag = el.localName;
      if (tag === 'input') {
        if (SKIP_INPUT.has(el.type)) continue;
      } else if (tag !== 'select' && tag !== 'textarea') continue;
      const name = el.name;
      if (!name) continue;
      const g = groups.get(name);
      if (g) g.push(el);
      else groups.set(name, [el]);
    }
    return groups;
  };

  /** @param {any} el @returns {string|undefined} */
  const paramDescription = (el) => {
    const d = attr(el, 'toolparamdescription');
    if (d) return d;
    return labelOf(el) || undefined;
  };

  /** @param {string|null} s */
  const num = (s) => {
    if (s === null || s === '') return undefined;
    const n = NumberC(s);
    return numIsFinite(n) ? n : undefined;
  };

  /** @param {any[]} els */
  const enumOf = (els, /** @type {(el: any) => [string, string]} */ pick) => {
    const values = [];
    const anyOf = [];
    for (const el of els) {
      const [value, title] = pick(el);
      values.push(value);
      /** @type {Record<string, string>} */
      const alt = { type: 'string', const: value };
      if (title) alt.title = title;
      anyOf.push(alt);
    }
    return { type: 'string', anyOf, enum: values };
  };

  /** JSON schema of one control group, as Chromium builds it. @param {any[]} els */
  const schemaOf = (els) => {
    const el = els[0];
    const tag = el.localName;
    /** @type {Record<string, any>} */
    let s;
    if (tag === 'select') {
      const opts = [];
      for (const o of el.options) opts.push(o);
      const e = enumOf(opts, (o) => [StringC(o.value), squash(StringC(o.label || o.text || ''))]);
      s = el.multiple ? { type: 'array', items: e, uniqueItems: true } : e;
    } else if (tag === 'textarea') {
      s = { type: 'string' };
    } else {
      const type = el.type;
      if (type === 'radio') {
        s = enumOf(els, (r) => [StringC(r.value), labelOf(r)]);
        const d = attr(el, 'toolparamdescription');
        if (d) s.description = d;
        return s;
      }
      if (type === 'checkbox') {
        if (els.length > 1) {
          s = { type: 'array', items: enumOf(els, (c) => [StringC(c.value), labelOf(c)]), uniqueItems: true };
          const d = attr(el, 'toolparamdescription');
          if (d) s.description = d;
          return s;
        }
        s = { type: 'boolean' };
      } else if (type === 'number' || type === 'range') {
        s = { type: 'number' };
        const range = type === 'range';
        const min = num(attr(el, 'min')) ?? (range ? 0 : undefined);
        const max = num(attr(el, 'max')) ?? (range ? 100 : undefined);
        if (min !== undefined) s.minimum = min;
        if (max !== undefined) s.maximum = max;
        const stepAttr = attr(el, 'step');
        if (stepAttr === null || rApply(strToLower, stepAttr, []) !== 'any') {
          const step = num(stepAttr);
          s.multipleOf = step !== undefined && step > 0 ? step : 1;
        }
      } else if (type === 'date') {
        const d = paramDescription(el);
        return {
          type: 'string',
          format: 'date',
          description: (d ? d + ' ' : '') + "Dates MUST be provided in 'YYYY-MM-DD' format.",
        };
      } else if (PATTERNS[type]) {
        s = { type: 'string', pattern: PATTERNS[type] };
      } else {
        s = { type: 'string' };
        const p = attr(el, 'pattern');
        // HTML patterns match the whole value; JSON Schema's are unanchored.
        if (p) s.pattern = '^(?:' + p + ')$';
      }
    }
    const d = paramDescription(el);
    if (d) s.description = d;
    return s;
  };

  /** @param {HTMLFormElement} form */
  const formSchema = (form) => {
    /** @type {Record<string, any>} */
    const properties = {};
    const required = [];
    for (const [name, els] of controlsOf(form)) {
      properties[name] = schemaOf(els);
      for (const el of els) {
        if (el.required) {
          required.push(name);
          break;
        }
      }
    }
    return { type: 'object', properties, required };
  };

  Object.assign(ns, { controlsOf, formSchema });
})();
