"""Browser tools, measured through the whole chain (MCP SDK client -> `webmcp-sidecar mcp` -> host
-> native messaging -> service worker -> chrome.scripting / chrome.debugger -> page), on the e2e
test site (tests/e2e/site/browser/) in headless Chromium:

1. Snapshot of a large page (a catalog of N product cards, tens of thousands of elements):
   characters, ~tokens (4 characters a token) and time, next to the page's HTML size; the
   default snapshot (interactive, 12 000-character cap), the whole interactive one, and the full
   one (text too). Also, once, what CDP's Accessibility.getFullAXTree costs on the same page.
2. Click and type round trips by ref (no navigation), and a click on a same-page #link.
3. Screenshots: the viewport as JPEG, the full long page as PNG (over 1 MiB): time and size.

    .venv/bin/python -m bench.browser_tools [--runs 100] [--cards 2000] [--no-ax]
"""

from __future__ import annotations

import argparse
import base64
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from tests.support.browser import Browser, launch
from tests.support.mcp_session import McpSession, text

from bench._util import Stats, serve_site, sidecar_env, stats_row, table

SITE = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "site" / "browser"
LINE = re.compile(r'- (\w+)(?: "((?:[^"\\]|\\.)*)")? \[(e\d+)\]')
AX_JS = """async (part) => {
  const [tab] = (await chrome.tabs.query({})).filter((t) => t.url.includes(part));
  const target = { tabId: tab.id };
  await chrome.debugger.attach(target, '1.3');
  const t0 = performance.now();
  const r = await chrome.debugger.sendCommand(target, 'Accessibility.getFullAXTree', {});
  const ms = performance.now() - t0;
  await chrome.debugger.detach(target);
  return { ms, nodes: r.nodes.length, chars: JSON.stringify(r).length };
}"""


def ref(snapshot: str, role: str, name: str) -> str:
    for m in LINE.finditer(snapshot):
        if m.group(1) == role and m.group(2) == name:
            return m.group(3)
    raise LookupError(f"no {role} {name!r} in the snapshot")


async def timed(mcp: McpSession, tool: str, args: dict[str, Any]) -> tuple[float, types.CallToolResult]:
    t0 = time.perf_counter()
    r = await mcp.call(tool, args)
    ms = (time.perf_counter() - t0) * 1000
    if r.is_error:
        raise RuntimeError(f"{tool} {args}: {text(r)}")
    return ms, r


async def series(
    mcp: McpSession, tool: str, args: dict[str, Any], runs: int
) -> tuple[Stats, types.CallToolResult]:
    ms: list[float] = []
    r: types.CallToolResult | None = None
    for _ in range(runs):
        t, r = await timed(mcp, tool, args)
        ms.append(t)
    assert r is not None
    return Stats.of_ms(ms), r


def image_bytes(r: types.CallToolResult) -> int:
    img = next(c for c in r.content if isinstance(c, types.ImageContent))
    return len(base64.b64decode(img.data))


