"""Shared helpers for the install / doctor tests (no tests here).

Each test gets a fake machine in a temp dir: HOME, a `root` standing for `/` (so `/opt`,
`/etc`, `/Applications` can be faked), the data dir, and an in-memory Windows registry.
"""

from __future__ import annotations

import sys
from pathlib import Path

from webmcp_sidecar.setup.install.engine import Context, InstallOptions, Plan, apply
from webmcp_sidecar.setup.install.osenv import OsEnv, OsName
from webmcp_sidecar.setup.install.plan_install import plan_install
from webmcp_sidecar.setup.install.plan_uninstall import plan_uninstall as _plan_uninstall
from webmcp_sidecar.setup.install.state import InstallState, load
from webmcp_sidecar.setup.install.winregistry import MemoryRegistry


def make_env(tmp: Path, os_name: OsName = "linux", **environ: str) -> OsEnv:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    return OsEnv(os_name, home, tmp / "data", environ, tmp / "root")


def fake_exe(path: Path, body: str = "exit 0") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def make_ctx(env: OsEnv, registry: MemoryRegistry | None = None) -> Context:
    """A context as `install` builds it, with state loaded from the env's data dir."""
    cmd = fake_exe(env.home.parent / "app" / "webmcp-sidecar")
    state, _ = load(env.data_dir)
    return Context(env, registry if registry is not None else MemoryRegistry(), state,
                   host_exe=None, mcp=(str(cmd), ["mcp"]),
                   python=Path(sys.executable).absolute(), stamp="20260101-000000")


def install(env: OsEnv, registry: MemoryRegistry | None = None,
            **opts: object) -> tuple[Plan, list[str], Context]:
    ctx = make_ctx(env, registry)
    plan = plan_install(ctx, InstallOptions(**opts))  # type: ignore[arg-type]
    return plan, apply(ctx, plan), ctx


def uninstall(env: OsEnv, registry: MemoryRegistry | None = None,
              **opts: object) -> tuple[Plan, list[str], Context]:
    ctx = make_ctx(env, registry)
    plan = _plan_uninstall(ctx, **opts)  # type: ignore[arg-type]
    return plan, apply(ctx, plan), ctx


def snapshot(top: Path, skip: tuple[Path, ...] = ()) -> dict[str, bytes | None]:
    """Every file (bytes) and dir (None) under `top`, except under `skip`."""
    out: dict[str, bytes | None] = {}
    for p in sorted(top.rglob("*")):
        if any(p == s or s in p.parents for s in skip):
            continue
        out[str(p.relative_to(top))] = None if p.is_dir() else p.read_bytes()
    return out


def state_of(env: OsEnv) -> InstallState:
    return load(env.data_dir)[0]
