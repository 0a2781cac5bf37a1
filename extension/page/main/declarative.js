// WebMCP Sidecar, MAIN world: declarative tools, `<form toolname tooldescription
// [toolautosubmit]>`, as Chromium builds them (schema from the form's controls, filled like a
// user would, submitted with agentInvoked and respondWith). Polyfill mode only: Chromium with
// WebMCP does them natively. Kept in the polyfill's registry with source "declarative".
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js did not run: another copy owns the page
  const {
    W, D, rApply, oKeys, oDefineProperty, isArray, StringC, MapC, SetC, ErrorC, EventC, MutationObserverC,
    NumberC, numIsFinite, dispatch, listen, unlisten, strToLower, inputValueSet, inputCheckedSet,
    textareaValueSet, selectValueSet, optionSelectedSet, elClick, formRequestSubmit, formElementsGet,
    elGetAttribute, elHasAttribute, elClosest, elMatches, elQuerySelector, docQuerySelectorAll, validName,
    squash, plainJson,
  } = ns;

  /**
   * @param {Map<string, any>} tools
   * @param {(e: any) => void} add
   * @param {(e: any) => void} remove
   * @param {() => void} changed
   */
  function installDeclarative(tools, add, remove, changed) {
    /** @type {Map<HTMLFormElement, any>} */
    const byForm = new MapC();
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
    /** @param {any} el @param {string} a */
    const hasAttr = (el, a) => rApply(elHasAttribute, el, [a]);

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

    /** @param {any} el */
    const fireInputChange = (el) => {
      rApply(dispatch, el, [new EventC('input', { bubbles: true, composed: true })]);
      rApply(dispatch, el, [new EventC('change', { bubbles: true })]);
    };
    // Through the prototype's setter, so that frameworks that shadow `value` (React's value
    // tracker) see the input event as a real change.
    /** @param {any} el @param {string} v */
    const setValue = (el, v) => {
      const set = el.localName === 'textarea' ? textareaValueSet : el.localName === 'select' ? selectValueSet : inputValueSet;
      if (set) rApply(set, el, [v]);
      else el.value = v;
    };
    /** A click toggles like a user's would (frameworks listen to click for checkboxes). @param {any} el @param {boolean} want */
    const setChecked = (el, want) => {
      if (el.checked === want) return;
      rApply(elClick, el, []);
      if (el.checked !== want) {
        if (inputCheckedSet) rApply(inputCheckedSet, el, [want]);
        else el.checked = want;
        fireInputChange(el);
      }
    };
    /** @param {unknown} v */
    const truthy = (v) => v === true || v === 'true' || v === 'on' || v === 1 || v === '1';
    /** @param {unknown} v */
    const asList = (v) => (isArray(v) ? /** @type {unknown[]} */ (v) : v === undefined || v === null ? [] : [v]).map((x) => StringC(x));

    /** @param {string} name @param {any[]} els @param {unknown} v */
    const fill = (name, els, v) => {
      const el = els[0];
      if (el.localName === 'select') {
        if (el.multiple) {
          const want = new SetC(asList(v));
          for (const o of el.options) {
            const sel = want.has(o.value);
            if (optionSelectedSet) rApply(optionSelectedSet, o, [sel]);
            else o.selected = sel;
          }
        } else {
          const s = v === null || v === undefined ? '' : StringC(v);
          setValue(el, s);
          if (el.value !== s) throw new ErrorC(`"${s}" is not one of the options of "${name}".`);
        }
        fireInputChange(el);
        return;
      }
      if (el.localName === 'input' && el.type === 'radio') {
        const s = StringC(v);
        const r = els.find((x) => x.value === s);
        if (!r) throw new ErrorC(`"${s}" is not one of the options of "${name}".`);
        setChecked(r, true);
        return;
      }
      if (el.localName === 'input' && el.type === 'checkbox') {
        if (els.length > 1) {
          const want = new SetC(asList(v));
          for (const c of els) setChecked(c, want.has(c.value));
        } else setChecked(el, truthy(v));
        return;
      }
      setValue(el, v === null || v === undefined ? '' : StringC(v));
      fireInputChange(el);
    };

    /** @param {HTMLFormElement} form @param {any} input */
    const execute = async (form, input) => {
      if (!form.isConnected) throw new ErrorC('The form of this tool is no longer on the page.');
      const groups = controlsOf(form);
      const keys = oKeys(input || {});
      for (const k of keys) {
        if (!groups.has(k)) {
          throw new ErrorC(`Input contains a parameter "${k}" but there is no such parameter for the tool`);
        }
      }
      for (const k of keys) fill(k, /** @type {any[]} */ (groups.get(k)), input[k]);
      const what = keys.length ? 'Filled ' + keys.join(', ') : 'Filled nothing';
      if (!hasAttr(form, 'toolautosubmit')) return what + '. The form was not submitted.';

      // Submit like Chromium: the submit event says it is the agent's (agentInvoked) and the page
      // may answer with respondWith(promise).
      /** @type {unknown} */
      let responded;
      let hasResponse = false;
      /** @param {Event} ev */
      const onSubmit = (ev) => {
        if (ev.target !== form) return;
        try {
          oDefineProperty(ev, 'agentInvoked', { value: true, configurable: true });
          oDefineProperty(ev, 'respondWith', {
            value: /** @param {unknown} p */ (p) => {
              hasResponse = true;
              responded = p;
            },
            configurable: true,
          });
        } catch {
          /* a native respondWith already exists */
        }
      };
      rApply(listen, W, ['submit', onSubmit, true]);
      try {
        rApply(formRequestSubmit, form, []);
      } finally {
        rApply(unlisten, W, ['submit', onSubmit, true]);
      }
      if (hasResponse) return await responded;
      return what + ' and submitted the form.';
    };

    const NAME_ATTRS = ['toolname', 'tooldescription', 'toolautosubmit'];

    const scan = () => {
      const seen = new SetC();
      const forms = rApply(docQuerySelectorAll, D, ['form[toolname]']);
      for (let i = 0; i < forms.length; i++) {
        const form = forms[i];
        const name = attr(form, 'toolname');
        let e = byForm.get(form);
        if (e && e.name !== name) {
          byForm.delete(form);
          remove(e);
          e = undefined;
        }
        if (!validName(name)) continue;
        seen.add(form);
        const description = attr(form, 'tooldescription') || '';
        const inputSchema = formSchema(form);
        const key = plainJson([description, inputSchema, hasAttr(form, 'toolautosubmit')]);
        if (e) {
          if (e.key !== key) {
            e.key = key;
            e.description = description;
            e.inputSchema = inputSchema;
            changed();
          }
          continue;
        }
        if (tools.has(name)) continue; // the name is taken (two forms, or a script's tool)
        e = {
          name,
          title: '',
          description,
          inputSchema,
          annotations: undefined,
          source: 'declarative',
          form,
          key,
          tool: undefined,
          /** @param {any} input */
          execute: (input) => execute(form, input),
        };
        byForm.set(form, e);
        add(e);
      }
      for (const [form, e] of [...byForm]) {
        if (!seen.has(form)) {
          byForm.delete(form);
          remove(e);
        }
      }
    };

    const CONTROL_SEL = 'form,input,select,textarea,option,optgroup,label,fieldset,datalist';
    /** Only mutations that can touch a tool form are worth a rescan. @param {MutationRecord[]} records */
    const relevant = (records) => {
      for (const r of records) {
        const t = /** @type {any} */ (r.target);
        if (r.type === 'attributes') {
          if (NAME_ATTRS.includes(/** @type {string} */ (r.attributeName))) return true;
          if (t.nodeType === 1 && rApply(elClosest, t, ['form[toolname]'])) return true;
          if (t.form && hasAttr(t.form, 'toolname')) return true;
          continue;
        }
        if (t.nodeType === 1 && rApply(elClosest, t, ['form[toolname]'])) return true;
        for (const list of [r.addedNodes, r.removedNodes]) {
          for (const n of list) {
            if (n.nodeType !== 1) continue;
            if (rApply(elMatches, n, [CONTROL_SEL])) return true;
            if (rApply(elQuerySelector, n, ['form[toolname],input,select,textarea'])) return true;
          }
        }
      }
      return false;
    };

    const start = () => {
      scan();
      new MutationObserverC((records) => {
        if (relevant(records)) scan();
      }).observe(D, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: [
          ...NAME_ATTRS, 'toolparamdescription', 'name', 'type', 'required', 'min', 'max',
          'step', 'pattern', 'multiple', 'value', 'label', 'form', 'for', 'id',
        ],
      });
    };
    if (D.readyState === 'loading') rApply(listen, D, ['DOMContentLoaded', start, { once: true }]);
    else start();
  }

  Object.assign(ns, { installDeclarative });
})();
