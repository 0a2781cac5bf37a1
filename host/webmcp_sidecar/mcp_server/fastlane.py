"""A fast lane past the SDK's request dispatch for the entry's hot requests: `ping`, a call
of a site tool, and `tools/list` (from the list's kept bytes, tool_list.py).

Why: the SDK serves every request through a relay task, a task per request, a middleware chain
(an OpenTelemetry span), two validations of the params and two of the result; measured with
`bench.entry`, that machinery is ~0.3 ms of a ~0.7 ms MCP `ping` round trip on this machine, and
the same on every tool call, where the whole entry path (client to page) is ~2 ms. Our transport
(`stdio.PipeReadStream`) offers each message to the lane first; what the lane does not take goes
to the SDK unchanged. Speed only (bench.entry, "MCP entry alone"): drop it when the A/B of the
lane against the SDK's path shows less than the A/A noise (it took tools/call 1.39 -> 1.17 ms).

The lane takes only what it answers exactly as the SDK would, on an initialized handshake-era
connection (2024-11-05 to 2025-11-25; a 2026-07-28 connection never gets the handshake, so never
the lane):
- `ping` and `tools/list` with no params, and `tools/call` whose params are just `name` (a site
  tool: names the SDK route would hand to `Entry.call_site`) and `arguments` (an object, or
  absent). Anything
  with `_meta` (progress tokens, trace context, the 2026 envelope), other keys, meta-tools,
  browser tools and unknown names take the SDK's path;
- the result is shaped as the SDK shapes it (`model_dump`, then the protocol version's result
  surface: `serialize_server_result`), in the same JSON-RPC envelope and bytes;
- a handler exception becomes the same JSON-RPC error as in the SDK's dispatcher;
- `notifications/cancelled` for a lane request cancels it (the page is told to stop) and it is
  never answered; the notification still goes on to the SDK, which finds nothing to cancel;
- at the end of input, requests still running are cancelled and answered CONNECTION_CLOSED.
tests/unit/test_mcp_fastlane.py holds the two paths' answers side by side.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

import anyio
import anyio.abc
import pydantic_core
from mcp import types
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import (
    cancelled_request_id_from_params,
    handler_exception_to_error_data,
)
from mcp_types import CONNECTION_CLOSED
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS


class _Clients(Protocol):
    def note_client(self, name: str | None) -> None: ...


class Entry(Protocol):
    """What the lane needs of `server.Entry` (a protocol: server.py imports this module)."""

    @property
    def browser(self) -> _Clients: ...

    def site_ref(self, name: str) -> Any | None: ...

    def call_site(self, ref: Any, args: dict[str, Any]) -> Awaitable[Any]: ...

    def tools_list_wire(self, version: str) -> Awaitable[bytes]: ...

log = logging.getLogger(__name__)

_CALL_KEYS = frozenset({"name", "arguments"})


class _InFlight:
    __slots__ = ("cancelled_by_client", "scope")

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.cancelled_by_client = False


class FastLane:
    def __init__(self, entry: Entry) -> None:
        self._entry = entry
        self._write: Callable[[bytes], Awaitable[None]] | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._init_ids: dict[types.RequestId, str | None] = {}  # initialize id -> client name
        self._version: str | None = None  # the negotiated version, once initialize succeeded
        self._initialized = False  # the client said `notifications/initialized`
        self._inflight: dict[types.RequestId, _InFlight] = {}

    @asynccontextmanager
    async def running(self, write: Callable[[bytes], Awaitable[None]]) -> AsyncIterator[None]:
        """Serve lane requests while inside; `write` sends one whole line to the client (in one
        piece, so answers never interleave) and waits while the client is not reading."""
        async with anyio.create_task_group() as tg:
            self._tg, self._write = tg, write
            try:
                yield
            finally:
                self.close()

    def close(self) -> None:
        """End of input: no more lane requests; those running are cancelled (and answered)."""
        self._tg = None
        for call in self._inflight.values():
            call.scope.cancel()

    # --- what the client sends and what the SDK answers ----------------------------------------

    def inbound(self, message: types.JSONRPCMessage) -> bool:
        """Offered each message from the client; True when the lane took it (the SDK never
        sees it)."""
        if isinstance(message, types.JSONRPCRequest):
            if message.method == "initialize":
                info = (message.params or {}).get("clientInfo")
                name = info.get("name") if isinstance(info, dict) else None
                self._init_ids[message.id] = name.strip() or None if isinstance(name, str) else None
                return False
            if self._tg is None or self._version is None or not self._initialized:
                return False
            work = self._route(message.method, message.params)
            if work is None:
                return False
            self._start(message.id, message.method, work)
            return True
        if isinstance(message, types.JSONRPCNotification):
            if message.method == "notifications/initialized":
                self._initialized = True
            elif message.method == "notifications/cancelled":
                rid = cancelled_request_id_from_params(message.params)
                call = self._inflight.get(coerce_request_id(rid)) if rid is not None else None
                if call is not None:
                    call.cancelled_by_client = True
                    call.scope.cancel()
        return False

    def outbound(self, message: types.JSONRPCMessage) -> None:
        """Shown each message the SDK sends: the answer to `initialize` opens the lane."""
        if not self._init_ids or not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return
        if message.id not in self._init_ids:
            return
        client = self._init_ids.pop(message.id)
        if isinstance(message, types.JSONRPCResponse):
            version = message.result.get("protocolVersion")
            if isinstance(version, str) and version in HANDSHAKE_PROTOCOL_VERSIONS:
                self._version = version
                # As `Entry.call_tool` does on each call (the name is the same every time).
                self._entry.browser.note_client(client)

    # --- serving -----------------------------------------------------------------------------

    def _route(self, method: str, params: dict[str, Any] | None) -> Callable[[], Awaitable[Any]] | None:
        if method == "ping":
            return _empty if not params else None
        if method == "tools/list":
            version = self._version
            assert version is not None
            # No cursor (we never page) and no `_meta`: the kept bytes of the list.
            return (lambda: self._entry.tools_list_wire(version)) if not params else None
        if method != "tools/call" or not params or not _CALL_KEYS.issuperset(params):
            return None
        name, args = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (args is None or isinstance(args, dict)):
            return None
        ref = self._entry.site_ref(name)
        if ref is None:
            return None
        return lambda: self._entry.call_site(ref, args or {})

    def _start(self, req_id: types.RequestId, method: str, work: Callable[[], Awaitable[Any]]) -> None:
        assert self._tg is not None
        call = self._inflight[coerce_request_id(req_id)] = _InFlight()
        self._tg.start_soon(self._serve, req_id, method, work, call)

    async def _serve(
        self, req_id: types.RequestId, method: str, work: Callable[[], Awaitable[Any]], call: _InFlight
    ) -> None:
        answer: types.JSONRPCResponse | types.JSONRPCError | None = None
        raw: bytes | None = None  # a result's JSON, already shaped (tools/list)
        try:
            with call.scope:
                try:
                    result = await work()
                    if isinstance(result, bytes):
                        raw = result
                    else:
                        answer = types.JSONRPCResponse(
                            jsonrpc="2.0", id=req_id, result=self._shape(method, result)
                        )
                except Exception as e:
                    # As the SDK's dispatcher (`_handle_request`) answers a raising handler.
                    error = handler_exception_to_error_data(e)
                    if error is None:
                        log.exception("handler for %r raised", method)
                        error = types.ErrorData(code=0, message=str(e))
                    answer = types.JSONRPCError(jsonrpc="2.0", id=req_id, error=error)
        finally:
            key = coerce_request_id(req_id)
            if self._inflight.get(key) is call:
                del self._inflight[key]
        if call.cancelled_by_client:
            return  # the spec: no answer to a request the client cancelled
        if raw is not None:
            await self._send_raw(req_id, raw)
            return
        if answer is None:  # cancelled at the end of input, as the SDK answers then
            answer = types.JSONRPCError(
                jsonrpc="2.0",
                id=req_id,
                error=types.ErrorData(code=CONNECTION_CLOSED, message="Connection closed"),
            )
        await self._send(answer)

    def _shape(self, method: str, result: Any) -> dict[str, Any]:
        """The result's wire form, as the SDK's `ServerRunner._serialize` makes it for a
        handshake-era connection (no cache hints are set on our server)."""
        assert self._version is not None
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return serialize_server_result(method, self._version, dumped)

    async def _send(self, message: types.JSONRPCResponse | types.JSONRPCError) -> None:
        if self._write is None:
            return
        # The same bytes as the SDK's stdio writer.
        line = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        try:
            await self._write(line.encode("utf-8"))
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            log.debug("dropped the answer to %r: the client is gone", message.id)


    async def _send_raw(self, req_id: types.RequestId, result: bytes) -> None:
        if self._write is None:
            return
        # The bytes `_send` would write for a response holding this result.
        line = b'{"jsonrpc":"2.0","id":' + pydantic_core.to_json(req_id) + b',"result":' + result + b"}\n"
        try:
            await self._write(line)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            log.debug("dropped the answer to %r: the client is gone", req_id)


async def _empty() -> types.EmptyResult:
    return types.EmptyResult()
