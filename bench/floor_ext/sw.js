// bench/floor.py's worker: answers each message at once, over the way it came (native port or
// WebSocket); `to: "cs"` goes to the content script and back first. No checks, no routing.
let csPort = null;
let seq = 0;
const waiting = new Map();

function handle(msg, reply) {
  if (msg.to !== 'cs') return reply(msg);
  const id = ++seq;
  waiting.set(id, () => reply(msg));
  csPort.postMessage({ id });
}

const native = chrome.runtime.connectNative('io.webmcp.sidecar.benchfloor');
native.onMessage.addListener((msg) => {
  if (msg.ws_port) return openWs(msg.ws_port);
  handle(msg, (r) => native.postMessage(r));
});
function openWs(port) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
  ws.onmessage = (ev) => handle(JSON.parse(ev.data), (r) => ws.send(JSON.stringify(r)));
}
chrome.runtime.onConnect.addListener((port) => {
  csPort = port;
  port.onMessage.addListener((m) => { waiting.get(m.id)?.(); waiting.delete(m.id); });
  native.postMessage({ ready: true });
});
