"""Shared bits of the benchmarks: statistics, the bench site's server, MCP sessions, tables."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from tests.support.mcp_session import McpSession

from webmcp_sidecar.demo.run import serve_site as demo_serve_site

SITE_DIR = Path(__file__).parent / "site"


@dataclass(frozen=True)
class Stats:
    """Milliseconds."""

    n: int
    median: float
    p90: float
    p99: float
    max: float

    @classmethod
    def of_ms(cls, ms: Sequence[float]) -> Stats:
        s = sorted(ms)
        return cls(len(s), percentile(s, 0.5), percentile(s, 0.9), percentile(s, 0.99), s[-1])

    @classmethod
    def of_seconds(cls, secs: Sequence[float]) -> Stats:
        return cls.of_ms([x * 1000 for x in secs])


def percentile(sorted_xs: Sequence[float], q: float) -> float:
    """Nearest rank: the smallest value with at least q of the samples at or below it."""
    if not sorted_xs:
        return math.nan
    if q == 0.5 and len(sorted_xs) % 2 == 0:
        mid = len(sorted_xs) // 2
        return (sorted_xs[mid - 1] + sorted_xs[mid]) / 2
    return sorted_xs[max(0, math.ceil(q * len(sorted_xs)) - 1)]


# Cross-origin isolated: performance.now() then ticks in 5 us, not 100 us.
ISOLATED = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cache-Control": "no-store",
}


@contextlib.contextmanager
def serve_site(directory: Path = SITE_DIR) -> Iterator[str]:
    with demo_serve_site(directory, ISOLATED) as url:
        yield url


@contextlib.contextmanager
def sidecar_env(tmp: str) -> Iterator[dict[str, str]]:
    """Paths private to this run for the browser's host, and a HOME of its own, set in this
    process: MCP entries start with the SDK's default environment (HOME, PATH, ...) and find the
    host's socket through HOME, so leftover hosts never mix in."""
    home = Path(tmp) / "home"
    home.mkdir(mode=0o700)
    saved = {k: os.environ.get(k) for k in ("HOME", "WEBMCP_SIDECAR_SOCKET_DIR")}
    os.environ["HOME"] = str(home)
    os.environ.pop("WEBMCP_SIDECAR_SOCKET_DIR", None)
    try:
        yield {"HOME": str(home), "WEBMCP_SIDECAR_LOG_DIR": f"{tmp}/log",
               "WEBMCP_SIDECAR_DATA_DIR": f"{tmp}/data"}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class TimedSession(McpSession):
    """McpSession that also notes the wall-clock time each list_changed arrived."""

    def __init__(self, env: dict[str, str], name: str = "bench",
                 command: list[str] | None = None) -> None:
        super().__init__(env, mode="legacy", name=name, command=command)
        self.env = env
        self.changed_at: list[float] = []

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.changed_at.append(time.time())  # first thing: the SDK has just parsed it
        await super()._on_message(message)

    def next_change(self) -> anyio.Event:
        """The event the next list_changed sets (take it before causing the change)."""
        return self._changed

    async def tool_name(self, site: str, tool: str, timeout: float = 30) -> str:
        """The MCP name of `tool` of `site`, once the client sees it."""
        suffix = "__" + tool
        await self.wait_tools(lambda names: any(n.endswith(suffix) for n in names), timeout)
        for t in await self.tools():
            meta = t.meta or {}
            if meta.get("io.webmcp.sidecar/site") == site and meta.get("io.webmcp.sidecar/tool") == tool:
                return t.name
        raise LookupError(f"{tool} of {site} is not in the tool list")


def site_of(url: str) -> str:
    return url.split("/")[2]


def fmt(x: float | None, unit: str = "") -> str:
    if x is None or math.isnan(x):
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}{unit}"
    if abs(x) >= 10:
        return f"{x:.1f}{unit}"
    return f"{x:.2f}{unit}"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table (also valid Markdown), first column left-aligned, the rest right."""
    cols = [header, *rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]

    def line(r: Sequence[str]) -> str:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        return "| " + " | ".join(cells) + " |"

    sep = "|" + "|".join(
        "-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)
    ) + "|"
    return "\n".join([f"\n{title}\n", line(header), sep, *(line(r) for r in rows)])


def stats_row(label: str, s: Stats | None) -> list[str]:
    if s is None:
        return [label, "-", "-", "-", "-", "-"]
    return [label, str(s.n), fmt(s.median), fmt(s.p90), fmt(s.p99), fmt(s.max)]


def against(ref: str, rows: Sequence[tuple[str, Stats, Stats]], f: Callable[[float], str] = fmt) -> str:
    """An A/B table: each row (label, new, base) with both medians and p99s and their ratios,
    `ref` naming the base; `f` formats the milliseconds."""
    out = [
        [label, f(new.median), f(base.median), f"{new.median / base.median:.2f}",
         f(new.p99), f(base.p99), f"{new.p99 / base.p99:.2f}"]
        for label, new, base in rows
    ]
    header = ["", "median", f"{ref} median", "ratio", "p99", f"{ref} p99", "ratio"]
    return table(f"Against {ref}", header, out)


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
