// bench/floor.py's content script: sends back what it gets, over its runtime port and, for the
// MessagePort series, over a MessageChannel whose other end an extension frame hands the worker.
const port = chrome.runtime.connect();
port.onMessage.addListener((m) => port.postMessage(m));
const chan = new MessageChannel();
chan.port1.onmessage = (ev) => chan.port1.postMessage(ev.data);
const frame = document.createElement('iframe');
frame.src = chrome.runtime.getURL('bridge.html');
frame.style.display = 'none';
frame.onload = () => frame.contentWindow.postMessage('port', '*', [chan.port2]);
document.documentElement.append(frame);
