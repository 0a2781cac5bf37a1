"""Plan `uninstall`: remove what the state file says install added, plus anything of ours
found under our names in the known places (an older install, or a lost state file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webmcp_sidecar import HOST_NAME
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.engine import Context, Plan, Section, Step
from webmcp_sidecar.setup.install.engine import read_bytes as _read
from webmcp_sidecar.setup.install.manifest import launcher_spec
from webmcp_sidecar.setup.install.state import ClientRecord, FileRecord, RegistryRecord, sha256


def _is_our_manifest(data: bytes | None) -> bool:
    try:
        return data is not None and json.loads(data).get("name") == HOST_NAME
    except (ValueError, AttributeError):
        return False


def plan_uninstall(ctx: Context, clients: list[str] | None = None,
                   no_clients: bool = False, no_browsers: bool = False) -> Plan:
    plan = Plan()
    state = ctx.state
    # Without a state file (a lost one, or never installed) entries of ours are found by name;
    # with one, it alone says which entries install added or changed.
    by_name = state.empty()
    if not no_browsers:
        _plan_remove_host(ctx, plan)
    if not no_clients:
        chosen = None
        if clients:
            try:
                chosen = {cl.by_key(c).key for c in clients}
            except KeyError as e:
                plan.problems.append(str(e.args[0]))
                return plan
        _plan_remove_clients(ctx, plan, chosen, by_name)
    _note_other_backups(ctx, plan)
    return plan


def _plan_remove_host(ctx: Context, plan: Plan) -> None:
    """The manifests, wrappers, registry keys and launcher: what browsers use."""
    state = ctx.state
    recorded = {r.path for r in state.files}
    # Manifests and wrappers first, the launcher they point at last.
    for rec in sorted(state.files, key=lambda r: r.what.startswith("launcher")):
        _plan_remove_file(ctx, plan, rec)
    for reg in list(state.registry):
        _plan_remove_key(ctx, plan, reg)
    # Manifests of ours with no record (an older install, or a lost state file).
    for b in br.BROWSERS:
        for t in br.targets(b, ctx.env):
            if str(t.manifest) not in recorded and _is_our_manifest(_read(t.manifest)):
                rec = FileRecord(path=str(t.manifest), what=f"host manifest for {b.name}",
                                 sha256="")
                recorded.add(rec.path)
                _plan_remove_file(ctx, plan, rec)
    launcher, _ = launcher_spec(ctx.env.data_dir / "bin", ctx.env.os)
    if str(launcher) not in recorded and launcher.is_file():
        _plan_remove_file(ctx, plan, FileRecord(path=str(launcher), what="launcher", sha256="",
                                                created_dirs=[str(launcher.parent)]))


def _backups_root(ctx: Context) -> Path:
    return ctx.env.data_dir / "backups"


def _drop_backups(ctx: Context, rec: ClientRecord | None) -> None:
    if rec is not None:
        fsops.remove_backups(rec.all_backups(), _backups_root(ctx))


def _backup_note(rec: ClientRecord | None) -> str:
    n = len(rec.all_backups()) if rec is not None else 0
    return f"; and the {n} backup(s) install made of it" if n else ""


def _note_other_backups(ctx: Context, plan: Plan) -> None:
    """Backups this uninstall does not delete (an older version's, or of clients left in place)
    hold other servers' secrets too: say where they are."""
    root = _backups_root(ctx)
    ours = {b for rec in ctx.state.clients for b in rec.all_backups()} | set(plan.dropped_backups)
    try:
        left = [p for p in root.rglob("*") if p.is_file() and str(p) not in ours]
    except OSError:
        return
    if left:
        plan.notes.append(f"{len(left)} backup(s) of MCP client configs remain in {root} (from an "
                          "earlier install, or of clients not uninstalled now); they may hold other "
                          "servers' secrets: delete them once you no longer need them.")


def _plan_remove_file(ctx: Context, plan: Plan, rec: FileRecord) -> None:
    path = Path(rec.path)
    data = _read(path)
    section: Section = "host" if rec.what.startswith("launcher") else "browsers"

    def forget() -> None:
        if rec in ctx.state.files:
            ctx.state.files.remove(rec)

    if data is None:
        plan.unchanged.append((section, rec.path, f"{rec.what} (already gone)"))
        forget()
        return
    if rec.what.startswith("host manifest") and not _is_our_manifest(data):
        plan.notes.append(f"{path} no longer holds our manifest; left as it is.")
        forget()
        return

    def run() -> None:
        path.unlink()
        forget()

    plan.cleanup_dirs += rec.created_dirs

    plan.steps.append(Step(section, "delete", rec.path, rec.what, run))


def _plan_remove_key(ctx: Context, plan: Plan, rec: RegistryRecord) -> None:
    shown = f"{rec.hive}\\{rec.key}"
    registry = ctx.registry

    def forget() -> None:
        if rec in ctx.state.registry:
            ctx.state.registry.remove(rec)

    if registry is None:
        plan.problems.append(f"cannot remove {shown}: no Windows registry here")
        return
    if registry.get(rec.hive, rec.key) != rec.value:
        plan.unchanged.append(("browsers", shown, "registry key (changed or gone; left)"))
        forget()
        return

    def run() -> None:
        if rec.previous:
            registry.set(rec.hive, rec.key, rec.previous)
        else:
            registry.delete(rec.hive, rec.key)
        forget()

    verb = "set-key" if rec.previous else "delete-key"
    plan.steps.append(Step("browsers", verb, shown, "registry key", run))


def _plan_remove_clients(ctx: Context, plan: Plan, only: set[str] | None,
                         by_name: bool) -> None:
    seen: set[tuple[str, str]] = set()
    for rec in list(ctx.state.clients):
        if only is not None and rec.client not in only:
            continue
        seen.add((rec.client, rec.path))
        try:
            client = cl.by_key(rec.client)
        except KeyError:
            continue
        _plan_remove_client(ctx, plan, client, Path(rec.path), rec)
    for c in cl.detect(ctx.env) if by_name else ():
        path = c.config_path(ctx.env)
        if (c.key, str(path)) in seen or (only is not None and c.key not in only):
            continue
        raw = _read(path)
        try:
            ours = raw is not None and cl.looks_ours(c.get(raw.decode("utf-8")))
        except (ValueError, UnicodeDecodeError):
            ours = False
        if ours:
            _plan_remove_client(ctx, plan, c, path, None)


def _plan_remove_client(ctx: Context, plan: Plan, c: cl.Client, path: Path,
                        rec: ClientRecord | None) -> None:
    where = f"{c.name}: {c.container}.{cl.SERVER_NAME}"

    def forget() -> None:
        if rec is not None and rec in ctx.state.clients:
            ctx.state.clients.remove(rec)

    if rec is not None and rec.entry == "kept":
        plan.unchanged.append(("clients", str(path),
                               f"{where} (yours from before install; left as it is)"))
        forget()
        return
    if rec is not None:
        plan.dropped_backups += rec.all_backups()
    raw = _read(path)
    if raw is None:
        plan.unchanged.append(("clients", str(path), f"{where} (file gone)"))
        _plan_drop_backups(ctx, plan, c, path, rec)
        forget()
        return
    exact = rec is not None and rec.restorable and rec.written_sha256 == sha256(raw)
    if exact and rec is not None and rec.created_file:
        def run_delete() -> None:
            fsops.real_path(path).unlink()
            _drop_backups(ctx, rec)
            forget()

        plan.cleanup_dirs += rec.created_dirs

        plan.steps.append(Step("clients", "delete", str(path),
                               f"{where} (we created the file){_backup_note(rec)}", run_delete))
        return
    if exact and rec is not None and rec.baseline and Path(rec.baseline).is_file():
        baseline = Path(rec.baseline)

        def run_restore() -> None:
            fsops.write_atomic(path, baseline.read_bytes())
            _drop_backups(ctx, rec)  # only once the file is back: the baseline is one of them
            forget()

        plan.steps.append(Step("clients", "restore", str(path),
                               f"{where} (the file as it was before install){_backup_note(rec)}",
                               run_restore))
        return
    try:
        text = raw.decode("utf-8")
        current = c.get(text)
        if current is None:
            plan.unchanged.append(("clients", str(path), f"{where} (not there)"))
            _plan_drop_backups(ctx, plan, c, path, rec)
            forget()
            return
        # An entry was there before install (an older version's records say "added" for
        # one it overwrote, and no written_run): the user's entry comes back.
        previous = _previous_entry(c, rec) if rec is not None else None
        if rec is not None and (rec.entry == "changed" or previous is not None):
            if (rec.written_run and rec.written_run != cl.run_digest(current)) or previous is None:
                why = ("changed since install" if previous is not None else
                       "the backup holding your entry as it was is gone")
                plan.unchanged.append(("clients", str(path), f"{where} (yours, repointed by "
                                       f"install; {why}: left as it is)"))
                _plan_drop_backups(ctx, plan, c, path, rec)
                forget()
                return
            new = c.set(text, previous, replace=True)[0].encode("utf-8")
            what = f"{where} put back as it was before install{_backup_note(rec)}"
        else:
            new = c.remove(text, rec.created_container if rec else False).encode("utf-8")
            what = f"{where} removed{_backup_note(rec)}"
    except (ValueError, UnicodeDecodeError) as e:
        plan.problems.append(f"{c.name}: {path} cannot be parsed ({e}); left untouched. Remove "
                             f"{c.container}.{cl.SERVER_NAME} by hand.")
        return

    step = Step("clients", "write", str(path), what, lambda: None)

    def run() -> None:
        # Someone changed the file since install, so the edit is ours to check: one backup of
        # it as it was is kept, and said where; install's older copies go.
        kept = fsops.backup(path, ctx.backup_dir, c.key)
        fsops.write_atomic(path, new)
        _drop_backups(ctx, rec)
        forget()
        step.note = (f"kept a backup of the file as it was before this change: {kept} (it may "
                     "hold other servers' secrets: delete it once you have checked the file)")

    step.run = run
    plan.steps.append(step)


def _previous_entry(c: cl.Client, rec: ClientRecord) -> Any:
    """The user's entry as it was before install changed it, from install's first backup."""
    try:
        data = Path(rec.baseline).read_bytes() if rec.baseline else None
        return None if data is None else c.get(data.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _plan_drop_backups(ctx: Context, plan: Plan, c: cl.Client, path: Path,
                       rec: ClientRecord | None) -> None:
    """Our entry is gone already (or the file): only install's backups of the file are left."""
    if rec is None or not any(Path(b).exists() for b in rec.all_backups()):
        return
    plan.steps.append(Step("clients", "delete", str(_backups_root(ctx)),
                           f"{c.name}: the {len(rec.all_backups())} backup(s) install made of {path}",
                           lambda: _drop_backups(ctx, rec)))
