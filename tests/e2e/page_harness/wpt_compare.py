"""WPT's `webmcp/` tests in Chromium three ways: native, native with our extension, the polyfill.

    .venv/bin/python -m tests.e2e.page_harness.wpt_compare --wpt /tmp/wpt [--json out.json]

`--wpt` is a copy of the web-platform-tests files these tests load (`webmcp/`,
`resources/testharness.js`), kept out of this repository. The tree is served on two ports of
127.0.0.1: the tests' own origin is `http://localhost:A`, their "remote" (cross-site) origin
`http://127.0.0.1:B`; loopback over http is a secure context, as the `.https.` tests need. The
files WPT's server makes up, or that a vendor supplies, are stand-ins here (`STANDINS`):
`testharnessreport.js` keeps each subtest's result on `window`; `get-host-info.sub.js` names these
two origins under WPT's `HTTPS_*` keys; `/common/blank.html` and the cross-origin tests' iframe
page (`imperative/resources/iframe-register-tool.html`, rebuilt from the messages its tests send)
are served only when the copy lacks them. Other `.sub.` files get WPT's `{{host}}`/`{{ports}}`
substitutions mapped to the same origins. Modes: `native` (`--enable-features=WebMCP`, no
extension), `native_ext` (the same with our content scripts, via harness.py), `polyfill` (our
content scripts, no flag). The result is in docs/WEBMCP_WPT.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.e2e.page_harness.harness import CHROMIUM, bare_native, browser, driver

MODES = ("native", "native_ext", "polyfill")
TEST_STATUS = {0: "PASS", 1: "FAIL", 2: "TIMEOUT", 3: "NOTRUN", 4: "PRECONDITION_FAILED"}
HARNESS_STATUS = {0: "OK", 1: "ERROR", 2: "TIMEOUT", 3: "PRECONDITION_FAILED"}
# testharness.js gives a file 10 s, or 60 s with <meta name="timeout" content="long">.
FILE_TIMEOUT_MS = 90_000

REPORT_JS = """// wpt_compare's testharnessreport.js (WPT leaves this file to vendors).
add_completion_callback((tests, status) => {
  window.__wptResults = {
    harness: status.status, message: status.message,
    tests: tests.map((t) => ({name: t.name, status: t.status, message: t.message})),
  };
});
"""

HOST_INFO_JS = """// wpt_compare's stand-in for get-host-info.sub.js: WPT's HTTPS_* names, local http origins.
function get_host_info() {
  const main = 'http://localhost:%(a)s', remote = 'http://127.0.0.1:%(b)s';
  const other = 'http://127.0.0.1:%(a)s';
  return {
    HTTP_PORT: '%(a)s', HTTP_PORT2: '%(b)s', HTTPS_PORT: '%(a)s',
    ORIGINAL_HOST: 'localhost', REMOTE_HOST: '127.0.0.1',
    ORIGIN: main, HTTP_ORIGIN: main, HTTPS_ORIGIN: main,
    REMOTE_ORIGIN: remote, HTTP_REMOTE_ORIGIN: remote, HTTPS_REMOTE_ORIGIN: remote,
    HTTP_NOTSAMESITE_ORIGIN: remote, HTTPS_NOTSAMESITE_ORIGIN: remote,
    HTTPS_OTHER_NOTSAMESITE_ORIGIN: other,
  };
}
function get_port(loc) { return loc.port || (loc.protocol === 'https:' ? '443' : '80'); }
"""

# Our copy has no iframe-register-tool.html: this answers the messages its two tests post
# (read from them); tools go back as plain fields, since a `window` cannot be posted.
IFRAME_TOOLS_HTML = """<!DOCTYPE html>
<title>wpt_compare stand-in: iframe-register-tool.html</title>
<script>
const regs = new Map();
const reply = (m) => parent.postMessage(m, '*');
const plain = (t) => ({name: t.name, title: t.title, description: t.description,
  inputSchema: t.inputSchema, annotations: t.annotations, origin: t.origin});
