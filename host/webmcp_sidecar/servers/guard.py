"""The guard every stdio server runs under: `guard PARENT_PID -- COMMAND ARGS...`.

The SDK's stdio transport starts it in a new session (so it leads the server's process group)
and stops the group itself when it closes the server. What the SDK cannot do is outlive its own
process: if the host is SIGKILLed, nothing would stop the server; nor can it reach what the
server started in a session of its own (`setsid`, a daemon's double fork), which leaves the group.
So the guard
- asks Linux for SIGTERM when its parent dies (PR_SET_PDEATHSIG), and on other systems watches
  its parent id;
- on Linux is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the server starts stays its
  descendant by parent chain even when the process between them exits (a daemon's orphan is
  re-parented to the guard, not to init), so the whole tree is found in /proc;
- forks and execs the server (inheriting stdin, stdout, stderr; it keeps none of them, so the
  server's pipes end with the server);
- when told to stop, or when the server exits, stops the whole tree, group and escaped
  descendants alike: SIGTERM, then SIGKILL after a grace period shorter than the SDK's own
  (so the SDK's SIGKILL of the group never cuts the guard short), and exits with the server's
  status;
- says first on stderr, in one line the host's log reader takes out, its pid and the server's.
(No cgroup: a new one needs a delegated cgroup tree, which a desktop session may not give; the
subreaper works for any user.)

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
GRACE_S = 1.5  # < the SDK's FORCE_KILL_TIMEOUT (2 s), after which it SIGKILLs our group
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


class _Stop(Exception):
    pass


def _on_signal(signum: int, frame: object) -> None:
    raise _Stop


def _prctl(option: int, arg: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, arg, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Live processes below `root` by parent chain, from /proc (Linux; [] elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        # `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so split after the last `)`.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or fields[0] in (b"Z", b"X"):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            out.append(pid)
            todo.append(pid)
    return out


def _watch_parent(parent: int) -> None:
    """Where there is no PDEATHSIG: poll the parent id; re-parenting means the host died."""
    while os.getppid() == parent:
        time.sleep(0.5)
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signal.SIGTERM)


def _signal_tree(sig: int) -> None:
    """`sig` to our process group (ourselves excepted: we ignore it, or it is not SIGKILL) and to
    every descendant (those that left the group too)."""
    if sig != signal.SIGKILL:
        with contextlib.suppress(OSError):
            os.killpg(0, sig)
    for pid in descendants(os.getpid()):
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _reap(child: int, status: list[int]) -> None:
    """Reap every finished child (a subreaper adopts orphans); the server's status into `status`."""
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return
        if pid == child:
            status.append(st)


def _stop_tree(child: int, status: list[int], keep_self: bool = False) -> None:
    """SIGTERM the tree (ourselves excepted), wait out the grace period, then SIGKILL what is left
    (the whole group, ourselves included, unless `keep_self`: the server exited by itself and we
    are to exit with its status)."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    _signal_tree(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        _reap(child, status)
        if not descendants(os.getpid()):
            break
        time.sleep(0.02)
    for _ in range(3):  # one forking meanwhile is found on the next look
        if not descendants(os.getpid()):
            break
        _signal_tree(signal.SIGKILL)
        _reap(child, status)
    if not keep_self:
        with contextlib.suppress(OSError):
            os.killpg(0, signal.SIGKILL)  # ourselves too: nothing is left to do


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: guard PARENT_PID -- COMMAND ARGS...\n")
        return 2
    parent, command = int(argv[0]), argv[2:]
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _on_signal)
    pdeath = _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
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
    status: list[int] = []
    try:
        os.write(2, f"{MARK} {os.getpid()} {child}\n".encode())
        for fd in (0, 1):  # the server's pipes must end with the server
            with contextlib.suppress(OSError):
                os.close(fd)
        while not status:  # orphans the server left are adopted (subreaper): reap them too
            try:
                pid, st = os.waitpid(-1, 0)
            except ChildProcessError:
                return 1
            if pid == child:
                status.append(st)
    except _Stop:
        _stop_tree(child, status)
        return 143
    # The server is gone; what it started (in the group or not) goes too, but not ourselves.
    try:
        _stop_tree(child, status, keep_self=True)
    except _Stop:  # told to stop before we could ignore it: the same, ourselves included
        _stop_tree(child, status)
        return 143
    code = os.waitstatus_to_exitcode(status[0])
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
