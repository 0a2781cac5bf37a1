"""A server's own log: `<log dir>/servers/<name>.log` (0600 in a 0700 dir), capped and rotated.

The server's stderr reaches it through a pipe a thread reads (a file handed to the server could
not be capped: a chatty server would fill the disk). The guard's first line (its pid and the
server's) is taken out here, not logged. The last lines are kept for plain error messages.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from pathlib import Path
from typing import IO, TextIO, cast

from webmcp_sidecar import paths
from webmcp_sidecar.servers.guard import MARK

MAX_BYTES = 1 << 20  # then <name>.log becomes <name>.log.1 (one kept)
TAIL_LINES = 8
_MAX_LINE = 4000


class ServerLog:
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self.guard_pid: int | None = None
        self.server_pid: int | None = None
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = None
        self._pid_seen = threading.Event()
        self._eof = threading.Event()

    # --- writing -------------------------------------------------------------------------------

    def _open(self) -> IO[bytes]:
        if self._file is None:
            paths.ensure_private_dir(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self._file = os.fdopen(fd, "ab", buffering=0)
        return self._file

    def _write(self, data: bytes) -> None:
        with self._lock:
            try:
                f = self._open()
                if f.tell() + len(data) > self.max_bytes:
                    f.close()
                    self._file = None
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                    f = self._open()
                f.write(data)
            except OSError:
                pass  # a log that cannot be written never stops the server

    def note(self, text: str) -> None:
        """A line of ours (start, stop, errors), marked as such."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        self._write(f"--- {stamp} {text}\n".encode(errors="replace"))

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                with contextlib.suppress(OSError):
                    self._file.close()
                self._file = None

    # --- the server's stderr -------------------------------------------------------------------

    def pipe(self) -> TextIO:
        """The write end to give the server as its stderr (close it once the server started)."""
        r, w = os.pipe()
        self.guard_pid = self.server_pid = None
        self._pid_seen.clear()
        self._eof.clear()
        self.tail.clear()
        threading.Thread(target=self._pump, args=(r,), name=f"stderr:{self.path.stem}", daemon=True).start()
        return cast(TextIO, os.fdopen(w, "w"))

    def wait_pids(self, timeout: float) -> None:
        self._pid_seen.wait(timeout)

    def wait_eof(self, timeout: float) -> None:
        """Until everyone holding the stderr pipe has gone (so `tail` is complete)."""
        self._eof.wait(timeout)

    def _pump(self, fd: int) -> None:
        buf = b""
        with os.fdopen(fd, "rb", buffering=0) as f:
            while chunk := f.read(65536):
                buf += chunk
                *lines, buf = buf.split(b"\n")
                if len(buf) > _MAX_LINE:
                    lines.append(buf)
                    buf = b""
                for line in lines:
                    if self.guard_pid is None and line.startswith(MARK.encode()):
                        self._take_pids(line)  # the server may have written before it
                        continue
                    self._write(line + b"\n")
                    text = line.decode(errors="replace").strip()
                    if text:
                        self.tail.append(text[:500])
        if buf:
            self._write(buf + b"\n")
            self.tail.append(buf.decode(errors="replace").strip()[:500])
        self._pid_seen.set()
        self._eof.set()

    def _take_pids(self, line: bytes) -> None:
        try:
            _, guard, server = line.decode().split()
            self.guard_pid, self.server_pid = int(guard), int(server)
        except ValueError:
            pass
        self._pid_seen.set()
