"""`webmcp-sidecar skills add|list|show|validate|remove|enable|disable|export|schema`: the
installed skills (documents/cli.py's commands over `skills/store.py`; docs/SKILLS.md). What is
a skill's own here: its tools (`show`, `--tool`) and the pages it acts on.
"""

from __future__ import annotations

import argparse
from typing import Any

from webmcp_sidecar.documents.cli import CommandGroup, DocCommands, DocTexts, doc_group, name_arg
from webmcp_sidecar.documents.kinds import SKILLS


def _added(skill: Any) -> None:
    tools = ", ".join(t.name for t in skill.tools)
    print(f"Installed {skill.name} {skill.version} ({tools}).")
    # What a shared file may reach, where the user sees it: the pages it acts on.
    print(f"  It acts on pages matching: {'  '.join(skill.match)}")
    if skill.exclude:
        print(f"  except: {'  '.join(skill.exclude)}")


def _row(i: Any) -> None:
    if i.error:
        first = i.error.splitlines()[0]
        print(f"{i.name}  (broken: {first})")
        return
    state = "enabled" if i.enabled else "disabled"
    if i.enabled and i.disabled_tools:
        state += f" (off: {', '.join(i.disabled_tools)})"
    print(f"{i.name}  {i.version}  {' '.join(i.match)}  {state}")


def _show(store: Any, args: argparse.Namespace) -> int:
    skill = store.get(args.name)
    info = next(i for i in store.list() if i.name == skill.name)
    print(f"{skill.name} {skill.version}: {'enabled' if info.enabled else 'disabled'}")
    print(f"  {skill.description}")
    print(f"  match:   {' '.join(skill.match)}")
    if skill.exclude:
        print(f"  exclude: {' '.join(skill.exclude)}")
    if skill.priority:
        print(f"  priority: {skill.priority}")
    print(f"  file:    {info.path}")
    print("  tools:")
    for t in skill.tools:
        off = " (disabled)" if t.name in info.disabled_tools else ""
        print(f"    {t.name}{off}: {t.description.splitlines()[0]} ({len(t.steps)} steps)")
    return 0


def _add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="FILE|DIR")
    p.add_argument("--no-replace", action="store_true", help="refuse to replace an installed skill")


def _group() -> CommandGroup:
    group = doc_group(SKILLS, "skills", "tools for sites that have none (skill files)")
    texts = DocTexts(
        valid="a valid skill", added=_added, row=_row,
        empty="No skills installed. Add one with `webmcp-sidecar skills add <file>`.",
    )  # fmt: skip
    docs = DocCommands(group, texts)
    docs.add("install a skill file, or every *.skill.json in a folder", _add_args)
    docs.list("the installed skills")
    group.add("show", "a skill's details and tools", _show, name_arg)
    docs.validate("check a skill file without installing it")
    docs.remove("uninstall a skill")
    docs.on_off("a skill", parts="tools")
    docs.export("print a skill's file (or write it with -o)")
    docs.schema("print the JSON Schema of skill files (for editors)")
    return group


GROUP = _group()
add_parser = GROUP.add_parser
run = GROUP.run