addEventListener('message', async (e) => {
  const d = e.data, mc = document.modelContext;
  const action = typeof d === 'string' ? d : d && d.action;
  try {
    if (action === 'getTools') {
      reply({action: 'getToolsResponse', tools: (await mc.getTools(d.options)).map(plain)});
    } else if (action === 'execute') {
      const tool = (await mc.getTools(d.options)).find((t) => t.name === d.name);
      try {
        reply({action: 'executeResponse', success: true, result: await mc.executeTool(tool, {})});
      } catch (err) {
        reply({action: 'executeResponse', success: false, error: String(err)});
      }
    } else if (action === 'register') {
      const ac = new AbortController();
      regs.set(d.tool.name, ac);
      await mc.registerTool({...d.tool, execute: () => 'hello from iframe'},
                            {...d.options, signal: ac.signal});
    } else if (action === 'unregister') {
      regs.get(d.name)?.abort();
    } else if (action === 'listenForToolchange') {
      let done = false;
      const finish = (result) => {
        if (!done) { done = true; reply({action: 'toolchange_result', result}); }
      };
      mc.addEventListener('toolchange', () => finish('fired'), {once: true});
      setTimeout(() => finish('timeout'), 2000);
      reply({action: 'toolchange_listening_ack'});
    }
  } catch (err) {
    reply({action: 'error', error: String(err)});
  }
});
</script>
"""

# path -> (always ours?, content type, text; "%(a)s"/"%(b)s" are the two ports)
STANDINS: dict[str, tuple[bool, str, str]] = {
    "/resources/testharnessreport.js": (True, "text/javascript", REPORT_JS),
    "/common/get-host-info.sub.js": (True, "text/javascript", HOST_INFO_JS),
    "/common/blank.html": (False, "text/html", "<!DOCTYPE html><title>blank</title>\n"),
    "/webmcp/imperative/resources/iframe-register-tool.html": (False, "text/html", IFRAME_TOOLS_HTML),
}


def substitute(text: str, a: int, b: int) -> str:
    """WPT's `.sub.` keys mapped to the two local origins (`www*`/`alt` hosts are the remote)."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1).strip()
        if key == "host":
            return "localhost"
        if key.startswith(("domains[", "hosts[")):
            return "127.0.0.1"
        port = re.fullmatch(r"ports\[https?\]\[(\d+)\]", key)
        if port:
            return str((a, b)[int(port.group(1)) % 2])
        return m.group(0)

    return re.sub(r"\{\{([^{}]+)\}\}", one, text)


class _Handler(SimpleHTTPRequestHandler):
    ports: tuple[int, int] = (0, 0)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _send(self, ctype: str, body: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{ctype}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        local = Path(self.directory) / path.lstrip("/")
        a, b = self.ports
        standin = STANDINS.get(path)
        if standin and (standin[0] or not local.is_file()):
            self._send(standin[1], standin[2] % {"a": a, "b": b})
        elif ".sub." in path and local.is_file():
            ctype = "text/html" if path.endswith(".html") else "text/javascript"
            self._send(ctype, substitute(local.read_text(), a, b))
        else:
            super().do_GET()


@contextmanager
def serve_wpt(root: Path) -> Iterator[tuple[str, str]]:
    """The tree on two ports; yields the tests' origin (localhost:A) and the remote one."""
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), _Handler) for _ in range(2)]
    a, b = (s.server_address[1] for s in servers)
    handler = type("Handler", (_Handler,), {"ports": (a, b)})
    with ExitStack() as stack:
        for s in servers:
            s.RequestHandlerClass = functools.partial(handler, directory=str(root))
            threading.Thread(target=s.serve_forever, daemon=True).start()
            stack.callback(s.server_close)
            stack.callback(s.shutdown)
        yield f"http://localhost:{a}", f"http://127.0.0.1:{b}"


