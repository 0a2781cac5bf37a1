"""The host hop alone, A/B: what one native host adds to a call it only routes, against other
builds of it, with no browser and no MCP.

Each variant is a real host process started as Chrome starts it (`-m webmcp_sidecar
chrome-extension://<id>/`, pipes on stdin/stdout), with its own socket dir. This process plays
both of its neighbours: the browser (it answers every `call` at once with a `result` frame in the
worker's key order) and an MCP entry (it says `entry_hello`, then sends `call` frames and times
each until its `result` comes back). So a call crosses socket -> host -> pipe -> here -> pipe ->
host -> socket, the host's part of the chain and nothing else. The series of all variants run
interleaved in blocks, so the load of this shared machine hits them alike; each host's CPU per
call is read from /proc.

    .venv/bin/python -m bench.host [--calls 3000] [--rounds 3] [--large-calls 10]
                                   [--host LABEL=DIR[:EXTRA_PATH]]   # another build (repeatable)

DIR is a package dir (a checkout's `host/`, e.g. `git archive <rev> host | tar -x -C /tmp/base`);
EXTRA_PATH is put on that host's PYTHONPATH after it (e.g. a `pip install --target` dir holding
an optional dependency, to measure it without installing it in the venv).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._util import Stats, against, cpu_seconds, fmt, stats_row, table
from bench.chain_series import Series, interleave, timed_calls
from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.wire.constants import PROTOCOL_VERSION

MIB = 1024 * 1024
NATIVE = struct.Struct("=I")
LITTLE = struct.Struct("<I")
PATTERN = "abcdefghijklmnopqrstuvwxyz012345"
TREE = str(Path(__file__).resolve().parents[1] / "host")


def _frame(hdr: struct.Struct, message: dict[str, Any]) -> bytes:
    payload = json.dumps(message, separators=(",", ":")).encode()
    return hdr.pack(len(payload)) + payload


async def _read(reader: asyncio.StreamReader, hdr: struct.Struct) -> bytes | None:
    try:
        (n,) = hdr.unpack(await reader.readexactly(4))
        return await reader.readexactly(n)
    except asyncio.IncompleteReadError:
        return None


@dataclass
class HostUnderTest:
    label: str
    pythonpath: str | None  # None: this checkout's
    tmp: Path
    proc: asyncio.subprocess.Process | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    blob: bytes = b""

    async def start(self) -> None:
        sock_dir = self.tmp / f"sock-{self.label}"
        env = {
            **os.environ,
            "WEBMCP_SIDECAR_SOCKET_DIR": str(sock_dir),
            "WEBMCP_SIDECAR_LOG_DIR": str(self.tmp / f"log-{self.label}"),
            "WEBMCP_SIDECAR_DATA_DIR": str(self.tmp / f"data-{self.label}"),
            "HOME": str(self.tmp),
        }
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "webmcp_sidecar",
            f"chrome-extension://{EXTENSION_ID}/",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            limit=80 * MIB,
        )
        assert self.proc.stdin
        self.proc.stdin.write(
            _frame(NATIVE, {"type": "hello", "extension_version": "0.1.0", "browser": "Bench", "protocol": 1})
        )
        self.tasks.append(asyncio.create_task(self._browser()))
        for _ in range(200):
            socks = list(sock_dir.glob("host-*.sock")) if sock_dir.exists() else []
            if socks:
                break
            await asyncio.sleep(0.05)
        else:
            raise RuntimeError(f"host {self.label} did not listen")
        self.reader, self.writer = await asyncio.open_unix_connection(str(socks[0]), limit=80 * MIB)
        hello = {"type": "entry_hello", "protocol": PROTOCOL_VERSION, "client": "bench", "pid": 1}
        self.writer.write(_frame(LITTLE, hello))
        welcome = json.loads(await _read(self.reader, LITTLE) or b"{}")
        self.conn = welcome["conn"]
        self.seq = 0
        self.tasks.append(asyncio.create_task(self._entry()))
        self.blob = json.dumps(
            {"type": "result", "id": "", "ok": True, "value": PATTERN * (5 * MIB // len(PATTERN))},
            separators=(",", ":"),
        ).encode()

    async def _browser(self) -> None:
        """The worker's side: every call answered at once, `type` and `id` first as it writes."""
        assert self.proc and self.proc.stdout and self.proc.stdin
        out = self.proc.stdin
        while (payload := await _read(self.proc.stdout, NATIVE)) is not None:
            msg = json.loads(payload)
            if msg.get("type") != "call":
                continue
            if msg["tool"] == "blob":
                head = b'{"type":"result","id":' + json.dumps(msg["id"]).encode()
                body = head + self.blob[len(b'{"type":"result","id":""') :]
                out.write(NATIVE.pack(len(body)) + body)
                continue
            args = msg["args"]
            value = json.dumps({"sum": args["a"] + args["b"]}, separators=(",", ":"))
            out.write(
                _frame(NATIVE, {"type": "result", "id": msg["id"], "ok": True, "value": value, "tab_id": 7})
            )

    async def _entry(self) -> None:
        while (payload := await _read(self.reader, LITTLE)) is not None:
            msg = json.loads(payload)
            fut = self.waiting.pop(str(msg.get("id")), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        call_id = f"{self.conn}.{self.seq}"
        fut = self.waiting[call_id] = asyncio.get_running_loop().create_future()
        self.writer.write(
            _frame(
                LITTLE,
                {
                    "type": "call",
                    "id": call_id,
                    "site": "bench.test",
                    "tool": tool,
                    "args": args,
                    "timeout_ms": 60000,
                    "max_bytes": 16 * MIB,
                },
            )
        )
        return await fut

    async def add(self, i: int) -> bool:
        r = await self.call("add", {"a": i, "b": 1})
        return r.get("ok") is True and r.get("value") == f'{{"sum":{i + 1}}}'

    async def large(self, i: int) -> bool:
        r = await self.call("blob", {"n": 5 * MIB})
        return r.get("ok") is True and len(r.get("value", "")) == 5 * MIB

    async def close(self) -> None:
        self.writer.close()
        if self.proc and self.proc.stdin:
            self.proc.stdin.close()
            await asyncio.wait_for(self.proc.wait(), 10)
        for t in self.tasks:
            t.cancel()


def pythonpath_of(spec: str) -> str:
    base, _, extra = spec.partition(":")
    return os.pathsep.join(p for p in (base, extra) if p)


async def run(args: argparse.Namespace) -> tuple[list[dict[str, Stats]], list[dict[str, float]]]:
    rounds: list[dict[str, Stats]] = []
    cpu: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="wmb-host-") as tmp:
        # Every host gets a PYTHONPATH, this checkout's too: whether it is set changes which big
        # blocks the interpreter frees while importing, hence glibc's mmap threshold, hence the
        # cost of each read (see bench/README.md, "Host hop"), and all variants must start alike.
        specs: list[tuple[str, str | None]] = [("tree", TREE)] if args.tree else []
        specs += [(label, pythonpath_of(rest)) for label, rest in (h.split("=", 1) for h in args.host)]
        hosts = [HostUnderTest(label, pp, Path(tmp)) for label, pp in specs]
        try:
            for h in hosts:
                await h.start()
            for _ in range(args.rounds):
                assert all(h.proc for h in hosts)
                cpu0 = {h.label: cpu_seconds(h.proc.pid) for h in hosts if h.proc}
                series = [Series(f"{h.label}: call add", args.calls, timed_calls(h.add)) for h in hosts]
                await interleave(series, args.warmup, args.block)
                result = {s.name: Stats.of_ms(s.ms) for s in series}
                cpu.append(
                    {
                        h.label: (cpu_seconds(h.proc.pid) - cpu0[h.label]) * 1000 / (args.calls + args.warmup)
                        for h in hosts
                        if h.proc
                    }
                )
                if args.large_calls:
                    big = [
                        Series(f"{h.label}: 5 MiB result", args.large_calls, timed_calls(h.large))
                        for h in hosts
                    ]
                    await interleave(big, 1, 1)
                    result |= {s.name: Stats.of_ms(s.ms) for s in big}
                    series += big
                rounds.append(result)
                if errors := sum(s.errors for s in series):
                    raise SystemExit(f"{errors} wrong answers")
        finally:
            for h in hosts:
                await h.close()
    return rounds, cpu


