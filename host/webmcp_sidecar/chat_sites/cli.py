"""`webmcp-sidecar chat-sites list|add|validate|remove`: the chat-site adapters (see `store.py`
and docs/CHAT_SITES.md).

Exit codes: 0 done; 1 `validate` found problems; 2 bad input (an unknown adapter, a file that is
not a valid adapter, a usage error). Messages go to stderr in plain words.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webmcp_sidecar.chat_sites.store import ChatSiteStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cs = sub.add_parser("chat-sites", help="adapters that bring tools into AI chat websites")
    csub = cs.add_subparsers(dest="chat_sites_cmd", required=True)
    ls = csub.add_parser("list", help="the adapters (shipped and yours), and whether each is verified")
    ls.add_argument("--json", action="store_true", help="as JSON")
    a = csub.add_parser("add", help="add an adapter file (replaces a shipped one of the same name)")
    a.add_argument("file")
    a.add_argument("--no-replace", action="store_true", help="refuse to replace an added adapter")
    v = csub.add_parser("validate", help="check an adapter file without adding it")
    v.add_argument("file")
    r = csub.add_parser("remove", help="remove an adapter you added")
    r.add_argument("name")


def run(args: argparse.Namespace) -> int:
    from webmcp_sidecar.chat_sites.store import ChatSiteError, ChatSiteStore

    store = ChatSiteStore()
    try:
        return _COMMANDS[args.chat_sites_cmd](store, args)
    except (ChatSiteError, OSError) as e:
        print(f"webmcp-sidecar chat-sites {args.chat_sites_cmd}: {e}", file=sys.stderr)
        return 2


def _list(store: ChatSiteStore, args: argparse.Namespace) -> int:
    infos = store.list()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2, ensure_ascii=False))
        return 0
    for i in infos:
        if i.error:
            print(f"{i.name}  ({i.origin}; broken: {i.error.splitlines()[0]})")
            continue
        state = "on" if i.enabled else "off"
        verified = f"verified {i.verified.at} on {i.verified.host}" if i.verified else "unverified"
        print(f"{i.name}  {i.title} {i.version}  [{state}, {verified}, {i.origin}]")
        print(f"    {', '.join(i.hostnames)}")
    return 0


def _add(store: ChatSiteStore, args: argparse.Namespace) -> int:
    site = store.add_file(args.file, replace=not args.no_replace)
    hosts = "  ".join(site.hostnames)
    print(f"Added {site.name} {site.version} (unverified until it works on the site).")
    print(f"  It acts on the sites: {hosts}")
    return 0


def _validate(store: ChatSiteStore, args: argparse.Namespace) -> int:
    from webmcp_sidecar.chat_sites.store import read_file

    path = Path(args.file).expanduser()
    problems = store.validate_text(read_file(path), str(path))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"{path}: a valid chat-site adapter.")
    return 0


def _remove(store: ChatSiteStore, args: argparse.Namespace) -> int:
    what = store.remove(args.name)
    print(f"Removed {args.name}: {what}.")
    return 0


_COMMANDS = {"list": _list, "add": _add, "validate": _validate, "remove": _remove}
