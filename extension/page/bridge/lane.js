// The frame lane's bridge (lib/frame-lanes.js): a content script that made a MessageChannel
// posts one end here, with its nonce, and this extension frame hands it to the service worker
// (a content script cannot reach it with a port). A message that carries exactly one port and a
// nonce of the right shape is passed on, the first few of them (a page may post into this frame
// before the content script does; the worker closes a port whose nonce nobody claimed); nothing
// else is, and nothing is answered. The content script removes this frame once the worker says
// the lane is up, not before: a message whose sending frame is gone before the worker gets it is
// dropped.
import { LANE_NONCE } from '../../lib/frame-lanes.js';

let left = 4;
addEventListener('message', function pass(ev) {
  const nonce = ev.data?.lane;
  if (ev.ports.length !== 1 || typeof nonce !== 'string' || !LANE_NONCE.test(nonce)) return;
  if (--left === 0) removeEventListener('message', pass);
  navigator.serviceWorker?.ready.then((reg) => reg.active?.postMessage({ lane: nonce }, [ev.ports[0]]))
    .catch(() => {});
});
