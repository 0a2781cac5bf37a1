// WebMCP Sidecar, page agent, last file: the ops, published as `webmcpSidecar.agent`
// (the marker the worker's call looks for; see roles.js).
(() => {
  'use strict';

  const P = /** @type {any} */ (globalThis).webmcpSidecar?.agentParts;
  if (!P) return; // this document has the agent already (see roles.js)
  const { version, fail, snapshot, aimedValue, point, focus, value, select, scroll, rect, text, waitFor, mark, unmark, skillStep,
    skillSteps, skillHealth, selectorFor, rows } = P;

  /**
   * @param {string} op snapshot | point | aimed | focus | value | select | scroll | rect | text | wait | mark | unmark | info |
   *   skill_step | skill_steps | skill_health | selector_for | rows (skills: selectors.js, rows.js, skill-steps.js)
   * @param {any} params
   */
  function run(op, params = {}) {
    try {
      switch (op) {
        case 'snapshot': return snapshot(params);
        case 'point': return point(params);
        case 'aimed': return aimedValue(params);
        case 'focus': return focus(params);
        case 'value': return value(params);
        case 'select': return select(params);
        case 'scroll': return scroll(params);
        case 'rect': return rect(params);
        case 'text': return text(params);
        case 'wait': return waitFor(params);
        case 'mark': return mark(params);
        case 'unmark': return unmark(params);
        case 'skill_step': return skillStep(params);
        case 'skill_steps': return skillSteps(params);
        case 'skill_health': return skillHealth(params);
        case 'selector_for': return selectorFor(params);
        case 'rows': return rows();
        case 'info': return { url: location.href, title: document.title, readyState: document.readyState };
        default: return fail('internal', `unknown page op ${op}`);
      }
    } catch (e) {
      return fail('page_error', `The page agent failed: ${e?.message ?? e}`);
    }
  }

  const ns = /** @type {any} */ (globalThis).webmcpSidecar;
  ns.agent = Object.freeze({ version, run });
  delete ns.agentParts;
})();
