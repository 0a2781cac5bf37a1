"""The host's link to the browser: the native port (frames out, split when too long for native
messaging; a long message's chunks joined on the way in), the handshake (`ping`, `hello`: the
protocol check, the extension's origin when Firefox started us), and the mirror of the browser's
sites, which the entries are sent on every change.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from webmcp_sidecar.native_host import first_answer
from webmcp_sidecar.native_host.stdio import FrameWriter
from webmcp_sidecar.wire.codec import MAX_TO_BROWSER, FrameError, Reassembler, dumps, split_message
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION, VERSION_MISMATCH

if TYPE_CHECKING:
    # pydantic and the models load with the first message that needs one, not at host start
    # (issue 14): the functions that use them import them.
    from webmcp_sidecar.wire import messages as m

log = logging.getLogger("webmcp_sidecar.native_host.app")  # the logger these lines always had


class BrowserLink:
    def __init__(
        self,
        origin: str,
        to_browser: FrameWriter,
        *,
        origin_from_hello: bool = False,
        on_frame: Callable[[bytes], None],
        on_hello: Callable[[], None],
        on_sites: Callable[[bytes], None],
    ) -> None:
        """origin_from_hello: Firefox started us, the origin comes with the first hello
        (launch.py); on_frame: a message joined from its chunks, to be routed as a frame;
        on_hello: the extension said hello; on_sites: the mirror changed (the message to pass on)."""
        self.origin = origin
        self.origin_from_hello = origin_from_hello
        self.to_browser = to_browser
        self.extension_version: str | None = None
        self.browser = ""
        # The extension speaks another protocol: what to say instead of serving it.
        self.mismatch: str | None = None
        self.sites: dict[str, list[m.Tool]] = {}
        self.notices: dict[str, str] = {}  # site -> what the extension cut of it
        self._on_frame = on_frame
        self._on_hello = on_hello
        self._on_sites = on_sites
        self._chunk_ids = itertools.count(1)
        self._chunks = Reassembler()

    @property
    def extension_connected(self) -> bool:
        return self.extension_version is not None

    def send(self, payload: bytes) -> None:
        if len(payload) + 4 <= MAX_TO_BROWSER:
            self.to_browser.write(payload)
            return
        cid = f"h{next(self._chunk_ids)}"
        for piece in split_message(payload.decode(), cid, MAX_TO_BROWSER - 4):
            self.to_browser.write(piece)

    def on_chunk(self, raw: dict[str, Any], payload: bytes) -> None:
        """A piece of a long message, mostly a long result (the worker sends one over 64 Ki
        characters in ~80 pieces a 5 MiB): checked by hand rather than by the model. Speed only
        (bench.large, "Large result": 80 model validations a 5 MiB result): drop it when those
        cost under 1 ms. The whole message then goes through `on_frame`, so a result is routed
        by its head."""
        cid, seq, last, data = raw.get("cid"), raw.get("seq"), raw.get("last"), raw.get("data")
        if not (
            isinstance(cid, str)
            and cid
            and type(seq) is int
            and isinstance(last, bool)
            and isinstance(data, str)
        ):
            raise FrameError(f"malformed chunk {str(seq)[:20]} of {str(cid)[:80]!r}")
        text = self._chunks.add(cid, seq, last, data)
        if text is not None:
            self._on_frame(text.encode())

    def on_ping(self, raw: dict[str, Any], payload: bytes) -> None:
        ping_id = first_answer.plain_ping(raw)
        if ping_id is None:
            from webmcp_sidecar.wire import messages as m

            ping_id = m.Ping.model_validate(raw).id
        self.send(dumps(first_answer.pong(ping_id)))

    def on_hello(self, raw: dict[str, Any], payload: bytes) -> None:
        hello = first_answer.plain_hello(raw)
        if hello is None:
            from webmcp_sidecar.wire import messages as m

            msg = m.Hello.model_validate(raw)
            hello = (msg.extension_version, msg.browser, msg.protocol, msg.origin)
        extension_version, browser, protocol, origin = hello
        self.send(dumps(first_answer.host_hello()))
        if self.origin_from_hello and not self.origin:
            from webmcp_sidecar.native_host.launch import moz_origin

            self.origin = moz_origin(origin)
        if protocol != PROTOCOL_VERSION:
            self.mismatch = VERSION_MISMATCH.format(extension=protocol, host=PROTOCOL_VERSION)
            log.error("extension %s refused: %s", extension_version[:50], self.mismatch)
            self.extension_version = None
            self.sites, self.notices = {}, {}
        else:
            self.mismatch = None
            self.extension_version = extension_version
            self.browser = browser
            log.info("extension %s connected (%s)", extension_version, browser)
        self._on_hello()

    def on_site_tools(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.SiteTools.model_validate(raw)
        known = msg.site in self.sites or msg.site in self.notices
        if not msg.tools and not msg.notice and not known:
            return  # a site nobody has went away (e.g. its only tool was dropped)
        if msg.tools:
            self.sites[msg.site] = msg.tools
        else:
            self.sites.pop(msg.site, None)
        if msg.notice:
            self.notices[msg.site] = msg.notice
        else:
            self.notices.pop(msg.site, None)
        self._on_sites(payload if _kept_all(raw, msg) else _encode(msg))

    def on_registry(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.Registry.model_validate(raw)
        self.sites = {site: tools for site, tools in msg.sites.items() if tools}
        self.notices = dict(msg.notices)
        self._on_sites(payload if _kept_all(raw, msg) else _encode(msg))

    def on_log(self, raw: dict[str, Any], payload: bytes) -> None:
        from webmcp_sidecar.wire import messages as m

        msg = m.Log.model_validate(raw)
        log.log(logging.getLevelName(msg.level.upper()), "extension: %s", msg.message[:2000])

    def status(self) -> m.Status:
        from webmcp_sidecar.wire import messages as m

        return m.Status(
            extension_connected=self.extension_connected,
            extension_version=self.extension_version,
            browser=self.browser,
            extension_origin=self.origin,
        )


def _kept_all(raw: dict[str, Any], msg: m.SiteTools | m.Registry) -> bool:
    """Whether the model kept every tool the message carried (then its bytes go on as they are;
    else the entries get the cleaned message, never the tools the host dropped). Speed only
    (bench.scale, "Scale": a registry of 50 sites x 20 tools re-dumped on every change): drop it
    when dumping such a registry costs under 1 ms."""
    if msg.type == "site_tools":
        return len(msg.tools) == len(raw.get("tools") or ())
    sites = raw.get("sites") or {}
    return len(msg.sites) == len(sites) and all(
        len(tools) == len(sites.get(site) or ()) for site, tools in msg.sites.items()
    )


def _encode(msg: m.SiteTools | m.Registry) -> bytes:
    if msg.type == "registry":
        msg = msg.model_copy(update={"sites": {s: t for s, t in msg.sites.items() if t}})
    return dumps(msg.model_dump(exclude_none=True))
