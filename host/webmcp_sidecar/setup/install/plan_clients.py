"""Plan `install`'s MCP client entries: add ours where there is none, and leave a user's own
`webmcp-sidecar` entry as they wrote it, only repointing a command that no longer exists.

What each step did is recorded (`ClientRecord.entry`) so uninstall removes what we added,
puts back what we changed, and leaves what we found.
"""

from __future__ import annotations

from typing import Any

from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.engine import Context, InstallOptions, Plan, Step
from webmcp_sidecar.setup.install.engine import read_bytes as _read
from webmcp_sidecar.setup.install.state import ClientRecord, EntryAction, sha256


def plan_clients(ctx: Context, opts: InstallOptions, plan: Plan) -> None:
    env = ctx.env
    try:
        chosen = [cl.by_key(c) for c in opts.clients] if opts.clients else cl.detect(env)
    except KeyError as e:
        plan.problems.append(str(e.args[0]))
        return
    command, args = ctx.mcp
    if not chosen:
        plan.notes.append(
            "No MCP client config found. Add this server to your client by hand: command "
            f"{command!r}, args {args!r}."
        )
    for c in chosen:
        if env.os not in c.config:
            plan.notes.append(f"{c.name} is not available on this OS; skipped.")
            continue
        _plan_client(ctx, plan, c, command, args)


def _plan_client(ctx: Context, plan: Plan, c: cl.Client, command: str, args: list[str]) -> None:
    path = c.config_path(ctx.env)
    where = f"{c.name}: {c.container}.{cl.SERVER_NAME}"
    rec = ctx.state.client(c.key, path)
    try:
        raw = _read(path)
        text = None if raw is None else raw.decode("utf-8")
        current = c.get(text) if text is not None and text.strip() else None
        update: dict[str, Any]
        action: EntryAction
        if current is None:
            update, action, what = c.entry(command, args), "added", where
        elif not cl.looks_ours(current):
            plan.problems.append(
                f"{c.name}: {path} has a {cl.SERVER_NAME!r} entry of its own, which runs "
                f"{cl.describe_run(current)!r}; left as it is. Rename or remove it, then run "
                "install again.")
            return
        else:
            old = cl.run_of(current)[0]
            # Ours to update: an entry install wrote that still runs what install wrote.
            ours = rec is not None and rec.entry != "kept" and (
                rec.written_run == cl.run_digest(current))
            if not (cl.stale(old, ctx.env) or (ours and old != command)):
                _keep(ctx, plan, c, path, rec, current, command, ours)
                return
            update, action = cl.repoint(current, command, args), "changed"
            what = (f"{where}: command {old} -> {command} (its arguments, env and other settings "
                    "kept)")
        new_text, created_container = c.set(text, update)
        written = c.get(new_text)
    except UnicodeDecodeError:
        plan.problems.append(f"{c.name}: {path} is not UTF-8 text; left untouched. Add this "
                             f"by hand:\n{_indent(c.snippet(command, args))}")
        return
    except ValueError as e:
        plan.problems.append(
            f"{c.name}: {path} is not valid {c.fmt.upper()} ({e}); left untouched. Fix the file "
            f"and run install again, or add this by hand:\n{_indent(c.snippet(command, args))}"
        )
        return
    except OSError as e:
        plan.problems.append(f"{c.name}: {fsops.explain(e, path)}")
        return
    new = new_text.encode("utf-8")
    step = Step("clients", "write", str(path), what, lambda: None)

    def run() -> None:
        kept = None
        if raw is not None:
            kept = fsops.backup(path, ctx.backup_dir, c.key)
            step.note = f"backup: {kept}"
        created = fsops.write_atomic(path, new, 0o600)
        r = ctx.state.client(c.key, path)
        if r is not None and r.entry == "kept":  # the user's entry went: this is a first edit
            ctx.state.clients.remove(r)
            r = None
        if r is None:
            ctx.state.clients.append(ClientRecord(
                client=c.key, path=str(path), entry=action, written_run=cl.run_digest(written),
                created_file=raw is None, created_container=created_container,
                created_dirs=[str(d) for d in created],
                baseline=None if kept is None else str(kept), written_sha256=sha256(new),
                backups=[] if kept is None else [str(kept)]))
        else:
            if kept is not None:
                r.backups.append(str(kept))
            if raw is None or r.written_sha256 != sha256(raw):
                r.restorable = False  # someone else edited it since: no exact restore
            r.written_sha256 = sha256(new)
            r.written_run = cl.run_digest(written)

    step.run = run
    plan.steps.append(step)
    plan.written_clients.append(c)


def _keep(ctx: Context, plan: Plan, c: cl.Client, path: Any, rec: ClientRecord | None,
          current: Any, command: str, ours: bool) -> None:
    """An entry that runs our program and needs nothing: say so, and remember whose it is."""
    where = f"{c.name}: {c.container}.{cl.SERVER_NAME}"
    if ours:
        plan.unchanged.append(("clients", str(path), where))
        return
    plan.unchanged.append(("clients", str(path), f"{where} (your own entry, left as it is)"))
    old = cl.run_of(current)[0]
    if old != command:
        plan.notes.append(f"{c.name}'s {cl.SERVER_NAME} entry runs {old}, not this install's "
                          f"{command}; left as you set it.")
    if rec is None:  # uninstall must leave it too
        ctx.state.clients.append(ClientRecord(client=c.key, path=str(path), entry="kept"))


def _indent(text: str) -> str:
    return "\n".join("     " + line for line in text.splitlines())
