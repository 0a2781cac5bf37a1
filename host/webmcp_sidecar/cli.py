"""`webmcp-sidecar`: one command, several roles.

Chrome starts the host as `<path> chrome-extension://<id>/` (plus `--parent-window=` on
Windows), Firefox as `<path> <host manifest path> <add-on id>`: arguments of either form mean
host mode (native_host/launch.py). Imports are deferred per subcommand: the host must start
fast and never loads the MCP SDK.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from webmcp_sidecar.native_host.launch import Launch


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="webmcp-sidecar",
        description="WebMCP tools from your browser, for your MCP clients.",
    )
    from webmcp_sidecar import __version__

    p.add_argument("--version", action="version", version=f"webmcp-sidecar {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    mcp = sub.add_parser("mcp", help="the stdio MCP server (what MCP clients launch)")
    mcp.add_argument("--timeout", type=float, help="seconds a page tool may take (default 60)")
    mcp.add_argument(
        "--max-result-bytes", type=int, help="largest page result accepted (default 16 MiB)"
    )

    host = sub.add_parser("host", help="the native-messaging host (the browser starts it)")
    host.add_argument("origin", nargs="?", default="", help="chrome-extension://<id>/")
    host.add_argument("addon_id", nargs="?", default="",
                      help="Firefox's form: <host manifest path> <add-on id>")

    from webmcp_sidecar.setup.install.commands import add_parsers

    add_parsers(sub)  # install, uninstall, doctor

    from webmcp_sidecar.agent.keys_cli import add_parser as add_keys_parser

    add_keys_parser(sub)  # keys set|list|delete

    from webmcp_sidecar.tools.uploads_cli import add_parser as add_uploads_parser

    add_uploads_parser(sub)  # uploads allow|list|remove

    from webmcp_sidecar.skills.cli import add_parser as add_skills_parser

    add_skills_parser(sub)  # skills add|list|show|validate|remove|enable|disable|export|schema

    from webmcp_sidecar.servers.cli import add_parser as add_servers_parser

    add_servers_parser(sub)  # servers add|list|remove|test|enable|disable|import

    from webmcp_sidecar.chat_sites.cli import add_parser as add_chat_sites_parser

    add_chat_sites_parser(sub)  # chat-sites list|add|validate|remove

    demo = sub.add_parser("demo", help="open the demo site in Chromium (or Firefox) and call its "
                          "tools")
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    demo.add_argument(
        "--keep-open", action="store_true", help="keep the browser running for your MCP client"
    )
    demo.add_argument(
        "--no-webmcp-flag",
        action="store_true",
        help="run without native WebMCP (exercises the polyfill)",
    )
    demo.add_argument("--chromium", default=None, help="path of the Chromium binary")
    demo.add_argument("--browser", choices=("chromium", "firefox"), default="chromium",
                      help="the browser to run the demo in (firefox: Firefox ESR, the polyfill)")
    demo.add_argument("--firefox", default=None, help="path of the Firefox binary")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from webmcp_sidecar.native_host.launch import Launch, browser_launch

    if (launch := browser_launch(argv)) is not None:
        return _run_host(launch)
    if argv and argv[0] == "_server-guard":  # what a local MCP server runs under (frozen builds)
        from webmcp_sidecar.servers.guard import main as guard_main

        return guard_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.cmd == "host":
        return _run_host(browser_launch([a for a in (args.origin, args.addon_id) if a]) or Launch())
    if args.cmd == "mcp":
        return _run_mcp(args)
    if args.cmd == "keys":
        from webmcp_sidecar.agent.keys_cli import run as keys_run

        return keys_run(args)
    if args.cmd == "uploads":
        from webmcp_sidecar.tools.uploads_cli import run as uploads_run

        return uploads_run(args)
    if args.cmd == "skills":
        from webmcp_sidecar.skills.cli import run as skills_run

        return skills_run(args)
    if args.cmd == "servers":
        from webmcp_sidecar.servers.cli import run as servers_run

        return servers_run(args)
    if args.cmd == "chat-sites":
        from webmcp_sidecar.chat_sites.cli import run as chat_sites_run

        return chat_sites_run(args)
    if args.cmd in ("install", "uninstall", "doctor"):
        from webmcp_sidecar.setup.install.commands import run as install_run

        return install_run(args)
    if args.cmd == "demo":
        from webmcp_sidecar.demo.run import main as demo_main

        return demo_main(args)
    return 2


def _run_host(launch: Launch) -> int:
    from webmcp_sidecar.host_parts import plugins
    from webmcp_sidecar.native_host.process import main as host_main

    return host_main(launch, plugins)


def _run_mcp(args: argparse.Namespace) -> int:
    import anyio

    from webmcp_sidecar import logs
    from webmcp_sidecar.mcp_server.config import EntryConfig
    from webmcp_sidecar.mcp_server.server import serve_stdio

    logs.setup("mcp")
    config = EntryConfig.from_env()
    if args.timeout is not None:
        config.timeout_s = args.timeout
    if args.max_result_bytes is not None:
        config.max_result_bytes = args.max_result_bytes
    anyio.run(serve_stdio, config)
    _exit_now(0)


def _exit_now(code: int) -> NoReturn:
    """Ends the entry without the interpreter's teardown, once its client has closed stdin and
    the server has stopped: freeing the MCP SDK's modules and models takes ~0.3 s of CPU, about
    a third of the entry's whole cost, and its client waits that out at every shutdown (the SDK
    gives it 2 s before a kill). What the entry keeps is written first: the log handlers
    flushed and closed, stdout and stderr flushed."""
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)

