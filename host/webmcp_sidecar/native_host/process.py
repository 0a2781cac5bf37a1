"""The host process: started by Chrome (`connectNative`), it serves the browser on stdio and MCP
entries on the local socket until the browser closes stdin, or a signal stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterable

from webmcp_sidecar import __version__
from webmcp_sidecar.native_host.app import Host
from webmcp_sidecar.native_host.launch import Launch
from webmcp_sidecar.native_host.plugins import Closer, Plugin
from webmcp_sidecar.native_host.stdio import FrameReader, open_stdio
from webmcp_sidecar.wire import localsock

log = logging.getLogger(__name__)

# The parts composed into the host at start (host_parts.py): made once the Host exists, each
# routed its message types (`Host.add`); a part's `aclose`, if it has one, is awaited when the
# host exits (local MCP servers stop with the host).
Compose = Callable[[Host], Iterable[Plugin]]
CLOSE_WITHIN_S = 20.0


async def run(launch: Launch | str, compose: Compose | None = None) -> int:
    """Serve until the browser closes our stdin. `launch`: how the browser started us (a bare
    string is Chrome's origin)."""
    if isinstance(launch, str):
        launch = Launch(origin=launch)
    reader, writer = await open_stdio()
    host = Host(launch.origin, writer, origin_from_hello=launch.origin_from_hello)
    closers: list[Closer] = []
    for plugin in compose(host) if compose is not None else ():
        host.add(plugin)
        if (close := getattr(plugin, "aclose", None)) is not None:
            closers.append(close)
    server: asyncio.AbstractServer | None = None
    endpoint: localsock.Endpoint | None = None
    try:
        server, endpoint = await localsock.serve(host.entries.serve)
    except OSError as e:
        # The browser side (extension, side panel) still works; MCP clients cannot reach it.
        log.error("MCP clients cannot reach this browser: %s", e)
    else:
        host.entries.token = endpoint.token
        log.info(
            "host %s (v%s) for %s listening on %s", os.getpid(), __version__, launch.describe(),
            endpoint.path,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)

    async def pump() -> None:
        # However the pump ends, the process must too: Chrome then sees the port close and the
        # worker reconnects (a host alive without its pump would take calls it never answers).
        try:
            await pump_browser(reader, host)
        except Exception:
            log.exception("reading from the browser failed")
        finally:
            stop.set()

    task = asyncio.create_task(pump())
    try:
        await stop.wait()
    finally:
        task.cancel()
        if server is not None and endpoint is not None:
            server.close()
            endpoint.path.unlink(missing_ok=True)
        for conn in list(host.entries.conns.values()):
            conn.writer.close()
        for close in closers:
            try:
                await asyncio.wait_for(close(), CLOSE_WITHIN_S)
            except Exception:
                log.exception("a part of the host failed to close")
    return 0


async def pump_browser(reader: FrameReader, host: Host) -> None:
    """Feed the browser's frames to `host` until stdin closes; a bad frame is skipped there."""
    while (payload := await reader.read()) is not None:
        host.on_browser_frame(payload)
    log.info("stdin closed: the browser disconnected")


def main(launch: Launch, compose: Compose | None = None) -> int:
    from webmcp_sidecar import logs

    logs.setup("host")
    if not launch.origin.startswith("chrome-extension://") and not launch.addon_id:
        print(
            "webmcp-sidecar host is started by the browser (it speaks native messaging on "
            "stdin/stdout). To check the setup, run: webmcp-sidecar doctor",
            file=sys.stderr,
        )
    try:
        return asyncio.run(run(launch, compose))
    except Exception:
        log.exception("host crashed")
        return 1
