"""Skills, measured (docs/SKILLS.md):

1. Round trip: a skill tool (`skill_add`: fill two inputs, click, read the sum: four page-agent
   steps) next to a page tool doing the same sum (`add`), on the same page, interleaved, through
   the whole chain (MCP SDK client -> entry -> host -> worker -> tab).
2. Page-load overhead: loads of a page no skill matches (navigationStart -> loadEventEnd, from
   the page's own timing) with 0 and with 100 skills installed, interleaved by blocks; and the
   worker's matching cost per URL (skillsForUrl over the installed list, timed in the worker).
3. Time to tools: a page a skill matches, from its load event to the skill's tools in the
   worker's registry (the health check runs after load, off the page's critical path).

    .venv/bin/python -m bench.skills [--calls 200] [--loads 60] [--mode native|polyfill]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from tests.support.browser import launch
from tests.support.mcp_session import text as result_text

from bench._util import Stats, TimedSession, serve_site, sidecar_env, site_of, stats_row, table
from webmcp_sidecar.skills.store import SkillStore


def skill_doc(name: str, match: list[str], tools: list[dict[str, Any]]) -> str:
    return json.dumps({"name": name, "version": "1", "description": f"bench {name}", "match": match,
                       "tools": tools})


ADD_TOOL = {
    "name": "skill_add",
    "description": "Adds two numbers with the page's form",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]},
    "annotations": {"readOnlyHint": True},
    "steps": [
        {"action": "fill", "selector": "#a", "value": "{{a}}"},
        {"action": "fill", "selector": "#b", "value": "{{b}}"},
        {"action": "click", "selector": "#go"},
        {"action": "extract", "as": "sum", "selector": "#sum"},
        {"action": "return", "value": {"sum": "{{sum}}"}},
    ],
}


# The page's own timing: navigationStart -> loadEventEnd (ms), once the load event has ended.
LOAD_MS = """() => new Promise((r) => { const f = () => {
  const n = performance.getEntriesByType('navigation')[0];
  if (n && n.loadEventEnd > 0) r(n.loadEventEnd - n.startTime); else setTimeout(f, 5); }; f(); })"""
LOADED_AT = "() => performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventEnd"


def filler(i: int) -> str:
    """A skill for another site: it costs matching, never a health check."""
    return skill_doc(f"filler-{i:03d}", [f"https://shop-{i}.example/*", f"http://*.site-{i}.example/p/*"], [
        {"name": f"t{i}", "description": "x", "steps": [{"action": "click", "selector": "#x"}]}])


async def wait_for(pred: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not await pred():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        await anyio.sleep(0.05)


async def run_mode(mode: str, url: str, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode}
    with tempfile.TemporaryDirectory() as tmp, sidecar_env(tmp) as env:
        store = SkillStore(Path(env["WEBMCP_SIDECAR_DATA_DIR"]) / "skills")
        async with launch(Path(tmp), env, mode) as browser, TimedSession(env) as mcp:
            worker = await browser.worker()
            page = await browser.open(url + "plain.html")

            async def skill_count() -> int:
                return int(await worker.evaluate("() => globalThis.sidecar.skills.list.length"))

            async def load_block(n: int) -> list[float]:
                ms = []
                for _ in range(n):
                    await page.goto(url + "plain.html")
                    t = await page.evaluate(LOAD_MS)
                    ms.append(float(t))
                return ms

            # 2. Page loads, 0 vs 100 skills, alternating blocks.
            loads: dict[int, list[float]] = {0: [], 100: []}
            await load_block(5)  # warm up
            for rnd in range(args.loads // 10):
                for count in (0, 100) if rnd % 2 == 0 else (100, 0):
                    if count == 0:
                        for info in store.list():
                            store.remove(info.name)
                    else:
                        for i in range(count):
                            store.add_text(filler(i))
                    await wait_for(lambda c=count: _eq(skill_count, c))
                    await anyio.sleep(1)  # the switch's own work (files, host push, worker) is done
                    await load_block(2)
                    loads[count] += await load_block(10)
            out["loads"] = {k: Stats.of_ms(v) for k, v in loads.items()}
            per_url = match_cost([json.loads(filler(i)) for i in range(100)])
            out["match_us"] = per_url

            # 1. Round trip: skill tool vs page tool on the same page.
            site = site_of(url)
            store.add_text(skill_doc("bench-add", [f"http://{site.split(':')[0]}/skill.html*"], [ADD_TOOL]))
            await page.goto(url + "skill.html")
            skill_name = await mcp.tool_name(site, "skill_add")
            page_name = await mcp.tool_name(site, "add")
            # 3. Load event -> the skill's tool listed at the MCP client, from a page without it.
            to_tools = []
            for _ in range(args.reloads):
                await page.goto(url + "plain.html")
                await mcp.wait_tools(lambda n: skill_name not in n)
                await page.goto(url + "skill.html")
                loaded = float(await page.evaluate(LOADED_AT))
                await mcp.wait_tools(lambda n: skill_name in n)
                to_tools.append(mcp.changed_at[-1] * 1000 - loaded)
            out["to_tools"] = Stats.of_ms(to_tools)
            series: dict[str, list[float]] = {"page tool add": [], "skill tool skill_add (4 steps)": []}
            bad = 0
            for rnd in range(args.calls // 20 + 1):
                order = list(series) if rnd % 2 == 0 else list(reversed(series))
                for label in order:
                    name = page_name if label.startswith("page") else skill_name
                    for i in range(20):
                        t = time.perf_counter()
                        r = await mcp.call(name, {"a": i, "b": 2})
                        ms = (time.perf_counter() - t) * 1000
                        if rnd == 0:
                            continue  # warm-up round
                        series[label].append(ms)
                        body = json.loads(result_text(r))
                        if str(body.get("sum")) != str(i + 2):
                            bad += 1
            out["calls"] = {k: Stats.of_ms(v) for k, v in series.items()}
            out["wrong"] = bad
    return out


MATCH_JS = """
import { skillsForUrl } from './extension/lib/skills/match.js';
const list = JSON.parse(process.argv[1]);
const urls = Array.from({length: 20000}, (_, i) => `http://127.0.0.1:8080/p/${i}?q=${i}`);
for (const u of urls.slice(0, 1000)) skillsForUrl(list, u);
const t = performance.now();
for (const u of urls) skillsForUrl(list, u);
console.log(JSON.stringify({ n: list.length, us: (performance.now() - t) * 1000 / urls.length }));
"""


def match_cost(skills: list[dict[str, Any]]) -> dict[str, Any]:
    """The worker's matching (lib/skills/match.js) per URL, in node: the same code on the same V8
    (a service worker may not import() modules from a test's evaluate)."""
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(["node", "--input-type=module", "-e", MATCH_JS, json.dumps(skills)], cwd=repo,
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


async def _eq(fn: Any, want: int) -> bool:
    return await fn() == want


def report(results: list[dict[str, Any]]) -> str:
    parts = []
    for r in results:
        m = r["mode"]
        header = ["series", "n", "median", "p90", "p99", "max"]
        parts.append(table(f"Round trip through the chain, {m} (ms); wrong answers: {r['wrong']}", header,
                           [stats_row(k, v) for k, v in r["calls"].items()]))
        parts.append(table(f"Page load, navigationStart -> loadEventEnd, {m} (ms)", header,
                           [stats_row(f"{k} skills installed", v) for k, v in r["loads"].items()]))
        parts.append(table(f"Load event -> the skill's tool at the MCP client (list_changed), {m} (ms)",
                           header, [stats_row("time to tools", r["to_tools"])]))
        mu = r["match_us"]
        parts.append(f"\nMatching (lib/skills/match.js, node): {mu['us']:.2f} us per URL over {mu['n']} "
                     "skills")
    return "\n".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description="Skills: round trip, page-load overhead, time to tools.")
    ap.add_argument("--calls", type=int, default=200, help="calls per series (after a warm-up round)")
    ap.add_argument("--loads", type=int, default=60, help="page loads per skill count")
    ap.add_argument("--reloads", type=int, default=20, help="loads timed for time-to-tools")
    ap.add_argument("--mode", choices=["native", "polyfill"], action="append")
    args = ap.parse_args()

    async def run() -> list[dict[str, Any]]:
        with serve_site() as url:
            return [await run_mode(mode, url, args) for mode in args.mode or ["polyfill", "native"]]

    started = time.strftime("%Y-%m-%d %H:%M")
    results = anyio.run(run)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"bench.skills, {started}, {os.cpu_count()} cores, load average at the end {load}")
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
