"""The entry link: a loopback WebSocket this MCP entry listens on and the extension's worker
opens, so that a site call goes entry -> worker and its result worker -> entry with no host in
between (the host still carries everything else, and a call while the link is not open).

Why: each hop through the host is a socket, a wake-up of the host's Python and a second socket or
WebSocket; `bench.floor` puts the host's relay at ~0.3 ms of a ~1.5 ms round trip to a content
script (bench/README.md, "The entry link"). Speed only (bench.chain, "Entry link on vs off"):
drop it when the on/off median ratio sits at 1.00 (it was 0.80-0.97 on 2026-11-26).

How it opens: the entry offers it to its host (`entry_link_offer`: port and a one-use token);
the host passes the offer to the worker (`entry_link`) with the connection id the entry's call ids
begin with (native_host/entry_server.py); the worker opens it (extension/background/entry-links.js)
and sends a call's result back on the link the call came on. The server is wire/link_server.py
(Origin: the extension's, from the host's `Welcome`; the offer's token; one connection at a time;
at most 1 MiB a frame). Only results are taken from it: whole, or a long one (over
RESULT_PART_CHARS) in `chunk`s whose `cid` is its call's id, joined here, so a call and its
result take one way. A joined result is capped by its call's `max_bytes` (escaped, at most 6
characters a byte, plus an envelope); a piece out of order, malformed or over that cap fails that
call alone (`internal`) and nothing else.

When it drops, every call still out on it is cancelled through the host and waits a moment for
its answer that way (wire/adrift.py: a result the worker sent once its end closed, or the page's
answer to the cancel; else the drop's error), and the link is offered again, a few times at most.
`WEBMCP_SIDECAR_ENTRY_LINK=0` in the entry's environment keeps everything on the socket.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from webmcp_sidecar.wire.adrift import Adrift
from webmcp_sidecar.wire.codec import FrameError, Reassembler, dumps, parse_payload
from webmcp_sidecar.wire.constants import DEFAULT_MAX_BYTES, MAX_LINK_CALL_BYTES, MAX_REASSEMBLED
from webmcp_sidecar.wire.link_server import LinkServer

log = logging.getLogger(__name__)

ENTRY_LINK_ENV = "WEBMCP_SIDECAR_ENTRY_LINK"
# Offered again after a drop this many times at most; then the host carries everything.
MAX_DROPS = 3
LINK_DROPPED = (
    "The browser's link to this MCP entry dropped while this call ran, so its answer was lost "
    "(the page was told to stop it); the call may or may not have run. Try again."
)
# A long result's pieces on the link did not make a result (a worker bug, or not our worker).
BAD_PIECES = (
    "The browser's long result for this call came in pieces that do not make a result ({why}); "
    "it was dropped. The call may or may not have run. Try again."
)
# A joined result's JSON may be this much longer than its value's `max_bytes` (its envelope).
ENVELOPE_CHARS = 64 * 1024


def joined_cap(max_bytes: int) -> int:
    """Characters a call's long result may join to: its value escaped (a byte is at most 6
    characters, `\\u00XX`), plus the envelope; never more than any chunked message."""
    return min(MAX_REASSEMBLED, 6 * max_bytes + ENVELOPE_CHARS)


class EntryLink:
    """One host's browser, linked to this entry (one per `HostLink`)."""

    def __init__(
        self,
        origin: str,
        to_host: Callable[[dict[str, Any]], None],
        resolve: Callable[[str, dict[str, Any]], bool],
    ) -> None:
        """origin: the extension's (`Welcome.extension_origin`); to_host: a message to the host
        (the offer, cancels after a drop); resolve: a result for the call with that id."""
        self._link = LinkServer(origin, self._on_frame, self._dropped, "entry link", self._offer)
        self._to_host = to_host
        self._resolve = resolve
        # The calls sent on the link and not answered yet: their cancels take it too. A drop
        # leaves them adrift: their answers may still come through the host.
        self.calls: set[str] = set()
        # Each of those calls' cap on a long result joined from its pieces (`joined_cap`).
        self._caps: dict[str, int] = {}
        self._pieces = Reassembler()
        self.adrift = Adrift(LINK_DROPPED, resolve)
        self.drops = 0

    @property
    def is_open(self) -> bool:
        return self._link.is_open

    async def start(self) -> None:
        if await self._link.start() is not None:
            self._offer()

    def _offer(self) -> None:
        offer = self._link.offer()
        self._to_host({"type": "entry_link_offer", "port": offer["port"], "token": offer["token"]})

    @property
    def unanswered(self) -> int:
        return self._link.unanswered

    def send_call(self, call_id: str, payload: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> bool:
        """A call on the link; False when it is not open (or the call is big): use the host.
        max_bytes: the call's, which caps a long result joined here."""
        if len(payload) > MAX_LINK_CALL_BYTES or not self._link.send(payload):
            return False
        self.calls.add(call_id)
        self._caps[call_id] = joined_cap(max_bytes)
        return True

    def send_cancel(self, call_id: str) -> bool:
        """A cancel takes the way its call took, so it cannot overtake it; False: use the host."""
        return call_id in self.calls and self._link.send(dumps({"type": "cancel", "id": call_id}))

    def done(self, call_id: str) -> None:
        self.calls.discard(call_id)
        self._caps.pop(call_id, None)
        self._pieces.drop(call_id)
        self.adrift.discard(call_id)

    def _on_frame(self, payload: bytes) -> None:
        """The worker sends results here, whole or in pieces, nothing else."""
        try:
            raw = parse_payload(payload)
        except Exception as e:
            log.warning("bad frame on the entry link dropped: %s", str(e)[:300])
            return
        kind = raw.get("type")
        if kind == "chunk":
            self._on_piece(raw)
            return
        call_id = raw.get("id")
        if kind != "result" or not isinstance(call_id, str):
            log.warning("a %s message on the entry link dropped: it carries results only", str(kind)[:40])
            return
        self._resolve(call_id, self.landed(call_id, raw))

    def _on_piece(self, raw: dict[str, Any]) -> None:
        """A piece of a long result; its `cid` is its call's id. Only a call out on this link
        may be answered so; a bad piece ends that call with `BAD_PIECES`."""
        call_id, seq, last, data = raw.get("cid"), raw.get("seq"), raw.get("last"), raw.get("data")
        cap = self._caps.get(call_id) if isinstance(call_id, str) else None
        if cap is None or call_id not in self.calls:
            log.warning("a piece of a result for no call out on the entry link dropped")
            return
        assert isinstance(call_id, str)
        try:
            if type(seq) is not int or not isinstance(last, bool) or not isinstance(data, str):
                raise FrameError(f"malformed piece {str(seq)[:20]}")
            text = self._pieces.add(call_id, seq, last, data, cap)
            if text is None:
                return
            whole = parse_payload(text.encode("utf-8", "surrogatepass"))
            if whole.get("type") != "result" or whole.get("id") != call_id:
                raise FrameError("the pieces joined to something other than this call's result")
        except FrameError as e:
            self._pieces.drop(call_id)
            self.calls.discard(call_id)  # the rest of its pieces are dropped unread
            self._caps.pop(call_id, None)
            log.warning("a long result on the entry link failed its call: %s", str(e)[:300])
            self._resolve(call_id, self.landed(call_id, failed(call_id, BAD_PIECES.format(why=str(e)[:300]))))
            return
        self._resolve(call_id, self.landed(call_id, whole))

    def landed(self, call_id: str, raw: dict[str, Any]) -> dict[str, Any]:
        """A result, whichever way it came (this link, or the host): what its call is answered
        (the one place a drop's calls are settled: wire/adrift.py)."""
        return self.adrift.landed(call_id, raw)

    def _dropped(self) -> None:
        self.drops += 1
        out, self.calls = self.calls, set()
        for call_id in out:  # a long result cut off by the drop never finishes here
            self._pieces.drop(call_id)
        for call_id in out:
            self.adrift.add(call_id)
            self._to_host({"type": "cancel", "id": call_id})  # the page may still run it
        if self.drops <= MAX_DROPS:
            self._offer()
        else:
            log.warning("the entry link dropped %d times: the host carries every call now", self.drops)
            self._link.stop()

    def stop(self) -> None:
        self._link.stop()
        self.adrift.clear()


def failed(call_id: str, message: str) -> dict[str, Any]:
    return {"type": "result", "id": call_id, "ok": False, "error": {"code": "internal", "message": message}}
