"""`webmcp-sidecar servers add|list|remove|test|enable|disable|import`: the local MCP servers the
side panel's agent may use (servers.json; docs/SERVERS.md).

Exit codes: 0 done; 1 `test` could not start the server or the keyring refused; 2 bad input (an
unknown server, a bad name or value, a usage error). Messages go to stderr in plain words; a
secret is never printed.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webmcp_sidecar.documents.cli import CommandGroup, add_on_off, json_arg, name_arg

if TYPE_CHECKING:
    from webmcp_sidecar.servers.config import ServerEntry, ServersConfig, ServersFile
    from webmcp_sidecar.servers.secrets import Moved


class _CommandAfterDashes(argparse.ArgumentParser):
    """Everything after the first `--` is the server's command line, given as is (argparse
    alone would take it only when no option came between NAME and `--`)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        args = list(args or [])
        tail: list[str] = []
        if "--" in args:
            i = args.index("--")
            args, tail = args[:i], args[i + 1 :]
        ns, extra = super().parse_known_args(args, namespace)
        if getattr(ns, "command", None) is not None:
            ns.command = [*ns.command, *tail]
        return ns, extra


def _add_args(a: argparse.ArgumentParser) -> None:
    a.add_argument("name")
    a.add_argument("command", nargs="*", help="after `--`: the command and its arguments")
    a.add_argument("--env", action="append", default=[], metavar="K=V", help="an environment variable")
    a.add_argument(
        "--secret-env",
        action="append",
        default=[],
        metavar="K",
        help="an environment variable whose value goes to the keyring",
    )
    a.add_argument("--cwd", help="the folder to start it in")
    a.add_argument("--url", help="a remote server's address (Streamable HTTP unless --sse)")
    a.add_argument("--header", action="append", default=[], metavar="K=V", help="an HTTP header")
    a.add_argument(
        "--secret-header",
        action="append",
        default=[],
        metavar="K",
        help="an HTTP header whose value goes to the keyring",
    )
    a.add_argument("--sse", action="store_true", help="the server speaks the older HTTP+SSE transport")
    a.add_argument("--timeout", type=float, help="seconds a call may take (default: the caller's)")
    a.add_argument("--replace", action="store_true", help="replace a server of that name")


def _import_args(i: argparse.ArgumentParser) -> None:
    i.add_argument(
        "--from",
        dest="client",
        required=True,
        help="claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini, zed, cline",
    )
    i.add_argument("--file", help="that client's config file, if not in its usual place")
    i.add_argument("--replace", action="store_true", help="replace servers of the same name")


def _open() -> ServersConfig:
    from webmcp_sidecar.servers.config import ServersConfig

    return ServersConfig()


def _errors() -> list[tuple[tuple[type[BaseException], ...], int]]:
    from webmcp_sidecar.servers import imports
    from webmcp_sidecar.servers.config import ServerConfigError
    from webmcp_sidecar.servers.secrets import KeyringUnavailable

    return [
        ((ServerConfigError, imports.ImportError_, ValueError), 2),
        ((KeyringUnavailable,), 1),
        ((OSError,), 2),
    ]


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise ValueError(f"{what} {item.split('=')[0]!r} needs the form NAME=VALUE.")
        out[k] = v
    return out


def _read_secret(label: str) -> str:
    if sys.stdin.isatty():
        value = getpass.getpass(f"{label} (not shown): ")
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        raise ValueError(f"No value was given for {label}: nothing was stored.")
    return value


