"""`webmcp-sidecar skills add|list|show|validate|remove|enable|disable|export|schema`: the
installed skills (see `skills/store.py` and docs/SKILLS.md).

Exit codes: 0 done; 1 `validate` found problems; 2 bad input (an unknown skill, a file that is
not a valid skill, a usage error). Messages go to stderr in plain words.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webmcp_sidecar.skills.store import SkillStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sk = sub.add_parser("skills", help="tools for sites that have none (skill files)")
    ssub = sk.add_subparsers(dest="skills_cmd", required=True)
    a = ssub.add_parser("add", help="install a skill file, or every *.skill.json in a folder")
    a.add_argument("path", metavar="FILE|DIR")
    a.add_argument("--no-replace", action="store_true", help="refuse to replace an installed skill")
    ls = ssub.add_parser("list", help="the installed skills")
    ls.add_argument("--json", action="store_true", help="as JSON")
    s = ssub.add_parser("show", help="a skill's details and tools")
    s.add_argument("name")
    v = ssub.add_parser("validate", help="check a skill file without installing it")
    v.add_argument("file")
    r = ssub.add_parser("remove", help="uninstall a skill")
    r.add_argument("name")
    for cmd, verb in (("enable", "switch on"), ("disable", "switch off")):
        e = ssub.add_parser(cmd, help=f"{verb} a skill, or one of its tools")
        e.add_argument("name")
        e.add_argument("--tool", help=f"{verb} only this tool")
    x = ssub.add_parser("export", help="print a skill's file (or write it with -o)")
    x.add_argument("name")
    x.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead")
    ssub.add_parser("schema", help="print the JSON Schema of skill files (for editors)")


def run(args: argparse.Namespace) -> int:
    from webmcp_sidecar.skills.store import SkillError, SkillStore

    store = SkillStore()
    try:
        return _COMMANDS[args.skills_cmd](store, args)
    except SkillError as e:
        print(f"webmcp-sidecar skills {args.skills_cmd}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"webmcp-sidecar skills {args.skills_cmd}: {e}", file=sys.stderr)
        return 2


def _add(store: SkillStore, args: argparse.Namespace) -> int:
    added = store.add_file(args.path, replace=not args.no_replace)
    for skill in added:
        tools = ", ".join(t.name for t in skill.tools)
        print(f"Installed {skill.name} {skill.version} ({tools}).")
        # What a shared file may reach, where the user sees it: the pages it acts on.
        print(f"  It acts on pages matching: {'  '.join(skill.match)}")
        if skill.exclude:
            print(f"  except: {'  '.join(skill.exclude)}")
    return 0


def _list(store: SkillStore, args: argparse.Namespace) -> int:
    infos = store.list()
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2, ensure_ascii=False))
        return 0
    if not infos:
        print("No skills installed. Add one with `webmcp-sidecar skills add <file>`.")
        return 0
    for i in infos:
        if i.error:
            first = i.error.splitlines()[0]
            print(f"{i.name}  (broken: {first})")
            continue
        state = "enabled" if i.enabled else "disabled"
        if i.enabled and i.disabled_tools:
            state += f" (off: {', '.join(i.disabled_tools)})"
        print(f"{i.name}  {i.version}  {' '.join(i.match)}  {state}")
    return 0


def _show(store: SkillStore, args: argparse.Namespace) -> int:
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


def _validate(store: SkillStore, args: argparse.Namespace) -> int:
    from webmcp_sidecar.skills.store import SkillError, read_skill_file

    path = Path(args.file)
    if not path.is_file():
        raise SkillError(f"{path} is not a file.")
    try:
        problems = store.validate_text(read_skill_file(path), args.file)
    except SkillError as e:  # too large, not UTF-8: not a valid skill file either
        problems = [str(e)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"{args.file}: a valid skill.")
    return 0


def _remove(store: SkillStore, args: argparse.Namespace) -> int:
    store.remove(args.name)
    print(f"Removed {args.name}.")
    return 0


def _enable(store: SkillStore, args: argparse.Namespace) -> int:
    on = args.skills_cmd == "enable"
    store.set_enabled(args.name, on, args.tool)
    what = f"{args.name}'s tool {args.tool}" if args.tool else args.name
    print(f"{'Enabled' if on else 'Disabled'} {what}.")
    return 0


def _export(store: SkillStore, args: argparse.Namespace) -> int:
    text = store.text(args.name)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"Wrote {args.output}.", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _schema(store: SkillStore, args: argparse.Namespace) -> int:
    from webmcp_sidecar.skills.model import schema_text

    sys.stdout.write(schema_text())
    return 0


_COMMANDS = {
    "add": _add, "list": _list, "show": _show, "validate": _validate, "remove": _remove,
    "enable": _enable, "disable": _enable, "export": _export, "schema": _schema,
}  # fmt: skip
