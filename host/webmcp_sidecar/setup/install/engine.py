"""Install and uninstall as a plan of steps: printed for --dry-run, otherwise carried out.

Planning reads everything and decides; only `apply` writes. Each step records what it added in
`InstallState` when it succeeds, so a failure half way leaves a state that uninstall still
understands.

`plan_install` and `plan_uninstall` (in their own modules) build the plans.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.manifest import frozen_executable, mcp_command
from webmcp_sidecar.setup.install.osenv import OsEnv
from webmcp_sidecar.setup.install.state import InstallState, load, save
from webmcp_sidecar.setup.install.winregistry import Registry

Section = Literal["host", "browsers", "clients"]


@dataclass
class Step:
    section: Section
    verb: str  # write | delete | restore | set-key | delete-key
    target: str
    what: str
    run: Callable[[], None]
    note: str = ""  # e.g. where the backup went; filled in by run()
    error: str = ""  # set by apply() when the step failed
    denied_hint: str = ""  # added to a permission error (system-wide targets)

    def past(self) -> str:
        if self.error:
            return "FAILED"
        return {"write": "Wrote", "delete": "Removed", "restore": "Restored",
                "set-key": "Set key", "delete-key": "Deleted key"}[self.verb]

    def future(self) -> str:
        return {"write": "Would write", "delete": "Would remove", "restore": "Would restore",
                "set-key": "Would set key", "delete-key": "Would delete key"}[self.verb]


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    unchanged: list[tuple[Section, str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written_clients: list[cl.Client] = field(default_factory=list)
    browsers: list[br.Browser] = field(default_factory=list)
    # Dirs install created, removed after the steps if they ended up empty.
    cleanup_dirs: list[str] = field(default_factory=list)
    # Backups of client configs that uninstall's steps delete (the rest are named in a note).
    dropped_backups: list[str] = field(default_factory=list)


@dataclass
class Context:
    env: OsEnv
    registry: Registry | None
    state: InstallState
    host_exe: Path | None = None  # the bundle's executable; None = use the launcher
    mcp: tuple[str, list[str]] = ("", [])
    python: Path | None = None  # the interpreter the launcher names (tests pin it)
    stamp: str = field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S"))

    @classmethod
    def current(cls) -> tuple[Context, str | None]:
        from webmcp_sidecar.setup.install.winregistry import system_registry

        env = OsEnv.current()
        state, warning = load(env.data_dir)
        return cls(env, system_registry(), state, frozen_executable(), mcp_command()), warning

    @property
    def backup_dir(self) -> Path:
        return self.env.data_dir / "backups" / self.stamp

    def save(self) -> None:
        save(self.env.data_dir, self.state)


@dataclass
class TargetOptions:
    """Which browsers and profiles a command is about (install, uninstall, doctor alike)."""

    browsers: list[str] = field(default_factory=list)
    user_data_dir: Path | None = None
    extension_ids: list[str] = field(default_factory=list)
    system: bool = False


@dataclass
class InstallOptions(TargetOptions):
    clients: list[str] | None = None  # None = every detected client
    no_clients: bool = False
    no_browsers: bool = False  # clients only: no manifests, no launcher


def read_bytes(path: Path) -> bytes | None:
    try:
        return fsops.real_path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None  # absent; writing it will say what stands in the way


def apply(ctx: Context, plan: Plan) -> list[str]:
    """Run the steps; return the failures (each a sentence with the fix)."""
    failures = []
    for step in plan.steps:
        try:
            step.run()
        except OSError as e:
            if step.verb.endswith("-key"):
                step.error = f"cannot change {step.target}: {e.strerror or e}"
                if isinstance(e, PermissionError):
                    step.error += " (HKLM needs an administrator prompt)"
            else:
                step.error = fsops.explain(e, Path(step.target))
            if isinstance(e, PermissionError) and step.denied_hint:
                step.error = f"{step.error} {step.denied_hint}"
            failures.append(step.error)
    try:
        ctx.save()
    except OSError as e:
        failures.append("could not record what was installed: "
                        + fsops.explain(e, ctx.env.data_dir / "install-state.json"))
    # After the save: an uninstall that leaves nothing recorded deletes the state file, and
    # only then are the data dir and the folders above it that install created empty.
    dirs = plan.cleanup_dirs + (ctx.state.created_dirs if ctx.state.empty() else [])
    # Deepest first, each only if empty: a shared parent goes once its last child has gone.
    for d in sorted(set(dirs), key=lambda d: -len(Path(d).parts)):
        fsops.remove_empty_dirs([d])
    return failures
