"""A real Secret Service for tests: a private D-Bus session bus and gnome-keyring-daemon with a
fresh HOME, its login keyring unlocked with a password given on stdin.

`env` holds what a process needs to use it (DBUS_SESSION_BUS_ADDRESS, HOME, XDG dirs): pass it to
the CLI, or to the browser so the host it starts uses this keyring.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def available() -> str | None:
    """None when the tools are there, else what is missing (scripts/setup.sh installs them)."""
    for tool in ("dbus-daemon", "gnome-keyring-daemon"):
        if shutil.which(tool) is None:
            return tool
    return None


@contextlib.contextmanager
def secret_service(root: Path) -> Iterator[dict[str, str]]:
    missing = available()
    if missing:
        raise RuntimeError(f"{missing} is not installed: run ./scripts/setup.sh (apt: gnome-keyring, dbus)")
    home = root / "home"
    runtime = root / "run"
    for d in (home, runtime):
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o700)
    base = {**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache")}
    base.pop("PYTHON_KEYRING_BACKEND", None)
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
         f"--address=unix:path={runtime}/bus"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=base,
    )
    procs: list[subprocess.Popen[str]] = [bus]
    try:
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()
        if not address:
            raise RuntimeError("dbus-daemon did not start")
        env = {"DBUS_SESSION_BUS_ADDRESS": address, "HOME": base["HOME"],
               "XDG_RUNTIME_DIR": base["XDG_RUNTIME_DIR"], "XDG_DATA_HOME": base["XDG_DATA_HOME"],
               "XDG_CONFIG_HOME": base["XDG_CONFIG_HOME"], "XDG_CACHE_HOME": base["XDG_CACHE_HOME"]}
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
            env={**base, **env},
        )
        procs.append(daemon)
        assert daemon.stdin is not None
        daemon.stdin.write("test-keyring-password")
        daemon.stdin.close()
        _wait_for_secrets(env)
        yield env
    finally:
        for proc in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_for_secrets(env: dict[str, str]) -> None:
    """Until org.freedesktop.secrets answers on the bus (the daemon takes a moment)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        r = subprocess.run(
            ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
             "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
            capture_output=True, text=True, env={**os.environ, **env},
        )
        if "boolean true" in r.stdout:
            return
        time.sleep(0.05)
    raise RuntimeError("gnome-keyring-daemon did not offer org.freedesktop.secrets")
