"""The MCP entry's side of the local socket: one link per live host, merged into one view.

The pool finds hosts by their endpoint files in the socket dir (a cheap directory scan, twice a
second; never on the call path), keeps one connection to each, and merges their registries: a
site seen by several hosts (profiles, browsers) is served by the one that reported it last.
A socket dir that is not ours alone is never used (`problem` says why); a host run by another user
is never sent a byte (`localsock.connect` checks its uid first).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from webmcp_sidecar.mcp_server.entry_link import ENTRY_LINK_ENV, EntryLink
from webmcp_sidecar.wire import localsock
from webmcp_sidecar.wire import messages as m
from webmcp_sidecar.wire.codec import FrameError, dumps, parse_payload
from webmcp_sidecar.wire.constants import (
    CALL_ID_SEP,
    DEFAULT_MAX_BYTES,
    ENTRY_MISMATCH,
    PROTOCOL_VERSION,
)
from webmcp_sidecar.wire.messages import loggable
from webmcp_sidecar.wire.pending import PendingRequests

log = logging.getLogger(__name__)
# What the browser cut of a site (tools over its limits, http tabs ignored), once per change:
# the user's only hint outside the browser that a site's tool list is not whole. `serve_stdio`
# also sends these to stderr, which MCP clients show in their logs.
notice_log = logging.getLogger(__name__ + ".notices")

SCAN_INTERVAL = 0.5


class HostGone(Exception):
    """The host closed the link while a call was in flight."""


class HostLink:
    def __init__(self, endpoint: localsock.Endpoint, pool: HostPool) -> None:
        self.endpoint = endpoint
        self.pool = pool
        self.welcome: m.Welcome | None = None
        self.sites: dict[str, list[m.Tool]] = {}
        self.notices: dict[str, str] = {}  # site -> the browser's notice, as last logged
        self.extension_connected = False
        # This entry's MCP session's tabs in that browser (its `session_tabs` messages).
        self.session_tabs: m.SessionTabs | None = None
        # The host speaks another protocol: it refuses our calls; this says why, in plain words.
        self.mismatch: str | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: PendingRequests[dict[str, Any]] = PendingRequests()
        self.closed = asyncio.Event()
        # The browser's own link to this entry, for site calls (entry_link.py), once offered.
        self.direct: EntryLink | None = None
        self._direct_start: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        w = self.welcome
        return f"{w.browser or 'browser'} (host {w.pid})" if w else str(self.endpoint.path)

    async def open(self) -> None:
        reader, writer = await localsock.connect(self.endpoint)
        self._writer = writer
        hello = m.EntryHello(client=self.pool.client_name, pid=os.getpid(), token=self.endpoint.token,
                             protocol=PROTOCOL_VERSION)
        writer.write(localsock.frame(dumps(hello.model_dump())))
        payload = await asyncio.wait_for(localsock.read_frame(reader), timeout=5)
        if payload is None:
            raise ConnectionError("host closed the link during the handshake")
        self.welcome = m.Welcome.model_validate(parse_payload(payload))
        if self.welcome.protocol != PROTOCOL_VERSION:
            self.mismatch = ENTRY_MISMATCH.format(entry=PROTOCOL_VERSION, host=self.welcome.protocol)
            log.warning("host %s: %s", self.welcome.pid, self.mismatch)
            self.welcome.sites, self.welcome.notices = {}, {}
            self.welcome.extension_connected = False
        self.sites = dict(self.welcome.sites)
        self._set_notices(self.welcome.notices)
        self.extension_connected = self.welcome.extension_connected
        self._reader = reader

    def _start_direct(self) -> None:
        """Offers the browser a link of its own to this entry (in the background: calls take
        the host until it is open)."""
        origin = self.welcome.extension_origin if self.welcome else ""
        if self.closed.is_set() or self.mismatch or not origin or os.environ.get(ENTRY_LINK_ENV, "1") == "0":
            return
        self.direct = EntryLink(origin, self.notify, self._pending.resolve)
        self._direct_start = asyncio.get_running_loop().create_task(self.direct.start())

    async def pump(self) -> None:
        self._start_direct()
        try:
            while (payload := await localsock.read_frame(self._reader)) is not None:
                try:
                    self._on_message(parse_payload(payload))
                except (FrameError, ValidationError) as e:
                    log.warning("bad frame from host %s dropped: %s", self.name, e)
        except ConnectionError as e:
            log.info("link to %s lost: %s", self.name, e)
        finally:
            self._close()

    def _on_message(self, raw: dict[str, Any]) -> None:
        if raw.get("type") == "result":
            call_id = str(raw.get("id"))
            if self.direct is not None:  # a call its link's drop left adrift
                raw = self.direct.landed(call_id, raw)
            self._pending.resolve(call_id, raw)
            return
        msg = m.host_to_entry.validate_python(raw)
        if isinstance(msg, m.SiteTools):
            if msg.tools:
                self.sites[msg.site] = msg.tools
            else:
                self.sites.pop(msg.site, None)
            self._set_notice(msg.site, msg.notice)
            self.pool.touch(self, [msg.site])
        elif isinstance(msg, m.Registry):
            self.sites = {site: tools for site, tools in msg.sites.items() if tools}
            self._set_notices(msg.notices)
            self.pool.touch(self, list(msg.sites))
        elif isinstance(msg, m.Status):
            self.extension_connected = msg.extension_connected
            if self.welcome:
                self.welcome.browser = msg.browser or self.welcome.browser
                if msg.extension_origin and not self.welcome.extension_origin:
                    # A Firefox host learns its origin from the hello: this entry came before.
                    self.welcome.extension_origin = msg.extension_origin
                    if self.direct is None:
                        self._start_direct()
            self.pool.touch(self, [])
        elif isinstance(msg, m.SessionTabs):
            self.session_tabs = msg
            self.pool.on_change()

    def _set_notices(self, notices: dict[str, str]) -> None:
        for site in set(self.notices) | set(notices):
            self._set_notice(site, notices.get(site))

    def _set_notice(self, site: str, notice: str | None) -> None:
        if not notice:
            self.notices.pop(site, None)
        elif self.notices.get(site) != notice:
            self.notices[site] = notice
            notice_log.warning("%s: %s", loggable(site), loggable(notice, 1000))

    def _close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        self._pending.fail_all(HostGone)
        if self._direct_start is not None:
            self._direct_start.cancel()
        if self.direct is not None:
            self.direct.stop()
        if self._writer is not None:
            self._writer.close()

    def close(self) -> None:
        self._close()

    def _send(self, message: dict[str, Any]) -> None:
        self._send_payload(dumps(message))

    def _send_payload(self, payload: bytes) -> None:
        if self._writer is None or self.closed.is_set():
            raise HostGone()
        self._writer.write(localsock.frame(payload))

    def notify(self, message: dict[str, Any]) -> None:
        """Send a message that gets no answer (e.g. `session_info`); a closed link drops it."""
        with contextlib.suppress(HostGone):
            self._send(message)

    async def request(self, message: dict[str, Any]) -> m.Result:
        """Send a call/open_url (its id is filled in here) and wait for the result.

        Cancelling the waiting task (MCP cancellation, our timeout) tells the page to stop.
        """
        assert self.welcome is not None
        call_id = message["id"] = self._pending.open(prefix=self.welcome.conn + CALL_ID_SEP)
        payload = dumps(message)
        direct = self.direct if message.get("type") == "call" else None
        try:
            # A site call takes the browser's link to this entry while it is open.
            max_bytes = message.get("max_bytes")
            cap = max_bytes if type(max_bytes) is int and max_bytes > 0 else DEFAULT_MAX_BYTES
            if direct is None or not direct.send_call(call_id, payload, cap):
                self._send_payload(payload)
        except HostGone:
            self._pending.discard(call_id)
            raise
        try:
            raw = await self._pending.wait(call_id)
        except asyncio.CancelledError:
            if direct is None or not direct.send_cancel(call_id):
                with contextlib.suppress(HostGone):
                    self._send({"type": "cancel", "id": call_id})
            raise
        finally:
            if direct is not None:
                direct.done(call_id)
        return m.Result.model_validate(raw)


@dataclass
class SiteEntry:
    tools: list[m.Tool]
    link: HostLink


class HostPool:
    """All live hosts, and the merged site registry that the MCP server shows."""

    def __init__(self, client_name: str = "", on_change: Callable[[], None] | None = None) -> None:
        self.client_name = client_name
        self.links: dict[str, HostLink] = {}  # endpoint path -> link
        self.on_change = on_change or (lambda: None)
        self._recency = itertools.count(1)
        self._seen: dict[tuple[str, str], int] = {}  # (endpoint, site) -> when last reported
        self.first_scan = asyncio.Event()
        self._failed: dict[str, int] = {}
        # Why no host can be reached at all (the socket dir was refused), in plain words.
        self.dir_problem: str | None = None

    @property
    def problem(self) -> str | None:
        """Why no browser can be reached, in plain words: the socket dir, or hosts of another
        protocol (they refuse our calls)."""
        found = [self.dir_problem, *(link.mismatch for link in self.links.values())]
        return "\n\n".join(dict.fromkeys(p for p in found if p)) or None

    def touch(self, link: HostLink, sites: list[str]) -> None:
        key = str(link.endpoint.path)
        for site in sites:
            self._seen[(key, site)] = next(self._recency)
        self.on_change()

    def merged(self) -> dict[str, SiteEntry]:
        out: dict[str, SiteEntry] = {}
        best: dict[str, int] = {}
        for key, link in self.links.items():
            for site, tools in link.sites.items():
                rank = self._seen.get((key, site), 0)
                if site not in best or rank > best[site]:
                    best[site] = rank
                    out[site] = SiteEntry(tools, link)
        return out

    def connected_browsers(self) -> list[HostLink]:
        return [link for link in self.links.values() if link.extension_connected]

    async def run(self) -> None:
        """Discover hosts forever (cancel to stop)."""
        async with asyncio.TaskGroup() as tg:
            while True:
                await self.scan(tg)
                self.first_scan.set()
                await asyncio.sleep(SCAN_INTERVAL)

    async def scan(self, tg: asyncio.TaskGroup) -> None:
        endpoints, problem = localsock.scan()
        if problem != self.dir_problem:
            if problem:
                log.warning("%s", problem)
            self.dir_problem = problem
            self.on_change()
        found = {str(ep.path): ep for ep in endpoints}
        new = [ep for key, ep in found.items() if key not in self.links]
        if new:
            await asyncio.gather(*(self._connect(ep, tg) for ep in new))

    async def _connect(self, ep: localsock.Endpoint, tg: asyncio.TaskGroup) -> None:
        key = str(ep.path)
        link = HostLink(ep, self)
        try:
            await link.open()
        except (OSError, ConnectionError, TimeoutError, ValidationError, FrameError) as e:
            link.close()
            if isinstance(e, PermissionError):
                n = self._failed[key] = self._failed.get(key, 0) + 1
                if n == 1:
                    log.warning("host endpoint %s refused: %s", key, e)
            elif not localsock.pid_alive(ep.pid):
                # A host that died without cleaning up (killed): its endpoint is stale.
                with contextlib.suppress(OSError):
                    ep.path.unlink()
            else:
                n = self._failed[key] = self._failed.get(key, 0) + 1
                if n == 1:
                    log.info("host endpoint %s not reachable yet: %s", key, e)
            return
        self._failed.pop(key, None)
        self.links[key] = link
        log.info("connected to %s", link.name)
        self.touch(link, list(link.sites))
        tg.create_task(self._watch(key, link))

    async def _watch(self, key: str, link: HostLink) -> None:
        await link.pump()
        if self.links.get(key) is link:
            del self.links[key]
        log.info("host %s went away", link.name)
        self.on_change()

    def close(self) -> None:
        for link in self.links.values():
            link.close()
