"""`webmcp-sidecar chat-sites list|add|validate|remove`: the chat-site adapters
(documents/cli.py's commands over `chat_sites/store.py`; docs/CHAT_SITES.md). What is an
adapter's own here: where it comes from (shipped or the user's) and whether it is verified.
"""

from __future__ import annotations

import argparse
from typing import Any

from webmcp_sidecar.documents.cli import CommandGroup, DocCommands, DocTexts, doc_group
from webmcp_sidecar.documents.kinds import CHAT_SITES


def _added(site: Any) -> None:
    hosts = "  ".join(site.hostnames)
    print(f"Added {site.name} {site.version} (unverified until it works on the site).")
    print(f"  It acts on the sites: {hosts}")


def _row(i: Any) -> None:
    if i.error:
        print(f"{i.name}  ({i.origin}; broken: {i.error.splitlines()[0]})")
        return
    state = "on" if i.enabled else "off"
    verified = f"verified {i.verified.at} on {i.verified.host}" if i.verified else "unverified"
    print(f"{i.name}  {i.title} {i.version}  [{state}, {verified}, {i.origin}]")
    print(f"    {', '.join(i.hostnames)}")


def _add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")
    p.add_argument("--no-replace", action="store_true", help="refuse to replace an added adapter")


def _group() -> CommandGroup:
    group = doc_group(CHAT_SITES, "chat-sites", "adapters that bring tools into AI chat websites")
    texts = DocTexts(
        valid="a valid chat-site adapter", added=_added, row=_row, removed="Removed {name}: {what}."
    )
    docs = DocCommands(group, texts)
    docs.list("the adapters (shipped and yours), and whether each is verified")
    docs.add("add an adapter file (replaces a shipped one of the same name)", _add_args)
    docs.validate("check an adapter file without adding it", as_given=False)
    docs.remove("remove an adapter you added")
    return group


GROUP = _group()
add_parser = GROUP.add_parser
run = GROUP.run
