// WebMCP Sidecar, MAIN world, first file: the builtins and the files' private namespace
// (document_start, every frame).
//
// Runs in the page's own world, so the page can see, call and spoof everything here: it holds no
// secret and no extension identity, speaks JSON only, and never evals (the page's CSP applies).
//
// - Native WebMCP (Chromium with the WebMCP feature): leave `document.modelContext` as the page
//   would see it without us; a `registerTool` wrapper only watches a tool fail and tells the
//   ISOLATED content script the real message (Chromium hands callers an opaque UnknownError).
//   The ISOLATED content script sees native tools directly.
// - Otherwise: a polyfill on `document.modelContext` that behaves as Chromium 156's, plus declarative
//   `<form toolname>` tools, reported to the ISOLATED content script over CustomEvents on
//   `window` (see docs/PROTOCOL.md, "MAIN world <-> content script").
// - Both modes: the legacy `navigator.modelContext` surface (registerTool, unregisterTool,
//   provideContext, clearContext) that older sites still use.
//
// The MAIN world is a stub, the files manifest.json lists (base.js first, start.js last), and in
// polyfill mode, on a frame's first use of WebMCP, the rest (lib/page-files.js MAIN_FILES,
// injected by the worker; surface.js, adopt.js). They share one private namespace: base.js creates a null-prototype object with the
// builtins it captured and puts it on `window` under a Symbol-keyed, non-enumerable property;
// each file takes what it needs from it (destructured once, at load) and adds what it defines;
// start.js removes the property before installing anything (surface.js puts it back for the
// injected files when it asks for them; adopt.js removes it again). Chrome runs a content_scripts
// entry's files back to back, before any page script of the document, so the page never sees
// the namespace (in a window it could touch earlier, the initial about:blank reused by a
// same-origin navigation, it could patch every builtin before base.js anyway).
(() => {
  'use strict';

  // WebMCP is [SecureContext]: on a page that is not a secure context (plain http from anything
  // but loopback) Chromium has no API, so we add none, and nothing else either; the other files
  // find no namespace and stay out (as does the ISOLATED relay).
  if (!isSecureContext) return;
  const MARK = Symbol.for('webmcp-sidecar.main-world');
  // Double injection (extension reload, a second copy of the script): the first copy owns the page.
  if (/** @type {any} */ (window)[MARK]) return;
  try {
    Object.defineProperty(window, MARK, { value: true });
  } catch {
    return;
  }

  // ---- builtins, captured before page scripts run so that a page overwriting them later can
  // neither break the channel nor observe more than the events it can already see.
  const W = window;
  const D = document;
  const R = Reflect;
  const rApply = R.apply;
  const O = Object;
  const oCreate = O.create;
  const oKeys = O.keys;
  const oFreeze = O.freeze;
  const oDefineProperty = O.defineProperty;
  const oGetOwnPropertyDescriptor = O.getOwnPropertyDescriptor;
  const oGetPrototypeOf = O.getPrototypeOf;
  const oToString = O.prototype.toString;
  const ObjectProto = O.prototype;
  const ArrayProto = Array.prototype;
  const isArray = Array.isArray;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const StringC = String;
  const PromiseC = Promise;
  const MapC = Map;
  const SetC = Set;
  const WeakSetC = WeakSet;
  const ErrorC = Error;
  const TypeErrorC = TypeError;
  const DOMExceptionC = DOMException;
  const EventC = Event;
  const CustomEventC = CustomEvent;
  const EventTargetC = EventTarget;
  const AbortControllerC = AbortController;
  const AbortSignalC = AbortSignal;
  const NodeC = Node;
  const MutationObserverC = MutationObserver;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const DataViewC = DataView;
  const RegExpC = RegExp;
  const NumberC = Number;
  const BooleanC = Boolean;
  const numIsFinite = Number.isFinite;
  const numValueOf = Number.prototype.valueOf;
  const strValueOf = String.prototype.valueOf;
  const boolValueOf = Boolean.prototype.valueOf;
  const queueMicro = queueMicrotask;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const unlisten = EventTarget.prototype.removeEventListener;
  const detailOf = /** @type {() => any} */ (
    oGetOwnPropertyDescriptor(CustomEvent.prototype, 'detail')?.get
  );
  const strTrim = String.prototype.trim;
  const strSlice = String.prototype.slice;
  const strReplace = String.prototype.replace;
  const strToLower = String.prototype.toLowerCase;
  const reTest = RegExp.prototype.test;

  /** @param {any} obj @param {string} prop */
  const setterOf = (obj, prop) => oGetOwnPropertyDescriptor(obj, prop)?.set;
  const elGetAttribute = Element.prototype.getAttribute;
  const elHasAttribute = Element.prototype.hasAttribute;
  const elClosest = Element.prototype.closest;
  const elMatches = Element.prototype.matches;
  const elQuerySelector = Element.prototype.querySelector;
  const docQuerySelectorAll = Document.prototype.querySelectorAll;
  // For the files the worker injects later (lib/page-files.js MAIN_FILES), taken now as well: by
  // then the page may have replaced any of them.
  /** @param {any} proto @param {string} k */
  const getterOf = (proto, k) => oGetOwnPropertyDescriptor(proto, k)?.get;
  const elSetAttribute = Element.prototype.setAttribute;
  const elRemoveAttribute = Element.prototype.removeAttribute;
  const setTimeoutC = setTimeout;
  const URLC = URL;
  const WeakMapC = WeakMap;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const strSplit = String.prototype.split;
  const arraySort = Array.prototype.sort;
  const promiseResolve = Promise.resolve;
  const promiseThen = Promise.prototype.then;
  const ProxyC = Proxy;
  const rGet = R.get;

  const PAGE_EVENT = 'webmcp-sidecar:page'; // MAIN -> ISOLATED
  const EXT_EVENT = 'webmcp-sidecar:ext'; // ISOLATED -> MAIN
  const MAX_DEPTH = 200;

  /** @param {unknown} name */
  // NAME_RE: WebMCP's rule, added to the namespace by generated-constants.js (the next file).
  const validName = (name) => typeof name === 'string' && rApply(reTest, ns.NAME_RE, [name]);
  /** @param {string} s @param {number} n */
  const cut = (s, n) => (s.length > n ? rApply(strSlice, s, [0, n]) + '\u2026' : s);
  /** @param {string} s */
  const squash = (s) => rApply(strTrim, rApply(strReplace, s, [/\s+/g, ' ']), []);
  /** @param {unknown} v */
  const isObj = (v) => v !== null && (typeof v === 'object' || typeof v === 'function');

  /** @param {string} msg */
  const typeError = (msg) => new TypeErrorC(msg);
  /** @param {string} op @param {string} msg */
  const opError = (op, msg) => typeError(`Failed to execute '${op}' on 'ModelContext': ${msg}`);
  /** @param {string} msg @param {string} name */
  const domError = (msg, name) => new DOMExceptionC(msg, name);
  /** @param {AbortSignal} signal */
  const abortReason = (signal) =>
    signal.reason !== undefined
      ? signal.reason
      : domError('signal is aborted without reason', 'AbortError');

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  /** The files' namespace while they load (see the header). @type {Record<string, any>} */
  const ns = oCreate(null);
  const shared = {
    W, D, R, rApply, O, oCreate, oKeys, oFreeze, oDefineProperty, oGetOwnPropertyDescriptor,
    oGetPrototypeOf, oToString, ObjectProto, ArrayProto, isArray, jsonStringify, jsonParse, StringC,
    PromiseC, MapC, SetC, WeakSetC, ErrorC, TypeErrorC, DOMExceptionC, EventC, CustomEventC, EventTargetC,
    AbortControllerC, AbortSignalC, NodeC, MutationObserverC, ArrayBufferIsView, DataViewC, RegExpC,
    NumberC, BooleanC, numIsFinite, numValueOf, strValueOf, boolValueOf, queueMicro, dispatch, listen,
    unlisten, detailOf, strTrim, strSlice, strReplace, strToLower, reTest,
    elGetAttribute, elHasAttribute, elClosest, elMatches, elQuerySelector, docQuerySelectorAll, PAGE_EVENT,
    EXT_EVENT, validName, cut, squash, isObj, typeError, opError, domError, abortReason, MAX_DEPTH,
    elSetAttribute, elRemoveAttribute,
    setTimeoutC, URLC, WeakMapC, wmGet, wmSet,
    strSplit, arraySort, promiseResolve, promiseThen, ProxyC, rGet, NS,
  };
  for (const k of oKeys(shared)) ns[k] = shared[k];
  // What only the injected files use, of interfaces that a page which never touches them does
  // not have made yet (Blink makes an interface's objects on first touch: ~110 KB of heap for
  // these): taken when the stub asks for the rest (surface.js's first use), or at a frame
  // message (surface.js); a page that replaced them by then only fools its own polyfill.
  let lateDone = false;
  ns.late = () => {
    if (lateDone) return;
    lateDone = true;
    ns.inputValueSet = setterOf(HTMLInputElement.prototype, 'value');
    ns.inputCheckedSet = setterOf(HTMLInputElement.prototype, 'checked');
    ns.textareaValueSet = setterOf(HTMLTextAreaElement.prototype, 'value');
    ns.selectValueSet = setterOf(HTMLSelectElement.prototype, 'value');
    ns.optionSelectedSet = setterOf(HTMLOptionElement.prototype, 'selected');
    ns.elClick = HTMLElement.prototype.click;
    ns.formRequestSubmit = HTMLFormElement.prototype.requestSubmit;
    ns.formElementsGet = oGetOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements')?.get;
    ns.MessageChannelC = MessageChannel;
    ns.portPost = MessagePort.prototype.postMessage;
    ns.onmessageSet = setterOf(MessagePort.prototype, 'onmessage');
    ns.msgDataGet = getterOf(MessageEvent.prototype, 'data');
    ns.msgOriginGet = getterOf(MessageEvent.prototype, 'origin');
    ns.msgSourceGet = getterOf(MessageEvent.prototype, 'source');
    ns.frameWindowGet = getterOf(HTMLIFrameElement.prototype, 'contentWindow');
    ns.frameSrcGet = getterOf(HTMLIFrameElement.prototype, 'src');
    ns.randomUUID = Crypto.prototype.randomUUID;
    ns.cryptoObj = crypto;
  };
  try {
    oDefineProperty(W, NS, { value: ns, configurable: true });
  } catch {
    /* a page planted it in a window it shared with us (see above) */
  }
})();
