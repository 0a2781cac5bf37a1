// WebMCP Sidecar, MAIN world stub, first file (every frame, document_start): the builtins,
// captured before page scripts run, and the files' private namespace. The page can see, call and
// spoof all of it: no secret, JSON only, no eval. What runs when: docs/PAGE_CODE.md. Comments
// here stay short: a stub file's source stays in every frame's heap while the page lives.
(() => {
  'use strict';

  if (!isSecureContext) return; // WebMCP is [SecureContext]: no API, nothing of ours
  const MARK = Symbol.for('webmcp-sidecar.main-world');
  // A second copy (extension reload): the first owns the page.
  if (/** @type {any} */ (window)[MARK]) return;
  try {
    Object.defineProperty(window, MARK, { value: true });
  } catch {
    return;
  }

  // Captured now: a page overwriting them later cannot break the channel.
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
  const EventC = Event; // the tool events' base (surface.js), at document_start
  const EventTargetC = EventTarget; // Window's own: made already
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
  const strTrim = String.prototype.trim;
  const strSlice = String.prototype.slice;
  const strReplace = String.prototype.replace;
  const strToLower = String.prototype.toLowerCase;
  const reTest = RegExp.prototype.test;

  /** @param {any} obj @param {string} prop */
  const setterOf = (obj, prop) => oGetOwnPropertyDescriptor(obj, prop)?.set;
  /** @param {any} proto @param {string} k */
  const getterOf = (proto, k) => oGetOwnPropertyDescriptor(proto, k)?.get;
  const docQuerySelectorAll = Document.prototype.querySelectorAll; // document's own: made already
  const setTimeoutC = setTimeout;
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
  const GRANTED_IFRAME = 'iframe[allow*="tools"]'; // an iframe given `tools`: the relay grants it
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
  const domError = (msg, name) => new (ns.dom().DOMExceptionC)(msg, name);
  /** @param {AbortSignal} signal */
  const abortReason = (signal) =>
    signal.reason !== undefined
      ? signal.reason
      : domError('signal is aborted without reason', 'AbortError');

  const NS = Symbol.for('webmcp-sidecar.main-world.files');
  /** The files' namespace while they load. @type {Record<string, any>} */
  const ns = oCreate(null);
  const shared = {
    W, D, R, rApply, O, oCreate, oKeys, oFreeze, oDefineProperty, oGetOwnPropertyDescriptor,
    oGetPrototypeOf, oToString, ObjectProto, ArrayProto, isArray, jsonStringify, jsonParse, StringC,
    PromiseC, MapC, SetC, WeakSetC, ErrorC, TypeErrorC, EventC, EventTargetC,
    ArrayBufferIsView, DataViewC, RegExpC,
    NumberC, BooleanC, numIsFinite, numValueOf, strValueOf, boolValueOf, queueMicro, dispatch, listen,
    unlisten, strTrim, strSlice, strReplace, strToLower, reTest,
    docQuerySelectorAll, PAGE_EVENT, GRANTED_IFRAME,
    EXT_EVENT, validName, cut, squash, isObj, typeError, opError, domError, abortReason, MAX_DEPTH,
    setTimeoutC, WeakMapC, wmGet, wmSet,
    strSplit, arraySort, promiseResolve, promiseThen, ProxyC, rGet, NS,
  };
  for (const k of oKeys(shared)) ns[k] = shared[k];
  // Interfaces taken at first need, not at document_start: Blink makes an interface's objects on
  // first touch (Element alone: 33 KB per frame). A page that replaced them by then fools only itself.
  // Each taken once, behind a flag of its own: a shared run-once wrapper measured 2 KB more heap
  // per frame (bench/pageload.py), its closures made in every frame at document_start.
  let eventsDone = false;
  /** The channel's events only: what a word to the isolated world needs (`tell`). */
  ns.events = () => {
    if (eventsDone) return ns;
    eventsDone = true;
    ns.CustomEventC = CustomEvent;
    ns.detailOf = oGetOwnPropertyDescriptor(CustomEvent.prototype, 'detail')?.get;
    return ns;
  };
  let domDone = false;
  ns.dom = () => {
    if (domDone) return ns;
    domDone = true;
    ns.events();
    ns.DOMExceptionC = DOMException;
    ns.AbortControllerC = AbortController;
    ns.AbortSignalC = AbortSignal;
    ns.NodeC = Node;
    ns.MutationObserverC = MutationObserver;
    ns.URLC = URL;
    ns.elGetAttribute = Element.prototype.getAttribute;
    ns.elHasAttribute = Element.prototype.hasAttribute;
    ns.elClosest = Element.prototype.closest;
    ns.elMatches = Element.prototype.matches;
    ns.elQuerySelector = Element.prototype.querySelector;
    ns.elSetAttribute = Element.prototype.setAttribute;
    ns.elRemoveAttribute = Element.prototype.removeAttribute;
    return ns;
  };
  // Likewise, what only the injected files use: taken by the first of them (json-safe.js), not
  // when the stub asks: a tool form's ask runs in DOMContentLoaded's listener, and DCL waits for it.
  let lateDone = false;
  ns.late = () => {
    if (lateDone) return;
    lateDone = true;
    ns.dom();
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
  /** A word to the isolated world (its stub, or the relay): a JSON string on PAGE_EVENT. @param {string} detail */
  ns.tell = (detail) => {
    try {
      rApply(dispatch, W, [new (ns.events().CustomEventC)(PAGE_EVENT, { detail })]);
    } catch {
      /* nothing to tell it to */
    }
  };
  try {
    oDefineProperty(W, NS, { value: ns, configurable: true });
  } catch {
    /* planted in a window the page shared with us (an about:blank a navigation reused) */
  }
})();
