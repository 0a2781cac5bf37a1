// A call's way back: made where the call comes in (the host's native port in routes.js, an MCP
// entry's link in entry-links.js, the Inspector in panel-bridge.js, a chat site in
// chat-sites.js), carried with the call (site-calls.js keeps it in its one table of calls in
// flight) and used once, for its result (routes.js `answer`). Nothing remembers a call's way by
// its id: a result goes back the way its call came, and a link that drops cancels exactly the
// calls whose reply it is (SiteCalls.dropReply).

/**
 * @typedef {{via: 'host'|'entry'|'inspector'|'chat', post: (msg: any) => boolean}} Reply
 *   via: which way, for logs and tests; post: sends the call's `result` (false when this way has
 *   closed: routes.js then gives it to the host)
 */

/**
 * A reply that hands the result to `take` in the worker (the Inspector, a chat site): always open.
 * @param {'inspector'|'chat'} via @param {(msg: any) => void} take
 * @returns {Reply}
 */
export function localReply(via, take) {
  return { via, post: (msg) => { take(msg); return true; } };
}
