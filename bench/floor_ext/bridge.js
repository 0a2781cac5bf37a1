// bench/floor.py's extension frame: passes the content script's MessagePort on to the worker.
addEventListener('message', async (ev) => {
  if (!ev.ports[0]) return;
  const reg = await navigator.serviceWorker.ready;
  reg.active.postMessage('port', [ev.ports[0]]);
});