async def run(runs: int, cards: int, ax: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp, serve_site(SITE) as url, sidecar_env(tmp) as env:
        async with launch(Path(tmp), env, "native") as browser, McpSession(env, name="bench") as mcp:
            await mcp.wait_tools(lambda n: "browser_navigate" in n, timeout=60)
            await snapshot_bench(browser, mcp, url, runs, cards, ax)
            await action_bench(mcp, url, runs)
            await screenshot_bench(mcp, url, max(5, runs // 10))


async def snapshot_bench(
    browser: Browser, mcp: McpSession, url: str, runs: int, cards: int, ax: bool
) -> None:
    page_url = f"{url}large.html?n={cards}"
    await timed(mcp, "browser_navigate", {"url": page_url})
    page = next(p for p in browser.ctx.pages if p.url == page_url)
    html = await page.evaluate("document.documentElement.outerHTML.length")
    elements = await page.evaluate("document.getElementsByTagName('*').length")
    n = max(5, runs // 5)
    rows = []
    sizes = []
    for label, args in [("default (interactive, 12k cap)", {}),
                        ("interactive, uncapped", {"max_chars": 200_000}),
                        ("full (text too), uncapped", {"interactive": False, "max_chars": 200_000})]:
        s, r = await series(mcp, "browser_snapshot", args, n)
        chars = len(text(r))
        sizes.append([label, f"{chars:,}", f"{chars // 4:,}", f"{100 * chars / html:.2f}%"])
        rows.append(stats_row(label, s))
    print(f"\nLarge page: {cards} product cards, {elements:,} elements, HTML {html:,} characters "
          f"(~{html // 4:,} tokens)")
    print(table("Snapshot size", ["snapshot", "characters", "~tokens", "of the HTML"], sizes))
    print(table("Snapshot time, ms", ["snapshot", "n", "median", "p90", "p99", "max"], rows))
    if ax:
        w = await browser.worker()
        r = await w.evaluate(AX_JS, "large.html")
        print(f"\nFor comparison, CDP Accessibility.getFullAXTree on the same page through "
              f"chrome.debugger: {r['ms']:.0f} ms, {r['nodes']:,} nodes, {r['chars']:,} characters of JSON.")


async def action_bench(mcp: McpSession, url: str, runs: int) -> None:
    await timed(mcp, "browser_navigate", {"url": url + "form.html"})
    _, r = await timed(mcp, "browser_snapshot", {})
    snap = text(r)
    rows = []
    s, _ = await series(mcp, "browser_click", {"ref": ref(snap, "button", "Hover me")}, runs)
    rows.append(stats_row("click (button)", s))
    name = ref(snap, "textbox", "Name")
    s, _ = await series(mcp, "browser_type", {"ref": name, "text": "Ada Lovelace"}, runs)
    rows.append(stats_row("type 12 characters", s))
    s, _ = await series(mcp, "browser_hover", {"ref": ref(snap, "button", "Hover me")}, runs)
    rows.append(stats_row("hover", s))
    s, _ = await series(mcp, "browser_snapshot", {}, runs)
    rows.append(stats_row("snapshot (small form page)", s))
    await timed(mcp, "browser_navigate", {"url": url + "large.html?n=200"})
    _, r = await timed(mcp, "browser_snapshot", {})
    s, _ = await series(mcp, "browser_click", {"ref": ref(text(r), "link", "Product 5")}, max(5, runs // 5))
    rows.append(stats_row("click (same-page #link)", s))
    header = ["tool", "n", "median", "p90", "p99", "max"]
    print(table("Actions, round trip through the MCP client, ms", header, rows))


async def screenshot_bench(mcp: McpSession, url: str, runs: int) -> None:
    await timed(mcp, "browser_navigate", {"url": url + "long.html"})
    rows, sizes = [], []
    for label, args in [("viewport, JPEG q80", {}),
                        ("viewport, PNG", {"format": "png"}),
                        ("full page, JPEG q80", {"full_page": True}),
                        ("full page, PNG", {"full_page": True, "format": "png"})]:
        s, r = await series(mcp, "browser_screenshot", args, runs)
        rows.append(stats_row(label, s))
        dims = re.search(r"(\d+x\d+) px", text(r))
        sizes.append([label, dims.group(1) if dims else "?", f"{image_bytes(r) / 1024:,.0f} KB"])
    print(table("Screenshot time (long page), ms", ["screenshot", "n", "median", "p90", "p99", "max"], rows))
    print(table("Screenshot size", ["screenshot", "pixels", "image"], sizes))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100, help="calls per action series")
    ap.add_argument("--cards", type=int, default=2000, help="product cards on the large page")
    ap.add_argument("--no-ax", action="store_true", help="skip the getFullAXTree comparison")
    a = ap.parse_args(argv)
    anyio.run(run, a.runs, a.cards, not a.no_ax)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
