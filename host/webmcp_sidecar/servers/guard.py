"""The guard every stdio server runs under: `guard PARENT_PID -- COMMAND ARGS...`.

The SDK's stdio transport starts it in a new session (so it leads the server's process group)
and stops the group itself when it closes the server. What the SDK cannot do is outlive its own
process: if the host is SIGKILLed, nothing would stop the server. So the guard
- asks Linux for SIGTERM when its parent dies (PR_SET_PDEATHSIG), and on other systems watches
  its parent id, then stops the whole group: SIGTERM, then SIGKILL after a grace period;
- forks and execs the server (inheriting stdin, stdout, stderr; it keeps none of them, so the
  server's pipes end with the server), and when the server exits, SIGTERMs what the server left
  in the group and exits with its status;
- says first on stderr, in one line the host's log reader takes out, its pid and the server's.

It imports only the standard library: it runs once per server start. Nothing here raises out:
a failure to exec is reported on stderr and exit status 127, like a shell does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

MARK = "\x1ewebmcp-sidecar-guard"
GRACE_S = 2.0
_PR_SET_PDEATHSIG = 1


class _Stop(Exception):
    pass


def _on_signal(signum: int, frame: object) -> None:
    raise _Stop


def _parent_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """Where there is no PDEATHSIG: poll the parent id; re-parenting means the host died."""
    while os.getppid() == parent:
        time.sleep(0.5)
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signal.SIGTERM)


def _stop_group(child: int) -> None:
    """SIGTERM the group (ourselves excepted), wait out the grace period, then SIGKILL it all."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.killpg(0, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            break
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        os.killpg(0, signal.SIGKILL)  # ourselves included: nothing is left to do


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: guard PARENT_PID -- COMMAND ARGS...\n")
        return 2
    parent, command = int(argv[0]), argv[2:]
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    pdeath = _parent_death_signal()
    if os.getppid() != parent:  # the parent died before we could ask to be told
        return 1
    if not pdeath:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    sys.stderr.flush()
    child = os.fork()
    if child == 0:
        try:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            os.execvp(command[0], command)
        except OSError as e:
            os.write(2, f"cannot start {command[0]!r}: {e.strerror or e}\n".encode(errors="replace"))
        finally:
            os._exit(127)
    try:
        os.write(2, f"{MARK} {os.getpid()} {child}\n".encode())
        for fd in (0, 1):  # the server's pipes must end with the server
            with contextlib.suppress(OSError):
                os.close(fd)
        while True:
            try:
                _, status = os.waitpid(child, 0)
                break
            except ChildProcessError:
                return 1
    except _Stop:
        _stop_group(child)
        return 143
    # The server is gone; what it started in the group goes too.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.killpg(0, signal.SIGTERM)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
