"""The per-user local socket between hosts and MCP entries.

Each host listens on its own endpoint in `paths.socket_dir()`: a Unix socket `host-<pid>.sock`
(mode 0600 in a 0700 dir). Both sides lstat the dir first and refuse one that is a symlink, another
user's, or open to others; both sides check the peer's uid (SO_PEERCRED on Linux, LOCAL_PEERCRED on
macOS/BSD), the entry before it sends anything. Windows has no usable AF_UNIX in asyncio, so there a
host listens on loopback TCP and writes `host-<pid>.tcp` (port and a random token the entry must
present in its first frame) into the user's private data dir.

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

from webmcp_sidecar.paths import (
    MAX_SOCKET_PATH,
    PrivateDirError,
    check_private_dir,
    ensure_socket_dir,
    socket_dir,
)
from webmcp_sidecar.wire.codec import header
from webmcp_sidecar.wire.constants import MAX_SOCKET_FRAME

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
    """Listen for MCP entries. PrivateDirError (a plain message) when the socket dir is unsafe."""
    d = ensure_socket_dir()
    pid = os.getpid()
    if USE_UNIX:
        path = d / f"host-{pid}.sock"
        if len(os.fsencode(path)) > MAX_SOCKET_PATH:
            raise PrivateDirError(
                f"The socket path {path} is longer than this system allows for a local socket "
                f"({MAX_SOCKET_PATH} bytes), so MCP clients cannot reach this browser. A shorter "
                "home folder path fixes it."
            )
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
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps({"port": port, "token": token}))
    return server, Endpoint(path, token)


def _guard(handler: Handler) -> Handler:
    async def wrapped(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None and not same_user(sock):
            writer.close()
            return
        await handler(reader, writer)

    return wrapped


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket; None where the OS won't say."""
    if sock.family != getattr(socket, "AF_UNIX", None):
        return None
    if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return struct.unpack("3i", creds)[1]
    if sys.platform == "darwin" or "bsd" in sys.platform:
        # getpeereid(): LOCAL_PEERCRED (level SOL_LOCAL 0, option 1) gives struct xucred
        # {u_int cr_version; uid_t cr_uid; ...}.
        try:
            raw = sock.getsockopt(0, 1, 128)
            return struct.unpack_from("=II", raw)[1]
        except (OSError, struct.error):
            return None
    return None


def same_user(sock: socket.socket) -> bool:
    """False when the peer of a Unix socket runs as another user. TCP (Windows): the token
    decides; elsewhere an OS that won't say leaves it to the 0600 socket in a 0700 dir."""
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()


def scan() -> tuple[list[Endpoint], str | None]:
    """The hosts' endpoints, and why there are none when the socket dir is refused.

    No dir yet (no host has run) is not a problem: ([], None).
    """
    d = socket_dir()
    try:
        check_private_dir(d)
    except PrivateDirError as e:
        return [], str(e)
    except OSError:
        return [], None
    out = []
    for p in sorted(d.iterdir()):
        if p.name.startswith("host-") and p.suffix in (".sock", ".tcp"):
            token = ""
            if p.suffix == ".tcp":
                try:
                    token = json.loads(p.read_text(encoding="utf-8"))["token"]
                except (OSError, ValueError, KeyError, TypeError):
                    continue
            out.append(Endpoint(p, token))
    return out, None


def list_endpoints() -> list[Endpoint]:
    return scan()[0]


async def connect(ep: Endpoint) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open the link to a host; PermissionError, before a byte is sent, if another user runs it."""
    if ep.path.suffix == ".sock":
        reader, writer = await asyncio.open_unix_connection(str(ep.path), limit=MAX_SOCKET_FRAME)
        sock = writer.get_extra_info("socket")
        if sock is not None and not same_user(sock):
            writer.close()
            raise PermissionError(
                f"the process listening on {ep.path} runs as another user (uid {peer_uid(sock)}); "
                "WebMCP Sidecar does not talk to it"
            )
        return reader, writer
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
