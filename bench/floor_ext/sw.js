// bench/floor.py's worker: answers each message at once, over the way it came (native port or
// WebSocket); `to: "cs"` goes to the content script over its runtime port and back first, `to:
// "mp"` over a MessagePort the content script sent through an extension frame. No checks, no routing.
let csPort = null;
let mpPort = null;
let seq = 0;
const waiting = new Map();

function handle(msg, reply) {
  if (msg.to === 'sw') return reply(msg);
  const id = ++seq;
  waiting.set(id, () => reply(msg));
  (msg.to === 'mp' ? mpPort : csPort).postMessage({ id });
}
function settle(m) { waiting.get(m.id)?.(); waiting.delete(m.id); }

const native = chrome.runtime.connectNative('io.webmcp.sidecar.benchfloor');
native.onMessage.addListener((msg) => {
  if (msg.ws_port) return openWs(msg.ws_port);
  if (msg.direct_port) return openWs(msg.direct_port);
  handle(msg, (r) => native.postMessage(r));
});
function openWs(port) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
  ws.onmessage = (ev) => handle(JSON.parse(ev.data), (r) => ws.send(JSON.stringify(r)));
}
let ready = 0;
const isReady = () => { if (++ready === 2) native.postMessage({ ready: true }); };
chrome.runtime.onConnect.addListener((port) => {
  csPort = port;
  port.onMessage.addListener(settle);
  isReady();
});
self.addEventListener('message', (ev) => {
  if (!ev.ports[0]) return;
  mpPort = ev.ports[0];
  mpPort.onmessage = (e) => settle(e.data);
  isReady();
});
