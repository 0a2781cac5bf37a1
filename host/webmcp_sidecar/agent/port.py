"""What the side panel's agent needs of the native host, as a protocol: the agent depends on
this, the host (`native_host/app.py`) implements it, and `cli.py` puts the two together, so
neither package imports the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from webmcp_sidecar.wire.messages import Tool

# A handler for browser messages of one type that the host hands to the agent: gets the decoded
# message and its frame bytes.
Handler = Callable[[dict[str, Any], bytes], None]


@runtime_checkable
class HostPort(Protocol):
    @property
    def sites(self) -> Mapping[str, list[Tool]]:
        """The mirror of the browser's registry: site -> its tools."""
        ...

    @property
    def extension_connected(self) -> bool: ...

    def send_to_browser(self, payload: bytes) -> None: ...

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """A call into the browser (`call`, `browser_call`; the id is filled in) and its
        `result`; cancelling the wait cancels the page's work."""
        ...
