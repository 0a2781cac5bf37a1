// WebMCP Sidecar, MAIN world: declarative tools, `<form toolname tooldescription
// [toolautosubmit]>`, as Chromium builds them (schema from the form's controls, filled like a
// user would, submitted with agentInvoked and respondWith). Polyfill mode only: Chromium with
// WebMCP does them natively. Injected on first use (surface.js asks when the document has a
// `form[toolname]`); the selector fallback for `:tool-form-active` is selectors.js's. Kept in the polyfill's registry with source "declarative"; the
// schema comes from form-schema.js.
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns || !ns.surface || ns.surface.adopted) return; // no stub waiting for us (see adopt.js)
  const {
    W, D, rApply, oKeys, oDefineProperty, isArray, StringC, MapC, SetC, ErrorC, EventC, MutationObserverC,
    dispatch, listen, unlisten, inputValueSet, inputCheckedSet, textareaValueSet, selectValueSet,
    optionSelectedSet, elClick, formRequestSubmit, formElementsGet, elGetAttribute, elHasAttribute, elClosest,
    elMatches, elQuerySelector, docQuerySelectorAll, validName, plainJson, domError, controlsOf, formSchema,
    PromiseC, isObj, NoResponse, elSetAttribute, elRemoveAttribute,
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
    /** @param {any} el @param {string} a */
    const attr = (el, a) => rApply(elGetAttribute, el, [a]);
    /** @param {any} el @param {string} a */
    const hasAttr = (el, a) => rApply(elHasAttribute, el, [a]);

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
          // Like Chromium: input/change only when the selection changed.
          const want = new SetC(asList(v));
          let moved = false;
          for (const o of el.options) {
            const sel = want.has(o.value);
            if (o.selected === sel) continue;
            moved = true;
            if (optionSelectedSet) rApply(optionSelectedSet, o, [sel]);
            else o.selected = sel;
          }
          if (moved) fireInputChange(el);
          return;
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

    /** The button a user would submit the form with, if any. @param {HTMLFormElement} form */
    const submitterOf = (form) => {
      const elements = formElementsGet ? rApply(formElementsGet, form, []) : form.elements;
      for (let i = 0; i < elements.length; i++) {
        const el = elements[i];
        if ((el.localName === 'button' || el.localName === 'input') && (el.type === 'submit' || el.type === 'image')) {
          return el;
        }
      }
      return null;
    };

    /**
     * The pseudo-classes `:tool-form-active` / `:tool-submit-active` cannot be added by script,
     * so while the agent runs the form (and submits it) the form and its submit button carry
     * `data-tool-form-active` / `data-tool-submit-active` instead (docs/WEBMCP_WPT.md, "Polyfill vs Chromium").
     * @param {HTMLFormElement} form @param {any} input @param {AbortSignal|undefined} signal
     */
    const execute = async (form, input, signal) => {
      const submitter = submitterOf(form);
      rApply(elSetAttribute, form, ['data-tool-form-active', '']);
      if (submitter) rApply(elSetAttribute, submitter, ['data-tool-submit-active', '']);
      // Cleared the moment the call is aborted: Chromium's toolcancel already sees them off.
      const clear = () => {
        rApply(elRemoveAttribute, form, ['data-tool-form-active']);
        if (submitter) rApply(elRemoveAttribute, submitter, ['data-tool-submit-active']);
      };
      if (signal) rApply(listen, signal, ['abort', clear, { once: true }]);
      try {
        return await fillAndSubmit(form, input, submitter, signal);
      } finally {
        if (signal) rApply(unlisten, signal, ['abort', clear]);
        clear();
      }
    };

    /**
     * Fills the form, then submits it (toolautosubmit) or, as Chromium does, waits for the user
     * to submit it. Either way the submit event says it is the agent's (agentInvoked) and the
     * page may answer with respondWith(promise).
     * @param {HTMLFormElement} form @param {any} input @param {HTMLElement|null} submitter
     * @param {AbortSignal|undefined} signal the call's own: aborting stops the wait
     */
    const fillAndSubmit = async (form, input, submitter, signal) => {
      if (!form.isConnected) throw new ErrorC('The form of this tool is no longer on the page.');
      const auto = hasAttr(form, 'toolautosubmit');
      if (!submitter && !auto) {
        throw domError(
          'No submit button was found, but for a form without `toolautosubmit`, there must be a submit button',
          'UnknownError',
        );
      }
      const groups = controlsOf(form);
      const keys = oKeys(input || {});
      for (const k of keys) {
        if (!groups.has(k)) {
          throw new ErrorC(`Input contains a parameter "${k}" but there is no such parameter for the tool`);
        }
      }
      for (const k of keys) fill(k, /** @type {any[]} */ (groups.get(k)), input[k]);
      const what = keys.length ? 'Filled ' + keys.join(', ') : 'Filled nothing';

      /** @type {unknown} */
      let responded;
      let hasResponse = false;
      /** @type {() => void} */
      let submitted = () => {};
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
        submitted();
      };
      rApply(listen, W, ['submit', onSubmit, true]);
      try {
        if (auto) rApply(formRequestSubmit, form, submitter ? [submitter] : []);
        else {
          await new PromiseC((resolve, reject) => {
            submitted = () => resolve(undefined);
            if (signal) {
              if (signal.aborted) reject(signal.reason);
              rApply(listen, signal, ['abort', () => reject(signal.reason), { once: true }]);
            }
          });
        }
      } finally {
        rApply(unlisten, W, ['submit', onSubmit, true]);
      }
      if (hasResponse) return await responded;
      // Chromium's executeTool gives "null" here; the extension gets these words (bridge.js).
      return new NoResponse(what + ' and submitted the form.');
    };

    const NAME_ATTRS = ['toolname', 'tooldescription', 'tooltitle', 'toolautosubmit'];

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
        // As in Chromium, a form is a tool only while it has a tooldescription.
        if (!validName(name) || !hasAttr(form, 'tooldescription')) continue;
        seen.add(form);
        const description = attr(form, 'tooldescription') || '';
        const title = attr(form, 'tooltitle') || '';
        const inputSchema = formSchema(form);
        const key = plainJson([description, title, inputSchema, hasAttr(form, 'toolautosubmit')]);
        if (e) {
          if (e.key !== key) {
            e.key = key;
            e.title = title;
            e.description = description;
            e.inputSchema = inputSchema;
            changed();
          }
          continue;
        }
        if (tools.has(name)) continue; // the name is taken (two forms, or a script's tool)
        e = {
          name,
          title,
          description,
          inputSchema,
          annotations: undefined,
          source: 'declarative',
          form,
          key,
          tool: undefined,
          /** @param {any} input @param {any} options */
          execute: (input, options) => execute(form, input, isObj(options) ? options.signal : undefined),
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
