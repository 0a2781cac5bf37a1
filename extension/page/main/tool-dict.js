// WebMCP Sidecar, MAIN world stub: a tool dict read as Chromium's bindings read it (order, errors).
(() => {
  'use strict';

  const ns = /** @type {any} */ (window)[Symbol.for('webmcp-sidecar.main-world.files')];
  if (!ns) return; // base.js stepped aside: another copy owns the page, or no secure context
  const {
    oKeys, StringC, validName, isObj, typeError, opError, domError, jsonCopy,
  } = ns;

  /** Runs `cb`: there is no UI of ours to ask the user in. */
  const requestUserInteraction = {
    /** @param {unknown} cb */
    async requestUserInteraction(cb) {
      if (typeof cb !== 'function') throw typeError('The callback provided is not a function.');
      return await cb();
    },
  }.requestUserInteraction;

  /** Chromium 156 ignores `outputSchema`: an unusable one is left out. @param {unknown} v */
  function outputSchemaOf(v) {
    if (!isObj(v)) return undefined;
    try {
      return jsonCopy(v, 'outputSchema');
    } catch {
      return undefined;
    }
  }

  /** @param {any} tool @param {string} op */
  function readToolDict(tool, op) {
    if (!isObj(tool)) throw opError(op, "The provided value is not of type 'ModelContextTool'.");
    const annotations = tool.annotations;
    const description = tool.description;
    if (description === undefined) {
      throw opError(op, "Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.");
    }
    const execute = tool.execute;
    if (execute === undefined) {
      throw opError(op, "Failed to read the 'execute' property from 'ModelContextTool': Required member is undefined.");
    }
    if (typeof execute !== 'function') {
      throw opError(op, "Failed to read the 'execute' property from 'ModelContextTool': The given value is not a function.");
    }
    const inputSchema = tool.inputSchema;
    if (inputSchema !== undefined && inputSchema !== null && !isObj(inputSchema)) {
      throw opError(op, "Failed to read the 'inputSchema' property from 'ModelContextTool': Failed to convert value to 'object'.");
    }
    const name = tool.name;
    if (name === undefined) {
      throw opError(op, "Failed to read the 'name' property from 'ModelContextTool': Required member is undefined.");
    }
    const outputSchema = tool.outputSchema;
    const title = tool.title;
    /** @type {Record<string, boolean|string|number>|undefined} */
    let ann;
    if (isObj(annotations)) {
      ann = {};
      for (const k of oKeys(annotations)) {
        const x = annotations[k];
        if (typeof x === 'boolean' || typeof x === 'string' || typeof x === 'number') ann[k] = x;
      }
    }
    return {
      name: StringC(name),
      title: title === undefined || title === null ? '' : StringC(title),
      description: StringC(description),
      inputSchema: inputSchema ? jsonCopy(inputSchema, 'inputSchema') : undefined,
      annotations: ann,
      outputSchema: outputSchemaOf(outputSchema),
      execute,
      tool,
    };
  }

  /** @param {string} name */
  function checkNewName(name) {
    if (!validName(name)) throw domError('Invalid tool name', 'InvalidStateError');
  }

  Object.assign(ns, { requestUserInteraction, readToolDict, checkNewName });
})();
