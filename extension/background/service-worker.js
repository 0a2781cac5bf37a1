// The service worker's entry (manifest.json): one worker, made at start so its listeners are
// registered before the first event. What it is made of: worker.js; where each message goes:
// routes.js. Pure logic lives in ../lib/.

import { createWorker } from './worker.js';

const worker = createWorker();
// Frame lanes' MessagePorts arrive as the worker's own messages, from page/bridge/lane.html.
self.addEventListener('message', (ev) => worker.offerLane(/** @type {MessageEvent} */ (ev)));

// For debugging and the end-to-end tests (tests/e2e evaluate in the worker).
globalThis.sidecar = {
  registry: worker.registry,
  status: worker.status,
  framePorts: worker.framePorts,
  frameLanes: worker.frameLanes,
  lanesWaiting: worker.lanesWaiting,
  pageInstalls: worker.pageInstalls,
  pageStubs: worker.pageStubs,
  setLanes: worker.setLanes,
  pending: worker.pending,
  entryLinks: worker.entryLinks,
  nativeLink: worker.nativeLink,
  connect: worker.connect,
  browserTools: worker.browserTools,
  routes: worker.routes,
  skills: worker.skills,
  chatSites: worker.chatSites,
  panel: worker.panel,
};
