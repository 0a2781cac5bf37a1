"""Host cold start: from the browser spawning the host to the first answered message.

Spawns the host exactly as Chrome does (`<path> chrome-extension://<id>/`, pipes on stdin and
stdout), sends a framed `{"type":"ping","id":"1"}` at once and times until the `pong` arrives,
for the plain Python install (the launcher `install` writes) and for the PyInstaller bundle.
Prints median and p99 over N runs, the load average before and after, and the bundle's size
on disk. `--first hello` sends the extension's real first message instead (a `hello`, timed
until the `host_hello`).

    .venv/bin/python bench/cold_start.py [--runs 30] [--bundle dist/webmcp-sidecar/webmcp-sidecar]
                                         [--host LABEL=DIR]   # another build's launcher too
                                         [--host LABEL=EXE]   # another build's bundle too
                                         [--first ping|hello]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

from webmcp_sidecar import EXTENSION_ID  # noqa: E402
from webmcp_sidecar.setup.install.manifest import launcher_spec  # noqa: E402
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION  # noqa: E402

HDR = struct.Struct("=I")  # native byte order, as Chrome frames
# The first message sent, and the type of the answer timed.
FIRST = {
    "ping": ({"type": "ping", "id": "1"}, "pong"),
    "hello": ({"type": "hello", "protocol": PROTOCOL_VERSION,
               "extension_version": "0.1.0", "browser": "bench"}, "host_hello"),
}


def one_start(path: Path, env: dict[str, str], first: str = "ping") -> float:
    """Seconds from spawn to the answer; the host is then closed as the browser would."""
    message, answer = FIRST[first]
    frame = json.dumps(message).encode()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(path), f"chrome-extension://{EXTENSION_ID}/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(HDR.pack(len(frame)) + frame)
    proc.stdin.flush()
    (n,) = HDR.unpack(proc.stdout.read(4))
    reply = json.loads(proc.stdout.read(n))
    elapsed = time.perf_counter() - t0
    proc.stdin.close()
    if proc.wait(timeout=10) != 0 or reply.get("type") != answer:
        raise RuntimeError(f"{path}: bad answer {reply!r} or exit status {proc.returncode}")
    return elapsed


def measure(paths: list[Path], runs: int, env: dict[str, str], first: str = "ping") -> list[list[float]]:
    """Runs alternate between the candidates, so a busy machine slows them all alike."""
    for p in paths:
        one_start(p, env, first)  # warm the OS page cache once, as a browser restart would find it
    out: list[list[float]] = [[] for _ in paths]
    for _ in range(runs):
        for i, p in enumerate(paths):
            out[i].append(one_start(p, env, first))
    return out


def p99(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(0.99 * (len(s) - 1)))]


def dir_size(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bundle", type=Path, default=ROOT / "dist/webmcp-sidecar/webmcp-sidecar")
    ap.add_argument(
        "--python",
        type=Path,
        default=Path(sys.executable).absolute(),
        help="the interpreter the launcher names (default: this one)",
    )
    ap.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="LABEL=DIR|EXE",
        help="also time a launcher of the package in DIR, or the executable EXE (repeatable)",
    )
    ap.add_argument("--no-bundle", action="store_true")
    ap.add_argument(
        "--first",
        choices=sorted(FIRST),
        default="ping",
        help="the first message: ping (default) or the extension's hello",
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "WEBMCP_SIDECAR_SOCKET_DIR": f"{tmp}/sock",
            "WEBMCP_SIDECAR_LOG_DIR": f"{tmp}/log",
        }
        path, data = launcher_spec(Path(tmp), python=args.python)
        path.write_bytes(data)
        path.chmod(0o755)
        rows = [("python launcher", path)]
        for spec in args.host:
            label, pkg = spec.split("=", 1)
            if Path(pkg).is_file():  # another build's executable (e.g. an old commit's bundle)
                rows.append((label, Path(pkg)))
                continue
            # The same launcher, naming another package dir (e.g. an old commit's `host/`).
            other = Path(tmp) / f"launcher-{label}"
            other.write_text(f'#!/bin/sh\nPYTHONPATH="{pkg}" exec "{args.python}" -m webmcp_sidecar "$@"\n')
            other.chmod(0o755)
            rows.append((f"launcher {label}", other))
        if args.no_bundle:
            pass
        elif args.bundle.is_file():
            rows.append(("bundle", args.bundle))
        else:
            print(f"(no bundle at {args.bundle}: run installers/build.sh)")
        message, answer = FIRST[args.first]
        print(
            f"host cold start, spawn -> first {answer} (to a {message['type']}), "
            f"{args.runs} runs each; load average {os.getloadavg()[0]:.1f}"
        )
        results = measure([p for _, p in rows], args.runs, env, args.first)
        for (label, _), xs in zip(rows, results, strict=True):
            print(
                f"  {label:16} median {statistics.median(xs) * 1000:7.1f} ms   "
                f"p99 {p99(xs) * 1000:7.1f} ms   (min {min(xs) * 1000:.1f})"
            )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    if args.bundle.is_file() and not args.no_bundle:
        size = dir_size(args.bundle.parent)
        print(f"bundle size on disk: {size / 1e6:.1f} MB ({args.bundle.parent})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
