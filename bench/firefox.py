"""Firefox against Chromium in one run: the whole chain (MCP SDK client -> `webmcp-sidecar mcp`
-> host -> the browser's extension -> page -> back) on the bench page's `add(a, b)` and a 1 MiB
result, in Firefox ESR (our polyfill: Firefox has no WebMCP) and in Chromium (the same polyfill,
and Chromium's native WebMCP), the series interleaved in blocks so load on this shared machine
hits them alike. Each browser has a HOME (so a host and socket dir) of its own and its own entry.

    .venv/bin/python -m bench.firefox [--calls 300] [--block 25]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from tests.support.browser import launch
from tests.support.firefox import firefox_env, launch_firefox

from bench._util import (
    Stats,
    TimedSession,
    say,
    serve_site,
    site_of,
    stats_row,
    table,
)
from bench.chain_series import MIB, PATTERN, Series, chain_via, interleave, timed_calls

UA = "navigator.userAgent"


def browser_of(ua: str) -> str:
    m = re.search(r"(Firefox|Chrome)/([\d.]+)", ua)
    return f"{m.group(1)} {m.group(2)}" if m else ua[:40]


def blob_via(session: TimedSession, blob: str, n: int) -> Callable[[int], Awaitable[bool]]:
    want = PATTERN * (n // len(PATTERN))

    async def one(i: int) -> bool:
        assert session.client
        r = await session.client.call_tool(blob, {"n": n})
        return not r.is_error and r.content[0].text == want  # type: ignore[union-attr]

    return one


@contextlib.contextmanager
def home_of(env: dict[str, str]) -> Iterator[None]:
    """This process's HOME as `env`'s while an MCP entry is started (it finds its host so)."""
    saved = os.environ.get("HOME")
    os.environ["HOME"] = env["HOME"]
    try:
        yield
    finally:
        if saved is not None:
            os.environ["HOME"] = saved


async def main(calls: int, block: int, warmup: int) -> None:
    os.environ.pop("WEBMCP_SIDECAR_SOCKET_DIR", None)
    with tempfile.TemporaryDirectory(prefix="wmb-") as tmp, serve_site() as url:
        site = site_of(url)
        stack = contextlib.AsyncExitStack()
        async with stack:
            sessions: dict[str, tuple[TimedSession, str]] = {}
            ff_env = firefox_env(Path(tmp) / "ff")
            ff = await stack.enter_async_context(launch_firefox(Path(tmp) / "ff", ff_env))
            tab = await ff.open(url + "bench.html")
            with home_of(ff_env):
                s = TimedSession(ff_env, name="bench-ff")
                await stack.enter_async_context(s)
            sessions["Firefox ESR (polyfill)"] = (s, browser_of(await tab.evaluate(UA)))
            for mode in ("polyfill", "native"):
                home = Path(tempfile.mkdtemp(prefix="wmc-", dir=tmp))
                env = {"HOME": str(home), "WEBMCP_SIDECAR_LOG_DIR": f"{tmp}/{mode}/log",
                       "WEBMCP_SIDECAR_DATA_DIR": f"{tmp}/{mode}/data"}
                b = await stack.enter_async_context(launch(Path(tmp) / mode, env, mode))
                page = await b.open(url + "bench.html")
                with home_of(env):
                    s = TimedSession(env, name=f"bench-{mode}")
                    await stack.enter_async_context(s)
                sessions[f"Chromium ({mode})"] = (s, browser_of(await page.evaluate(UA)))
            series = []
            for label, (s, _v) in sessions.items():
                add = await s.tool_name(site, "add")
                blob = await s.tool_name(site, "blob")
                series.append(Series(f"{label}: add", calls, timed_calls(chain_via(s, add))))
                series.append(Series(f"{label}: 1 MiB result", max(calls // 10, 10),
                                     timed_calls(blob_via(s, blob, MIB))))
            say(f"{len(series)} series, {calls} calls each (1 MiB: {max(calls // 10, 10)}), "
                f"blocks of {block}")
            await interleave(series, warmup, block)
            versions = ", ".join(sorted({v for _s, v in sessions.values()}))
            rows = [stats_row(s.name, Stats.of_ms(s.ms)) for s in series]
            print(table(f"Round trip through the whole chain, ms ({versions})",
                        ["series", "n", "median", "p90", "p99", "max"], rows))
            bad = {s.name: s.errors for s in series if s.errors}
            print(f"\nwrong answers: {bad or 'none'}")


def cli() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--block", type=int, default=25)
    p.add_argument("--warmup", type=int, default=20)
    a = p.parse_args()
    import anyio

    anyio.run(main, a.calls, a.block, a.warmup)


if __name__ == "__main__":
    cli()
