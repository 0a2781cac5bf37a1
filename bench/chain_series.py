"""The benchmarks' timed series: calls run in blocks, interleaved with other series so that the
load of a shared machine hits them alike (bench.chain, bench.entry, bench.host, bench.large), and
what bench.chain keeps of one mode's run."""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Page

from bench._util import Stats, TimedSession

MIB = 1024 * 1024
PATTERN = "abcdefghijklmnopqrstuvwxyz012345"  # as in bench.html

# A block of `n` calls starting at index `start`: (milliseconds of each call, wrong answers).
BlockFn = Callable[[int, int], Awaitable[tuple[list[float], int]]]


@dataclass
class Series:
    name: str
    calls: int
    run_block: BlockFn
    ms: list[float] = field(default_factory=list)
    errors: int = 0

    @property
    def done(self) -> bool:
        return len(self.ms) >= self.calls


@dataclass
class ModeResult:
    mode: str
    rtt: dict[str, Stats] = field(default_factory=dict)
    rtt_errors: dict[str, int] = field(default_factory=dict)
    in_page_mean_ms: float = math.nan
    peer_problem: str = ""
    propagation: dict[str, Stats] = field(default_factory=dict)
    extra_notifications: int = 0
    clock_offset_ms: float = math.nan
    throughput_cps: float = math.nan
    throughput_calls: int = 0
    throughput_errors: int = 0
    throughput_lat: Stats | None = None
    large: Stats | None = None
    large_bytes: int = 0
    large_ok: int = 0
    hops: dict[str, Stats] = field(default_factory=dict)
    hop_errors: int = 0
    cpu_per_call: dict[str, float] = field(default_factory=dict)


def timed_calls(one: Callable[[int], Awaitable[bool]]) -> BlockFn:
    """A block runner that times `one(i)` from Python, call by call."""

    async def run(start: int, n: int) -> tuple[list[float], int]:
        ms: list[float] = []
        wrong = 0
        for i in range(start, start + n):
            t = time.perf_counter()
            ok = await one(i)
            ms.append((time.perf_counter() - t) * 1000)
            wrong += not ok
        return ms, wrong

    return run


def in_page_block(page: Page) -> BlockFn:
    async def run(start: int, n: int) -> tuple[list[float], int]:
        out = await page.evaluate("([n]) => window.benchInPage(0, n)", [n])
        return list(out["ms"]), 0

    return run


async def interleave(series: list[Series], warmup: int, block: int) -> None:
    """Warm every series up, then run them in alternating blocks until each has its count."""
    for s in series:
        await s.run_block(0, warmup)
    while not all(s.done for s in series):
        for s in series:
            if not s.done:
                ms, wrong = await s.run_block(len(s.ms), min(block, s.calls - len(s.ms)))
                s.ms += ms
                s.errors += wrong


def chain_via(session: TimedSession, add: str) -> Callable[[int], Awaitable[bool]]:
    async def one(i: int) -> bool:
        assert session.client
        r = await session.client.call_tool(add, {"a": i, "b": 1})
        return not r.is_error and r.structured_content == {"sum": i + 1}

    return one


def ping_via(session: TimedSession) -> Callable[[int], Awaitable[bool]]:
    """An MCP ping to `session`'s server (the MCP floor, no browser)."""

    async def one(i: int) -> bool:
        assert session.client
        with warnings.catch_warnings():  # ping is legacy-only in the SDK; this session is legacy
            warnings.simplefilter("ignore")
            await session.client.send_ping()
        return True

    return one


def entry_command(base: str) -> list[str]:
    """The entry whose package dir is `base` (e.g. an old checkout's `host/`)."""
    return ["/usr/bin/env", f"PYTHONPATH={base}", sys.executable, "-m", "webmcp_sidecar"]