def report(rounds: list[dict[str, Stats]], cpu: list[dict[str, float]], args: argparse.Namespace) -> str:
    out: list[str] = []
    for k, r in enumerate(rounds, 1):
        rows = [stats_row(name, s) for name, s in r.items()]
        rows += [[f"{label}: host CPU per call", "", fmt(ms), "", "", ""] for label, ms in cpu[k - 1].items()]
        out.append(
            table(
                f"Round {k}: ms, {args.calls} calls a series after {args.warmup} warm-up, "
                f"interleaved in blocks of {args.block}",
                ["", "n", "median", "p90", "p99", "max"],
                rows,
            )
        )
    labels = list(dict.fromkeys(name.split(": ")[0] for name in rounds[0])) if rounds else []
    if len(labels) > 1:
        pairs: list[tuple[str, Stats, Stats]] = []
        ref = labels[0]
        for k, r in enumerate(rounds, 1):
            for kind in ("call add", "5 MiB result"):
                if f"{ref}: {kind}" not in r:
                    continue
                base = r[f"{ref}: {kind}"]
                pairs += [(f"round {k}: {kind}, {b}", r[f"{b}: {kind}"], base) for b in labels[1:]]
        out.append(against(ref, pairs))
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--calls", type=int, default=3000, help="sequential calls per series")
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--block", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--large-calls", type=int, default=10, help="5 MiB results per series (0: none)")
    ap.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="LABEL=DIR[:EXTRA_PATH]",
        help="another build of the host to compare (repeatable)",
    )
    ap.add_argument("--no-tree", dest="tree", action="store_false", help="leave out this checkout's host")
    args = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M")
    load0 = os.getloadavg()[0]
    rounds, cpu = asyncio.run(run(args))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"bench.host, {started}, {os.cpu_count()} cores, load average {load0:.1f} at the start, "
        f"{load} at the end"
    )
    print(report(rounds, cpu, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
