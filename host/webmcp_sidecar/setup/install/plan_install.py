"""Plan `install`: the launcher, a manifest (and registry key) per browser, client entries."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from webmcp_sidecar import EXTENSION_ID
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install import clients as cl
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.engine import Context, InstallOptions, Plan, Section, Step
from webmcp_sidecar.setup.install.engine import read_bytes as _read
from webmcp_sidecar.setup.install.manifest import launcher_spec, manifest, manifest_bytes
from webmcp_sidecar.setup.install.state import ClientRecord, FileRecord, RegistryRecord, sha256


def _write_file_step(ctx: Context, plan: Plan, section: Section, path: Path, data: bytes,
                     what: str, mode: int = 0o644) -> None:
    try:
        current = _read(path)
    except OSError as e:
        plan.problems.append(f"{what}: {fsops.explain(e, path)}")
        return
    runnable = not mode & 0o111 or os.name == "nt" or os.access(path, os.X_OK)
    if current == data and runnable:
        plan.unchanged.append((section, str(path), what))
        if ctx.state.file(path) is None:
            ctx.state.put_file(FileRecord(path=str(path), what=what, sha256=sha256(data)))
        return

    def run() -> None:
        created = fsops.write_atomic(path, data, mode)
        if mode & 0o111 and os.name != "nt":
            os.chmod(fsops.real_path(path), mode)  # an existing file keeps its mode otherwise
        ctx.state.put_file(FileRecord(path=str(path), what=what, sha256=sha256(data),
                                      created_dirs=[str(d) for d in created]))

    plan.steps.append(Step(section, "write", str(path), what, run))


def _host_path(ctx: Context, plan: Plan) -> Path:
    if ctx.host_exe is not None:
        return ctx.host_exe
    path, data = launcher_spec(ctx.env.data_dir / "bin", ctx.env.os, ctx.python)
    _write_file_step(ctx, plan, "host", path, data, "launcher naming this Python", 0o755)
    return path


def _targets(ctx: Context, opts: InstallOptions, plan: Plan) -> list[br.Target]:
    env = ctx.env
    try:
        chosen = [br.by_key(n) for n in opts.browsers]
    except KeyError as e:
        plan.problems.append(str(e.args[0]))
        return []
    if opts.user_data_dir is not None:
        browser = chosen[0] if chosen else br.by_key("chromium")
        return [br.custom_target(browser, opts.user_data_dir, env)]
    if not chosen:
        chosen = br.detect(env)
        if opts.system:
            chosen = [b for b in chosen if env.os == "win32" or b.system_dirs.get(env.os)]
        if not chosen:
            plan.problems.append(
                "No Chromium-family browser found for this user. Install or start one first, "
                "or name it: --browser chrome (or chromium, edge, brave, vivaldi...), or "
                "point at a profile: --user-data-dir DIR."
            )
    plan.browsers = chosen
    found = [t for b in chosen for t in br.targets(b, env, opts.system)]
    for b in chosen:
        if not br.targets(b, env, opts.system):
            plan.notes.append(f"{b.name} has no {'system' if opts.system else 'user'}-level "
                              f"location on this OS; skipped.")
    return br.dedupe(found)


def _flatpak_wrapper(ctx: Context, plan: Plan, b: br.Browser, host: Path) -> Path:
    """Flatpak browsers run hosts inside their sandbox: hop out with flatpak-spawn."""
    path = ctx.env.home / ".var" / "app" / b.flatpak_id / "data" / "webmcp-sidecar" / (
        "webmcp-sidecar-host")
    text = (
        "#!/bin/sh\n"
        "# Runs the WebMCP Sidecar host outside the flatpak sandbox; written by "
        "`webmcp-sidecar install`.\n"
        f'exec flatpak-spawn --host "{host}" "$@"\n'
    )
    _write_file_step(ctx, plan, "browsers", path, text.encode(), f"flatpak wrapper for {b.name}",
                     0o755)
    plan.notes.append(
        f"{b.name} is a flatpak: allow it to start the host outside its sandbox with\n"
        f"     flatpak override --user --talk-name=org.freedesktop.Flatpak {b.flatpak_id}"
    )
    return path


def plan_install(ctx: Context, opts: InstallOptions) -> Plan:
    plan = Plan()
    # Forget manifests whose whole folder has gone (a deleted temporary profile).
    ctx.state.files = [f for f in ctx.state.files if Path(f.path).parent.exists()]
    ids = list(dict.fromkeys([*ctx.state.extension_ids, *opts.extension_ids]))
    ids = [i for i in ids if i != EXTENSION_ID]
    targets = _targets(ctx, opts, plan)
    host = _host_path(ctx, plan) if targets else None
    for t in targets:
        assert host is not None
        path_for_browser = host
        if t.browser.sandbox == "flatpak":
            path_for_browser = _flatpak_wrapper(ctx, plan, t.browser, host)
        elif t.browser.sandbox == "snap":
            plan.notes.append(f"{t.browser.name}: snap confinement may refuse to start hosts "
                              "outside the snap; if `webmcp-sidecar doctor` or the extension "
                              "says 'Native host has exited', use a non-snap build.")
        data = manifest_bytes(manifest(path_for_browser, ids))
        _write_file_step(ctx, plan, "browsers", t.manifest, data, f"host manifest for {t.label}")
        if t.reg is not None:
            _reg_step(ctx, plan, t)
    if opts.system:
        for step in plan.steps:
            step.denied_hint = ("System-wide locations need administrator rights: run "
                                "`sudo webmcp-sidecar install --system` (Windows: from an "
                                "administrator prompt), or leave out --system.")
    if opts.system and host is not None and ctx.host_exe is None:
        plan.notes.append(f"--system: other users can start the host only if they can read "
                          f"{host} and run {ctx.python or sys.executable}.")
    if opts.no_clients or (opts.user_data_dir is not None and opts.clients is None):
        pass  # a custom profile is usually a test or a demo: leave the user's clients alone
    else:
        _plan_clients(ctx, opts, plan)
    if targets:
        ctx.state.extension_ids = ids
    return plan


def _reg_step(ctx: Context, plan: Plan, t: br.Target) -> None:
    assert t.reg is not None
    hive, key = t.reg
    value = str(t.manifest)
    shown = f"{hive}\\{key}"
    if ctx.registry is None:
        plan.problems.append(f"cannot register {shown}: no Windows registry here")
        return
    current = ctx.registry.get(hive, key)
    if current == value:
        plan.unchanged.append(("browsers", shown, f"registry key for {t.label}"))
        return
    registry = ctx.registry

    def run() -> None:
        registry.set(hive, key, value)
        ctx.state.put_registry(RegistryRecord(hive=hive, key=key, value=value, previous=current))

    plan.steps.append(Step("browsers", "set-key", shown, f"-> {value}", run))


def _plan_clients(ctx: Context, opts: InstallOptions, plan: Plan) -> None:
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
    try:
        raw = _read(path)
        text = None if raw is None else raw.decode("utf-8")
        new_text, created_container = c.set(text, c.entry(command, args))
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
    where = f"{c.container}.{cl.SERVER_NAME}"
    if raw is not None and new_text == text:
        plan.unchanged.append(("clients", str(path), f"{c.name}: {where}"))
        return
    new = new_text.encode("utf-8")
    step = Step("clients", "write", str(path), f"{c.name}: {where}", lambda: None)

    def run() -> None:
        kept = None
        if raw is not None:
            kept = fsops.backup(path, ctx.backup_dir, c.key)
            step.note = f"backup: {kept}"
        created = fsops.write_atomic(path, new, 0o600)
        rec = ctx.state.client(c.key, path)
        if rec is None:
            ctx.state.clients.append(ClientRecord(
                client=c.key, path=str(path), created_file=raw is None,
                created_container=created_container, created_dirs=[str(d) for d in created],
                baseline=None if kept is None else str(kept), written_sha256=sha256(new),
                backups=[] if kept is None else [str(kept)]))
        else:
            if kept is not None:
                rec.backups.append(str(kept))
            if raw is None or rec.written_sha256 != sha256(raw):
                rec.restorable = False  # someone else edited it since: no exact restore
            rec.written_sha256 = sha256(new)

    step.run = run
    plan.steps.append(step)
    plan.written_clients.append(c)


def _indent(text: str) -> str:
    return "\n".join("     " + line for line in text.splitlines())
