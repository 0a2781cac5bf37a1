// bench/floor.py's content script: sends back what it gets.
const port = chrome.runtime.connect();
port.onMessage.addListener((m) => port.postMessage(m));