def _add(config: ServersConfig, args: argparse.Namespace) -> int:
    from webmcp_sidecar.servers import secrets
    from webmcp_sidecar.servers.config import ServerConfigError, ServerEntry, check_name

    name = check_name(args.name)
    if bool(args.command) == bool(args.url):
        raise ValueError("Give either a command (after `--`) or --url, not both.")
    doc = config.load()
    if name in doc.servers and not args.replace:
        raise ServerConfigError(f"A server named {name!r} exists: remove it first, or use --replace.")
    data: dict[str, Any] = {"env": _pairs(args.env, "--env"), "headers": _pairs(args.header, "--header")}
    if args.url:
        data["url"] = args.url
        if args.sse:
            data["transport"] = "sse"
    else:
        data["command"], data["args"] = args.command[0], args.command[1:]
        if args.cwd:
            data["cwd"] = str(Path(args.cwd).expanduser().resolve())
    if args.timeout is not None:
        data["timeout"] = args.timeout
    entry = ServerEntry.model_validate(data)  # checked before anything is asked or stored
    if args.secret_env or args.secret_header:
        from webmcp_sidecar import keyring_store as keys

        keys.backend()  # say "no keyring" before asking for a secret
    old = doc.servers.get(name)
    for k in args.secret_env:
        entry.env[k] = secrets.store(name, "env", k, _read_secret(f"Value of {k} for {name}"))
    for k in args.secret_header:
        entry.headers[k] = secrets.store(name, "header", k, _read_secret(f"Header {k} for {name}"))
    report = secrets.move_to_keyring(name, entry)  # a password in a connection string, a token...
    doc.servers[name] = entry
    config.save(doc)
    if old is not None:
        for account in set(old.refs()) - set(entry.refs()):
            secrets.forget_account(account)
    print(f"Added {name} ({entry.kind}: {entry.target()}). `webmcp-sidecar servers test {name}` tries it.")
    if report.moved:
        print(f"    to the keyring: {'; '.join(report.moved)}")
    return 0