def run_file(ctx: Any, url: str) -> dict[str, Any]:
    """One test file in a fresh tab: the harness status and each subtest's, as names."""
    page = ctx.new_page()
    try:
        page.goto(url)
        page.wait_for_function("() => window.__wptResults", timeout=FILE_TIMEOUT_MS)
        raw = page.evaluate("() => window.__wptResults")
        return {
            "harness": HARNESS_STATUS.get(raw["harness"], str(raw["harness"])),
            "message": raw.get("message"),
            "tests": {
                t["name"]: {"status": TEST_STATUS.get(t["status"], str(t["status"])), "message": t["message"]}
                for t in raw["tests"]
            },
        }
    except Exception as e:  # a crashed renderer or a page that never completes
        return {"harness": "RUNNER_ERROR", "message": str(e).splitlines()[0], "tests": {}}
    finally:
        page.close()


@contextmanager
def mode_context(p: Any, mode: str) -> Iterator[Any]:
    if mode == "native":
        with bare_native(p) as ctx:
            yield ctx
    else:
        with browser(p, mode == "native_ext") as (ctx, _ext):
            yield ctx


def run_all(wpt: Path, files: list[str], log: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """{mode: {file: result}}."""
    results: dict[str, dict[str, Any]] = {m: {} for m in MODES}
    with serve_wpt(wpt) as (origin, _remote), driver() as p:
        for mode in MODES:
            with mode_context(p, mode) as ctx:
                for rel in files:
                    results[mode][rel] = res = run_file(ctx, f"{origin}/{rel}")
                    log(f"{mode:10} {res['harness']:8} {rel}")
    return results


def compare(results: dict[str, dict[str, Any]], files: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The table's lines and, per count, the `file :: subtest` rows it counts."""
    lines: list[str] = []
    counts: dict[str, list[str]] = {"native pass, polyfill not": [], "native pass, native+ext not": []}
    counts["polyfill pass, native not"] = []
    for rel in files:
        per = [results[m][rel] for m in MODES]
        lines.append(f"{rel}  [harness: {' / '.join(r['harness'] for r in per)}]")
        names: list[str] = []
        for r in per:
            names += [n for n in r["tests"] if n not in names]
        for name in names:
            nat, ext, poly = (r["tests"].get(name, {}).get("status", "MISSING") for r in per)
            lines.append(f"  {nat:8} {ext:8} {poly:8} {name}")
            row = f"{rel} :: {name}"
            if nat == "PASS" and poly != "PASS":
                counts["native pass, polyfill not"].append(row)
            if nat == "PASS" and ext != "PASS":
                counts["native pass, native+ext not"].append(row)
            if poly == "PASS" and nat != "PASS":
                counts["polyfill pass, native not"].append(row)
    return lines, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wpt", type=Path, required=True, help="the WPT copy (webmcp/, resources/, ...)")
    ap.add_argument("--filter", default="", help="only test files whose path contains this")
    ap.add_argument("--json", type=Path, help="also write every status and message here")
    args = ap.parse_args(argv)
    wpt = args.wpt.resolve()
    if not (wpt / "resources" / "testharness.js").is_file():
        ap.error(f"{wpt} has no resources/testharness.js")
    files = sorted(
        str(f.relative_to(wpt))
        for f in (wpt / "webmcp").rglob("*.html")
        if "resources" not in f.relative_to(wpt).parts and args.filter in str(f.relative_to(wpt))
    )
    version = subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; {len(files)} files from {wpt}", flush=True)
    results = run_all(wpt, files, lambda s: print(s, file=sys.stderr, flush=True))
    lines, counts = compare(results, files)
    print(f"  {'native':8} {'nat+ext':8} {'polyfill':8} subtest")
    print("\n".join(lines))
    total = sum(1 for rel in files for _ in results["native"][rel]["tests"])
    print(f"\n{total} native subtests")
    for what, rows in counts.items():
        print(f"{what}: {len(rows)}")
        for row in rows:
            print(f"  {row}")
    if args.json:
        args.json.write_text(json.dumps({"chromium": version, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
