"""The per-user local socket between hosts and MCP entries.

Each host listens on its own endpoint in `paths.socket_dir()`: a Unix socket `host-<pid>.sock`
(mode 0600 in a 0700 dir; on Linux the peer's uid is also checked with SO_PEERCRED). Windows has no
usable AF_UNIX in asyncio, so there a host listens on loopback TCP and writes `host-<pid>.tcp` (port
and a random token the entry must present) into the user's private data dir.

Frames on this link: 4-byte little-endian length + UTF-8 JSON (`native.codec`).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from .native.codec import MAX_SOCKET_FRAME, header
from .paths import ensure_private_dir, socket_dir

_HDR = header("little")
USE_UNIX = sys.platform != "win32"

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Endpoint:
    """Where one host listens. `token` is empty for Unix sockets (the file mode guards them)."""

    def __init__(self, path: Path, token: str = "") -> None:
        self.path = path
        self.token = token

    @property
    def pid(self) -> int:
        try:
            return int(self.path.stem.split("-", 1)[1])
        except (IndexError, ValueError):
            return 0


async def serve(handler: Handler) -> tuple[asyncio.AbstractServer, Endpoint]:
    d = ensure_private_dir(socket_dir())
    pid = os.getpid()
    if USE_UNIX:
        path = d / f"host-{pid}.sock"
        path.unlink(missing_ok=True)
        old = os.umask(0o177)  # the socket is born 0600: no window where others could connect
        try:
            server = await asyncio.start_unix_server(
                _guard(handler), path=str(path), limit=MAX_SOCKET_FRAME
            )
        finally:
            os.umask(old)
        path.chmod(0o600)
        return server, Endpoint(path)
    token = secrets.token_urlsafe(24)
    server = await asyncio.start_server(_guard(handler), "127.0.0.1", 0, limit=MAX_SOCKET_FRAME)
    port = server.sockets[0].getsockname()[1]
    path = d / f"host-{pid}.tcp"
    path.write_text(json.dumps({"port": port, "token": token}), encoding="utf-8")
    return server, Endpoint(path, token)


def _guard(handler: Handler) -> Handler:
    async def wrapped(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None and not same_user(sock):
            writer.close()
            return
        await handler(reader, writer)

    return wrapped


def same_user(sock: socket.socket) -> bool:
    """True when the peer runs as this user (checked where the OS tells us)."""
    if sock.family != getattr(socket, "AF_UNIX", None):
        return True  # TCP (Windows): the token decides
    if hasattr(socket, "SO_PEERCRED"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return uid == os.getuid()
    return True  # macOS/BSD: the 0600 socket in a 0700 dir is the guard


def list_endpoints() -> list[Endpoint]:
    d = socket_dir()
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.iterdir()):
        if p.name.startswith("host-") and p.suffix in (".sock", ".tcp"):
            token = ""
            if p.suffix == ".tcp":
                try:
                    token = json.loads(p.read_text(encoding="utf-8"))["token"]
                except (OSError, ValueError, KeyError):
                    continue
            out.append(Endpoint(p, token))
    return out


async def connect(ep: Endpoint) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if ep.path.suffix == ".sock":
        return await asyncio.open_unix_connection(str(ep.path), limit=MAX_SOCKET_FRAME)
    port = json.loads(ep.path.read_text(encoding="utf-8"))["port"]
    return await asyncio.open_connection("127.0.0.1", port, limit=MAX_SOCKET_FRAME)


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


async def read_frame(reader: asyncio.StreamReader) -> bytes | None:
    """One frame's payload, or None at EOF. A length over the cap closes the link."""
    try:
        (n,) = _HDR.unpack(await reader.readexactly(4))
        if n > MAX_SOCKET_FRAME:
            raise ConnectionError(f"frame of {n} bytes exceeds the socket limit")
        return await reader.readexactly(n)
    except (asyncio.IncompleteReadError, ConnectionResetError):
        return None


def frame(payload: bytes) -> bytes:
    return _HDR.pack(len(payload)) + payload


def header_of(payload: bytes) -> bytes:
    return _HDR.pack(len(payload))
