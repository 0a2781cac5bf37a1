"""The `install`, `uninstall` and `doctor` subcommands: argument parsing and what they print.

Only argparse is imported at module level: the CLI builds its parser on every start (the MCP
entry included), so the real work is imported when one of these commands runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webmcp_sidecar.setup.doctor.doctor import DoctorReport
    from webmcp_sidecar.setup.install.engine import Context, Plan

COMMANDS = ("install", "uninstall", "doctor")


def _names(values: list[str]) -> list[str]:
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _extension_ids(args: argparse.Namespace) -> list[str]:
    """`--extension-id`s, then those of WEBMCP_SIDECAR_EXTENSION_IDS (a self-published id set
    once, e.g. for install.sh); ValueError names one that is not an id."""
    from webmcp_sidecar.extension_ids import from_env, is_extension_id

    given = _names(args.extension_id)
    bad = [i for i in given if not is_extension_id(i)]
    if bad:
        raise ValueError(f"--extension-id {bad[0][:80]!r} is not an extension id (a Chromium id "
                         "is 32 letters a-p; a Firefox one is name@domain or {GUID})")
    return list(dict.fromkeys([*given, *from_env()]))


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    inst = sub.add_parser(
        "install", help="register the host with your browsers and MCP clients",
        description="Register the native host for every detected browser (Chromium family, "
        "Firefox) and add our MCP server to every detected MCP client (merging, with a backup).",
    )
    _browser_args(inst)
    inst.add_argument("--clients", action="append", metavar="LIST",
                      help="only these MCP clients (comma-separated: claude-desktop, claude-code, "
                           "cursor, vscode, windsurf, codex, gemini, zed, cline, cline-cli)")
    inst.add_argument("--no-clients", action="store_true", help="leave MCP client configs alone")
    inst.add_argument("--no-browsers", action="store_true",
                      help="leave browsers alone: only the MCP client entries")
    inst.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")

    un = sub.add_parser("uninstall", help="remove exactly what install added")
    un.add_argument("--clients", action="append", metavar="LIST",
                    help="only remove our entry from these MCP clients")
    un.add_argument("--no-clients", action="store_true", help="keep the MCP client entries")
    un.add_argument("--no-browsers", action="store_true",
                    help="keep the host manifests and launcher: only the MCP client entries go")
    un.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")

    doc = sub.add_parser("doctor", help="check every link from browser to MCP client")
    _browser_args(doc)
    doc.add_argument("--json", action="store_true", help="machine-readable report")
    doc.add_argument("--no-launch", action="store_true",
                     help="do not start the host to check it answers")


def _browser_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--browser", action="append", default=[], metavar="NAME",
                   help="only this browser (chrome, chrome-beta, chrome-dev, chrome-canary, "
                        "chromium, edge, brave, vivaldi, firefox...); repeat or comma-separate")
    p.add_argument("--user-data-dir", type=Path, metavar="DIR",
                   help="a custom browser profile dir (writes DIR/NativeMessagingHosts)")
    p.add_argument("--extension-id", action="append", default=[], metavar="ID",
                   help="also allow this extension id (a store build, your own key)")
    p.add_argument("--system", action="store_true",
                   help="the system-wide locations (needs root / administrator)")


def run(args: argparse.Namespace) -> int:
    from webmcp_sidecar.setup.install.engine import Context

    ctx, warning = Context.current()
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    if args.cmd == "install":
        return run_install(ctx, args)
    if args.cmd == "uninstall":
        return run_uninstall(ctx, args)
    if args.cmd == "doctor":
        return run_doctor(ctx, args)
    return 2


def run_install(ctx: Context, args: argparse.Namespace) -> int:
    from webmcp_sidecar.setup.install.engine import InstallOptions, apply
    from webmcp_sidecar.setup.install.plan_install import plan_install

    clients = _names(args.clients) if args.clients else None
    clash = _clash(args)
    if clash:
        print(f"error: {clash}", file=sys.stderr)
        return 2
    try:
        ids = _extension_ids(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    opts = InstallOptions(
        browsers=_names(args.browser), user_data_dir=args.user_data_dir,
        extension_ids=ids, system=args.system,
        clients=clients, no_clients=args.no_clients, no_browsers=args.no_browsers,
    )
    plan = plan_install(ctx, opts)
    scope = "system-wide" if args.system else "for this user"
    print(f"WebMCP Sidecar install ({scope})" + (": dry run, nothing changes" if args.dry_run
                                                  else ""))
    print(f"Host program: {_host_line(ctx)}")
    failures = [] if args.dry_run else apply(ctx, plan)
    _print_plan(plan, args.dry_run)
    _print_problems(plan.problems + failures)
    if plan.browsers or opts.user_data_dir or plan.written_clients:
        _print_next(plan, args.dry_run)
    return 1 if plan.problems or failures else 0


def run_uninstall(ctx: Context, args: argparse.Namespace) -> int:
    from webmcp_sidecar.setup.install.engine import apply
    from webmcp_sidecar.setup.install.plan_uninstall import plan_uninstall

    clash = _clash(args)
    if clash:
        print(f"error: {clash}", file=sys.stderr)
        return 2
    plan = plan_uninstall(ctx, _names(args.clients) if args.clients else None, args.no_clients,
                          args.no_browsers)
    print("WebMCP Sidecar uninstall" + (": dry run, nothing changes" if args.dry_run else ""))
    failures = [] if args.dry_run else apply(ctx, plan)
    if not plan.steps and not plan.unchanged:
        print("Nothing of ours is installed.")
    _print_plan(plan, args.dry_run)
    _print_problems(plan.problems + failures)
    return 1 if plan.problems or failures else 0


def _clash(args: argparse.Namespace) -> str:
    """Options that contradict each other (install and uninstall)."""
    if args.no_browsers and args.no_clients:
        return "--no-browsers with --no-clients leaves nothing to do"
    if args.no_clients and args.clients:
        return "--clients with --no-clients"
    named = [o for o, v in (("--browser", getattr(args, "browser", None)),
                            ("--user-data-dir", getattr(args, "user_data_dir", None)),
                            ("--system", getattr(args, "system", False))) if v]
    if args.no_browsers and named:
        return f"{named[0]} with --no-browsers"
    return ""


def run_doctor(ctx: Context, args: argparse.Namespace) -> int:
    from webmcp_sidecar.setup.doctor.doctor import DoctorOptions
    from webmcp_sidecar.setup.doctor.doctor import run_doctor as doctor

    try:
        ids = _extension_ids(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    opts = DoctorOptions(browsers=_names(args.browser), user_data_dir=args.user_data_dir,
                         extension_ids=ids, system=args.system,
                         launch=not args.no_launch)
    report = doctor(ctx, opts)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print_report(report)
    return 0 if report.ok else 1


# --- printing -----------------------------------------------------------------------------

_SECTIONS = {"host": "Host", "browsers": "Browsers", "clients": "MCP clients"}


def _host_line(ctx: Context) -> str:
    if ctx.host_exe is not None:
        return f"{ctx.host_exe} (the packaged bundle)"
    python = ctx.python or Path(sys.executable).absolute()
    return f"a launcher in {ctx.env.data_dir / 'bin'} that runs {python}"


def _print_plan(plan: Plan, dry_run: bool) -> None:
    for section, title in _SECTIONS.items():
        lines = []
        for s in plan.steps:
            if s.section == section:
                verb = s.future() if dry_run else s.past()
                extra = "; ".join(x for x in (s.what, s.note) if x)
                lines.append(f"  {verb} {s.target}\n      {extra}")
        for sec, target, what in plan.unchanged:
            if sec == section:
                lines.append(f"  Unchanged {target}\n      {what}")
        if lines:
            print(f"\n{title}:")
            print("\n".join(lines))
    if plan.notes:
        print("\nNotes:")
        for n in plan.notes:
            print(f"  - {n}")


def _print_problems(problems: list[str]) -> None:
    if problems:
        print("\nProblems (nothing was written for these):", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)


def _print_next(plan: Plan, dry_run: bool) -> None:
    from webmcp_sidecar import EXTENSION_ID
    from webmcp_sidecar.setup.install.manifest import extension_dir

    chromium = [b for b in plan.browsers if b.family == "chromium"]
    firefox = [b for b in plan.browsers if b.family == "firefox"]
    pages = sorted({b.extensions_page for b in chromium}) or ["chrome://extensions"]
    ext = extension_dir()
    where = str(ext) if ext else "the extension folder of your WebMCP Sidecar download"
    print("\nNext:")
    n = 1
    if chromium:
        print(f"  {n}. Load the extension: open {' / '.join(pages)}, turn on Developer mode, "
              f"click 'Load unpacked' and choose\n       {where}\n     (its id is "
              f"{EXTENSION_ID}; it starts and connects to the host by itself). Already loaded? "
              "Reload it there.")
        n += 1
    if firefox:
        print(f"  {n}. Firefox: open about:debugging#/runtime/this-firefox, click 'Load Temporary "
              f"Add-on...' and choose manifest.json in\n       {where}\n     (a temporary "
              "add-on stays until Firefox quits: load it again after a restart).")
        n += 1
    if plan.written_clients:
        changed = "this would change" if dry_run else "we changed"
        print(f"  {n}. Restart the MCP clients {changed}:")
        for c in plan.written_clients:
            print(f"       {c.name}: {c.restart}")
        n += 1
    print(f"  {n}. Check every link: webmcp-sidecar doctor")


def print_report(report: DoctorReport) -> None:
    marks = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]", "skip": "[skip]"}
    for c in report.checks:
        print(f"{marks[c.status]} {c.title}: {c.detail}")
        if c.fix and c.status in ("warn", "fail"):
            print(f"       fix: {c.fix}")
    n = report.counts()
    if not report.ok:
        verdict = "something is broken (see FAIL)."
    elif report.missing:
        verdict = "nothing is broken, but not everything is set up:" + "".join(
            f"\n  - {m}" for m in report.missing)
    else:
        verdict = "everything needed works."
    print(f"\n{n['ok']} ok, {n['warn']} warnings, {n['fail']} broken: {verdict}")
