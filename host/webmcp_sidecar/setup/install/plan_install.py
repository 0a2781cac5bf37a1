"""Plan `install`: the launcher, a manifest (and registry key) per browser, client entries."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from webmcp_sidecar.extension_ids import chromium_ids
from webmcp_sidecar.setup.install import browsers as br
from webmcp_sidecar.setup.install import fsops
from webmcp_sidecar.setup.install.engine import Context, InstallOptions, Plan, Section, Step
from webmcp_sidecar.setup.install.engine import read_bytes as _read
from webmcp_sidecar.setup.install.manifest import launcher_spec, manifest, manifest_bytes
from webmcp_sidecar.setup.install.plan_clients import plan_clients
from webmcp_sidecar.setup.install.state import FileRecord, RegistryRecord, sha256


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
        if browser.family == "firefox":
            plan.problems.append(br.FIREFOX_NO_PROFILE_DIR)
            return []
        plan.browsers = [browser]
        return [br.custom_target(browser, opts.user_data_dir, env)]
    if not chosen:
        chosen = br.detect(env)
        if opts.system:
            chosen = [b for b in chosen if env.os == "win32" or b.system_dirs.get(env.os)]
        if not chosen:
            plan.problems.append(
                "No supported browser (Chromium family or Firefox) found for this user. Install "
                "or start one first, or name it: --browser chrome (or chromium, edge, brave, "
                "vivaldi, firefox...), or point at a profile: --user-data-dir DIR."
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
    if not ctx.env.data_dir.exists():  # so uninstall can take away all it leaves empty
        ctx.state.created_dirs = [str(d) for d in fsops.missing_dirs(ctx.env.data_dir / "x")]
    # Forget manifests whose whole folder has gone (a deleted temporary profile).
    ctx.state.files = [f for f in ctx.state.files if Path(f.path).parent.exists()]
    ids = list(dict.fromkeys([*ctx.state.extension_ids, *opts.extension_ids]))
    ids = [i for i in ids if i not in chromium_ids()]
    targets = [] if opts.no_browsers else _targets(ctx, opts, plan)
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
        data = manifest_bytes(manifest(path_for_browser, ids, t.browser.family))
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
        plan_clients(ctx, opts, plan)
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