def _list(config: ServersConfig, args: argparse.Namespace) -> int:
    from webmcp_sidecar import paths
    from webmcp_sidecar.servers.status import load_status

    doc = config.load()
    known = load_status(paths.log_dir() / "servers")
    rows: list[dict[str, Any]] = []
    for name, e in doc.servers.items():
        st = known.get(name)
        rows.append(
            {
                "name": name,
                "kind": e.kind,
                "enabled": not e.disabled,
                "state": st.state if st else "stopped",
                "tools": st.tools if st else None,
                "last_error": st.last_error if st else None,
                "disabledTools": e.disabled_tools,
                "target": e.target(),  # secrets masked
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        print(
            "No servers. Add one with `webmcp-sidecar servers add NAME -- COMMAND ARGS...`, or "
            "`webmcp-sidecar servers import --from claude-desktop`."
        )
        return 0
    for row in rows:
        state = row["state"] if row["enabled"] else "disabled"
        tools = f", {row['tools']} tools" if row["tools"] is not None and row["state"] == "running" else ""
        off = f", off: {', '.join(row['disabledTools'])}" if row["disabledTools"] else ""
        print(f"{row['name']}  {row['kind']}  {state}{tools}{off}  {row['target']}")
        if row["last_error"]:
            print(f"    last error: {row['last_error']}")
    return 0


def _remove(config: ServersConfig, args: argparse.Namespace) -> int:
    from webmcp_sidecar.servers import secrets

    doc = config.load()
    entry = config.get(args.name)
    del doc.servers[args.name]
    config.save(doc)
    try:
        secrets.forget(entry)
    except secrets.KeyringUnavailable as e:
        print(f"(its secrets stay in the keyring: {e})", file=sys.stderr)
    print(f"Removed {args.name}.")
    return 0


def _test(config: ServersConfig, args: argparse.Namespace) -> int:
    import anyio

    from webmcp_sidecar.servers.manager import ServerError, ServerManager

    entry = config.get(args.name)
    if entry.disabled:
        raise ValueError(f"{args.name} is switched off: `webmcp-sidecar servers enable {args.name}` first.")

    async def go() -> int:
        manager = ServerManager(config.path)
        try:
            tools = (await manager.tools(args.name))[args.name]
        except ServerError as e:
            print(f"{args.name}: {e}", file=sys.stderr)
            return 1
        finally:
            await manager.aclose()
        hidden = entry.disabled_tools
        print(f"{args.name} works: {len(tools)} tool{'' if len(tools) == 1 else 's'}.")
        for t in tools:
            first = (t.description or "").strip().splitlines()[0:1]
            print(f"  {t.name}" + (f": {first[0][:100]}" if first else ""))
        if hidden:
            print(f"  (switched off: {', '.join(hidden)})")
        return 0

    return anyio.run(go)


def _enable(config: ServersConfig, args: argparse.Namespace) -> int:
    on = args.servers_cmd == "enable"
    doc = config.load()
    entry = config.get(args.name)
    if args.tool:
        off = [t for t in entry.disabled_tools if t != args.tool]
        entry.disabled_tools = off if on else [*off, args.tool]
        what = f"{args.name}'s tool {args.tool}"
    else:
        entry.disabled = not on
        what = args.name
    doc.servers[args.name] = entry
    config.save(doc)
    print(f"{'Enabled' if on else 'Disabled'} {what}.")
    return 0


def _import(config: ServersConfig, args: argparse.Namespace) -> int:
    from webmcp_sidecar.servers import imports

    found = imports.scan(args.client, Path(args.file).expanduser() if args.file else None)
    doc = config.load()
    added = []
    for skipped in found.skipped:
        print(f"Skipped {skipped}.", file=sys.stderr)
    for f in found.found:
        if f.name in doc.servers and not args.replace:
            print(f"Skipped {f.name}: a server of that name exists (--replace replaces it).", file=sys.stderr)
            continue
        old = doc.servers.get(f.name)
        report = _to_keyring(f.name, f.entry)
        doc.servers[f.name] = f.entry
        added.append((f.name, f.note, report, old))
    if not added:
        print(f"Nothing imported from {found.path}.")
        return 0
    config.save(doc)
    _forget_replaced(doc, added)
    print(f"Imported from {found.path}:")
    for name, note, report, _ in added:
        print(f"  {name}" + (f" ({note})" if note else ""))
        _say_moved(report)
    print(
        "What stayed in clear is in servers.json as it was: if a secret is among it, add that server "
        "again with `servers add --replace` and --secret-env/--secret-header."
    )
    return 0


def _to_keyring(name: str, entry: ServerEntry) -> Moved:
    from webmcp_sidecar.servers import secrets

    return secrets.move_to_keyring(name, entry)


def _forget_replaced(doc: ServersFile, added: list[tuple[str, str, Moved, ServerEntry | None]]) -> None:
    """Secrets of the entries replaced that the new ones do not use any more."""
    from webmcp_sidecar.servers import secrets

    for name, _, _, old in added:
        if old is not None:
            for account in set(old.refs()) - set(doc.servers[name].refs()):
                secrets.forget_account(account)


def _say_moved(report: Moved) -> None:
    if report.moved:
        print(f"    to the keyring: {'; '.join(report.moved)}")
    if report.clear:
        print(f"    in clear: {'; '.join(report.clear)}")


def _group() -> CommandGroup:
    # The shape of documents/cli.py's groups; the file is servers.json, not a folder of documents.
    group = CommandGroup(
        "servers", "your local MCP servers, for the side panel's agent", _open, _errors, _CommandAfterDashes
    )
    group.add(
        "add", "add a server: `add NAME -- COMMAND ARGS...` or `add NAME --url URL`", _add, _add_args,
        description="Secrets (--secret-env, --secret-header) are asked for, or read one per line "
        "from stdin when it is not a terminal, and kept in the OS keyring.",
    )  # fmt: skip
    group.add("list", "the servers, with their last known status", _list, json_arg)
    group.add("remove", "remove a server (and its secrets from the keyring)", _remove, name_arg)
    group.add("test", "start a server, list its tools, stop it", _test, name_arg)
    add_on_off(group, "a server", _enable, "tools")
    group.add("import", "copy the servers another MCP client has", _import, _import_args)
    return group


GROUP = _group()
add_parser = GROUP.add_parser
run = GROUP.run
