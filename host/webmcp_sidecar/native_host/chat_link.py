"""The host's side of chat sites (docs/CHAT_SITES.md).

- The worker asks for the adapters (`doc_get {kind: chat_sites}`, after `host_hello`, through the
  documents plugin, native_host/doc_link.py) and gets the enabled ones (`docs`), again whenever
  they change (the CLI, the side panel, an editor: a 1 s poll of the user's adapter dir, as for
  skills).
- It reports a round trip that worked on a live site (`chat_site_verified`).
- It lists and calls the user's local MCP servers' tools for a chat site (`chat_server_call`,
  answered by `chat_server_result`).
- The side panel manages adapters through the documents plugin (`panel_doc`, native_host/
  doc_link.py), and sees every change as a `doc_answer` with an empty `id`.

Local servers are reached through the servers plugin's link (native_host/servers_link.py), given
to this one when the host is composed (cli.py): one ServerManager per host, so a chat
site and the side panel share the running servers. The calls go straight to the manager, not
through the link's logging call: the worker logs them itself with the chat site as the caller.
The store loads on the first message, never at host start.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from webmcp_sidecar.documents.kinds import CHAT_SITES
from webmcp_sidecar.native_host.doc_link import POLL_S, DocLink

if TYPE_CHECKING:
    from webmcp_sidecar.native_host.app import Host
    from webmcp_sidecar.wire import messages as m

log = logging.getLogger(__name__)

MAX_RESULT_CHARS = 200_000  # what a chat site may get back of one server result


class ChatLink(DocLink):
    """Host plugin (native_host/plugins.py): adapters for the worker (doc_link.py) and whether
    they worked, and local servers' tools for chat sites."""

    KIND = CHAT_SITES
    HANDLES: ClassVar[dict[str, str]] = {
        "chat_site_verified": "on_verified",
        "chat_server_call": "on_server_call",
    }

    def __init__(
        self, host: Host, root: Path | None = None, poll_s: float = POLL_S, servers: Any = None
    ) -> None:
        """servers: the servers plugin's link (its `manager()` and `tools_for()`), None when
        this host has none: the seam between chat sites and local MCP servers."""
        super().__init__(host, root, poll_s)
        self.servers = servers
        self._calls: set[asyncio.Task[None]] = set()

    # --- the worker ----------------------------------------------------------------------------

    def on_verified(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        try:
            msg = m.ChatSiteVerified.model_validate(raw)
            if self.store().mark_verified(msg.name, msg.host):
                log.info("chat-site adapter %s verified on %s", msg.name, msg.host)
                self.push()
        except Exception as e:  # the worker's word is data; a bad one costs nothing
            log.warning("chat_site_verified ignored: %s", str(e)[:200])

    def on_server_call(self, raw: dict[str, Any], payload: bytes) -> None:
        from pydantic import ValidationError

        from webmcp_sidecar.wire import messages as m

        try:
            msg = m.ChatServerCall.model_validate(raw)
        except ValidationError as e:
            call_id = raw.get("id")
            if isinstance(call_id, str) and call_id:
                self._fail(call_id[:100], "bad_request", f"bad request: {str(e)[:300]}")
            return
        task = asyncio.get_running_loop().create_task(self._server_call(msg))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    async def _server_call(self, msg: m.ChatServerCall) -> None:
        from webmcp_sidecar.wire import messages as m

        link = self.servers
        if link is None:
            self._fail(msg.id, "not_found", "Local MCP servers are not available in this host.")
            return
        try:
            if msg.op == "tools":
                tools, problems = await link.tools_for(None)
                for p in problems:
                    log.info("chat site %s: %s", msg.site[:100], p)
                dumped = {
                    name: [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in ts]
                    for name, ts in tools.items()
                }
                self._send(m.ChatServerResult(id=msg.id, ok=True, tools=dumped))
                return
            if not msg.server or not msg.tool:
                self._fail(msg.id, "bad_request", "`server` and `tool` are required for a call.")
                return
            result = await link.manager().call(
                msg.server, msg.tool, msg.args, timeout_s=msg.timeout_ms / 1000
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            self._fail(msg.id, "timeout", f"{msg.server} did not answer in time.")
            return
        except Exception as e:  # ServerError and the like: plain words for the chat's card
            if type(e).__name__ not in ("ServerError", "ServerConfigError"):
                log.exception("chat site server call failed")
            self._fail(msg.id, "page_error", str(e)[:4000] or type(e).__name__)
            return
        from webmcp_sidecar.agent.servers import result_text

        text, is_error = result_text(result)
        if len(text) > MAX_RESULT_CHARS:
            text = text[:MAX_RESULT_CHARS] + f"… ({len(text) - MAX_RESULT_CHARS} more characters cut)"
        if is_error:
            self._fail(msg.id, "page_error", text)
        else:
            self._send(m.ChatServerResult(id=msg.id, ok=True, value=text))

    def _fail(self, call_id: str, code: str, message: str) -> None:
        from webmcp_sidecar.wire import messages as m

        err = m.CallError.model_validate({"code": code, "message": message})
        self._send(m.ChatServerResult(id=call_id, ok=False, error=err))
