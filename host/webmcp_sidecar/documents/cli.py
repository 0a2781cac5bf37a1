"""`webmcp-sidecar <group> <command>` for a kind of user document, and the shape every such
group has (servers' too): subcommands with their arguments, run against one object (a store,
servers.json), known errors said on stderr as `webmcp-sidecar <group> <command>: <message>`
with their exit code.

Exit codes: 0 done; 1 `validate` found problems; 2 bad input (an unknown document, a file that
is not a valid one, a usage error); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Run = Callable[[Any, argparse.Namespace], int]
Setup = Callable[[argparse.ArgumentParser], None]
# The errors a group knows, each with its exit code (imported when it runs, not at start).
Errors = Callable[[], Sequence[tuple[tuple[type[BaseException], ...], int]]]


@dataclass
class Command:
    help: str
    run: Run
    setup: Setup | None = None
    options: dict[str, Any] = field(default_factory=dict)  # the parser's own (description...)


class CommandGroup:
    def __init__(
        self, name: str, help: str, open: Callable[[], Any], errors: Errors,
        parser_class: type[argparse.ArgumentParser] | None = None,
    ) -> None:  # fmt: skip
        self.name = name
        self.help = help
        self.open = open
        self.errors = errors
        self.parser_class = parser_class
        self.dest = f"{name.replace('-', '_')}_cmd"
        self.commands: dict[str, Command] = {}

    def add(self, name: str, help: str, run: Run, setup: Setup | None = None, **options: Any) -> None:
        self.commands[name] = Command(help, run, setup, options)

    def add_parser(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        group = sub.add_parser(self.name, help=self.help)
        gsub = group.add_subparsers(
            dest=self.dest, required=True, parser_class=self.parser_class or argparse.ArgumentParser
        )
        for name, cmd in self.commands.items():
            p = gsub.add_parser(name, help=cmd.help, **cmd.options)
            if cmd.setup is not None:
                cmd.setup(p)

    def command(self, args: argparse.Namespace) -> str:
        return str(getattr(args, self.dest))

    def run(self, args: argparse.Namespace) -> int:
        cmd = self.command(args)
        try:
            known = self.errors()
            target = self.open()
            try:
                return self.commands[cmd].run(target, args)
            except tuple(t for types, _ in known for t in types) as e:
                code = next(code for types, code in known if isinstance(e, types))
                print(f"webmcp-sidecar {self.name} {cmd}: {e}", file=sys.stderr)
                return code
        except KeyboardInterrupt:
            print(file=sys.stderr)
            return 130


# --- the arguments the groups share ----------------------------------------------------------


def name_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("name")


def file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file")


def json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="as JSON")


def add_on_off(group: CommandGroup, noun: str, run: Run, parts: str | None) -> None:
    """`enable NAME` / `disable NAME` (and `--tool T`, when the documents have `parts`)."""
    for cmd, verb in (("enable", "switch on"), ("disable", "switch off")):

        def setup(p: argparse.ArgumentParser, verb: str = verb) -> None:
            p.add_argument("name")
            if parts:
                p.add_argument("--tool", help=f"{verb} only this tool")

        group.add(cmd, f"{verb} {noun}" + (f", or one of its {parts}" if parts else ""), run, setup)


# --- a kind of document ----------------------------------------------------------------------


@dataclass
class DocTexts:
    """What a kind's commands print that is its own."""

    valid: str  # "a valid skill": `validate` of a good file
    added: Callable[[Any], None]  # prints what `add` added (a document)
    row: Callable[[Any], None]  # prints one `list` row (an info)
    empty: str = ""  # `list` with nothing (nothing printed when empty)
    removed: str = "Removed {name}."  # {name}, {what}: what is left (documents/store.py)


class DocCommands:
    """A kind's commands over its store (documents/store.py); `group.add` one by one, in the
    order `--help` lists them."""

    def __init__(self, group: CommandGroup, texts: DocTexts) -> None:
        self.group = group
        self.texts = texts

    def add(self, help: str, setup: Setup) -> None:
        def run(store: Any, args: argparse.Namespace) -> int:
            path = getattr(args, "path", None) or args.file
            for doc in store.add_file(path, replace=not args.no_replace):
                self.texts.added(doc)
            return 0

        self.group.add("add", help, run, setup)

    def list(self, help: str) -> None:
        def run(store: Any, args: argparse.Namespace) -> int:
            infos = store.list()
            if args.json:
                print(json.dumps([i.model_dump(mode="json") for i in infos], indent=2, ensure_ascii=False))
                return 0
            if not infos and self.texts.empty:
                print(self.texts.empty)
                return 0
            for i in infos:
                self.texts.row(i)
            return 0

        self.group.add("list", help, run, json_arg)

    def validate(self, help: str, *, as_given: bool = True) -> None:
        """`as_given`: the file is named as the user wrote it, and one that cannot be read is a
        problem (exit 1); else by its path, and that is an error (exit 2), as chat-sites did."""

        def run(store: Any, args: argparse.Namespace) -> int:
            path = Path(args.file) if as_given else Path(args.file).expanduser()
            shown = args.file if as_given else str(path)
            if as_given and not path.is_file():
                raise store.Error(f"{path} is not a file.")
            try:
                problems = store.validate_text(store.read(path), shown)
            except store.Error as e:  # too large, not UTF-8: not a valid document either
                if not as_given:
                    raise
                problems = [str(e)]
            if problems:
                print("\n".join(problems), file=sys.stderr)
                return 1
            print(f"{shown}: {self.texts.valid}.")
            return 0

        self.group.add("validate", help, run, file_arg)

    def remove(self, help: str) -> None:
        def run(store: Any, args: argparse.Namespace) -> int:
            what = store.remove(args.name)
            print(self.texts.removed.format(name=args.name, what=what))
            return 0

        self.group.add("remove", help, run, name_arg)

    def on_off(self, noun: str, parts: str | None = None) -> None:
        def run(store: Any, args: argparse.Namespace) -> int:
            on = self.group.command(args) == "enable"
            tool = getattr(args, "tool", None)
            if tool:
                store.set_enabled(args.name, on, tool)
            else:
                store.set_enabled(args.name, on)
            what = f"{args.name}'s tool {tool}" if tool else args.name
            print(f"{'Enabled' if on else 'Disabled'} {what}.")
            return 0

        add_on_off(self.group, noun, run, parts)

    def export(self, help: str) -> None:
        def setup(p: argparse.ArgumentParser) -> None:
            p.add_argument("name")
            p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead")

        def run(store: Any, args: argparse.Namespace) -> int:
            text = store.text(args.name)
            if args.output:
                Path(args.output).write_text(text, encoding="utf-8")
                print(f"Wrote {args.output}.", file=sys.stderr)
            else:
                sys.stdout.write(text if text.endswith("\n") else text + "\n")
            return 0

        self.group.add("export", help, run, setup)

    def schema(self, help: str) -> None:
        def run(store: Any, args: argparse.Namespace) -> int:
            sys.stdout.write(store.schema_text())
            return 0

        self.group.add("schema", help, run)


def doc_group(kind: Any, name: str, help: str) -> CommandGroup:
    """The group of a kind (`kind`: a documents.kind.DocKind) over its store in the data dir."""

    def errors() -> Sequence[tuple[tuple[type[BaseException], ...], int]]:
        from webmcp_sidecar.documents.store import DocError

        return [((DocError, OSError), 2)]

    return CommandGroup(name, help, lambda: kind.open(), errors)
